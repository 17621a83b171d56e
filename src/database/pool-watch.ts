import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

/** What node-postgres's pool shows of itself. */
interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
  options: { max: number };
}

const CHECK_MS = 100;

/**
 * Logs once when every connection of this process's pool is in use and callers queue for one ("database
 * pool saturated", with the pool's counts), and once when the queue is empty again (with how long it
 * lasted): the operator sees a busy database in two lines, not in a line per refused request.
 */
@Injectable()
export class PoolWatch implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('DatabasePool');
  private timer: NodeJS.Timeout | null = null;
  private since: number | null = null;
  private peakWaiting = 0;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  onApplicationBootstrap(): void {
    const pool = (this.dataSource.driver as unknown as { master?: PoolCounts }).master;
    if (!pool) return;
    this.timer = setInterval(() => this.check(pool), CHECK_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private check(pool: PoolCounts): void {
    const counts = { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options.max };
    if (this.since === null) {
      if (counts.waiting > 0 && counts.total >= counts.max) {
        this.since = Date.now();
        this.peakWaiting = counts.waiting;
        this.logger.warn(counts, 'database pool saturated: every connection is in use and requests queue for one');
      }
      return;
    }
    this.peakWaiting = Math.max(this.peakWaiting, counts.waiting);
    if (counts.waiting === 0) {
      this.logger.log({ ...counts, ms: Date.now() - this.since, peak_waiting: this.peakWaiting }, 'database pool no longer saturated');
      this.since = null;
    }
  }
}
