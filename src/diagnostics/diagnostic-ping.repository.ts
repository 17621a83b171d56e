import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, LessThan, type Repository } from 'typeorm';
import { DiagnosticPing } from './diagnostic-ping.entity.js';

@Injectable()
export class DiagnosticPingRepository {
  private readonly pings: Repository<DiagnosticPing>;

  constructor(@InjectDataSource() dataSource: DataSource) {
    this.pings = dataSource.getRepository(DiagnosticPing);
  }

  async insert(ping: Pick<DiagnosticPing, 'id' | 'projectId' | 'note' | 'workMs'>): Promise<DiagnosticPing> {
    return this.pings.save(this.pings.create({ ...ping, status: 'QUEUED' }));
  }

  async findInProject(projectId: string, id: string): Promise<DiagnosticPing | null> {
    return this.pings.findOneBy({ projectId, id });
  }

  /** Worker side: the job names the row by id; the row carries its project. */
  async findById(id: string): Promise<DiagnosticPing | null> {
    return this.pings.findOneBy({ id });
  }

  /** The sweep's read: ids of pings QUEUED since before `before`, oldest first (idx_diagnostic_pings_queued). */
  async findQueuedBefore(before: Date, limit: number): Promise<string[]> {
    const rows = await this.pings.find({ select: { id: true }, where: { status: 'QUEUED', createdAt: LessThan(before) }, order: { createdAt: 'ASC' }, take: limit });
    return rows.map((row) => row.id);
  }

  async delete(projectId: string, id: string): Promise<void> {
    await this.pings.delete({ projectId, id });
  }

  /** Conditional QUEUED → DONE, so a retried job cannot complete the same ping twice. */
  async markDone(id: string, processedBy: string): Promise<boolean> {
    const result = await this.pings.update({ id, status: 'QUEUED' }, { status: 'DONE', processedAt: new Date(), processedBy });
    return (result.affected ?? 0) > 0;
  }
}
