import { Injectable } from '@nestjs/common';
import type { ProjectContext } from '../auth/auth.service.js';
import { ApiError } from '../common/errors/api-error.js';
import { hexId } from '../common/ids.js';
import { WORKER_ID } from '../common/process/worker-id.js';
import { JobQueueService } from '../queue/job-queue.service.js';
import { JobName } from '../queue/queue.definitions.js';
import { DiagnosticPingRepository } from './diagnostic-ping.repository.js';
import type { CreateDiagnosticPingDto } from './dto/create-diagnostic-ping.dto.js';
import { type DiagnosticPingDto, toDiagnosticPingDto } from './dto/diagnostic-ping.dto.js';

@Injectable()
export class DiagnosticsService {
  constructor(
    private readonly pings: DiagnosticPingRepository,
    private readonly jobs: JobQueueService,
  ) {}

  async createPing(project: ProjectContext, dto: CreateDiagnosticPingDto): Promise<DiagnosticPingDto> {
    const ping = await this.pings.insert({ id: hexId('ping_'), projectId: project.id, note: dto.note ?? null, workMs: dto.work_ms ?? 0 });
    try {
      await this.jobs.enqueue(JobName.DiagnosticPing, { pingId: ping.id }, { jobId: ping.id });
    } catch (error) {
      // No queued job means no worker will ever complete this row: remove it rather than leave it stuck.
      await this.pings.delete(project.id, ping.id);
      throw error;
    }
    return toDiagnosticPingDto(ping);
  }

  async getPing(project: ProjectContext, pingId: string): Promise<DiagnosticPingDto> {
    const ping = await this.pings.findInProject(project.id, pingId);
    if (!ping) throw ApiError.notFound('diagnostic_ping', pingId);
    return toDiagnosticPingDto(ping);
  }

  /**
   * Worker side (DiagnosticPingSweep): enqueues again the jobs of up to `batch` pings still QUEUED after
   * `minAgeMs`, oldest first; how many. A job that still exists is left as it is (same job id).
   */
  async requeueStale(minAgeMs: number, batch: number): Promise<number> {
    const ids = await this.pings.findQueuedBefore(new Date(Date.now() - minAgeMs), batch);
    if (ids.length === 0) return 0;
    await this.jobs.enqueueMany(
      JobName.DiagnosticPing,
      ids.map((pingId) => ({ data: { pingId }, jobId: pingId })),
    );
    return ids.length;
  }

  /**
   * Worker side. Returns false when the ping was already processed (a retry or a duplicate job). The row
   * records the worker's opaque id, never its host name or pid: projects read it back.
   */
  async processPing(pingId: string): Promise<boolean> {
    const ping = await this.pings.findById(pingId);
    if (!ping || ping.status !== 'QUEUED') return false;
    if (ping.workMs > 0) await new Promise((resolve) => setTimeout(resolve, ping.workMs));
    return this.pings.markDone(pingId, WORKER_ID);
  }
}
