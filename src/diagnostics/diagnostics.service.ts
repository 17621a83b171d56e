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
   * Worker side (DiagnosticPingSweep): takes up to `batch` pings still QUEUED `minAgeMs` after they were last
   * enqueued, a fair share per project (DiagnosticPingRepository.claimStale), and enqueues again the jobs of
   * those that have none left to run: Redis has none (a failover lost it) or a failed one (its attempts are
   * spent). A job waiting, delayed or running is left to complete the ping; a completed one has run. A ping
   * enqueued again `maxRequeues` times is given up (FAILED) instead. The requeue is counted before the add, so
   * a run whose add fails (Redis down) spends one of those pings' requeues, never enqueues uncounted. Returns
   * how many jobs it enqueued, so that a run that found only jobs still on their way does not report work.
   */
  async requeueStale(minAgeMs: number, batch: number, maxRequeues: number): Promise<number> {
    const claimed = await this.pings.claimStale(minAgeMs, batch);
    if (claimed.length === 0) return 0;
    const states = await this.jobs.states(JobName.DiagnosticPing, claimed.map((ping) => ping.id));
    const dead = claimed.filter((ping) => ['unknown', 'failed'].includes(states.get(ping.id)!)).map((ping) => ping.id);
    if (dead.length === 0) return 0;
    const requeue = await this.pings.requeueOrGiveUp(dead, maxRequeues);
    await this.jobs.replaceMany(JobName.DiagnosticPing, requeue.map((pingId) => ({ data: { pingId }, jobId: pingId })));
    return requeue.length;
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
