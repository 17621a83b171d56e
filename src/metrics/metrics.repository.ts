import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

/**
 * The counts /metrics reads from PostgreSQL at each scrape (every 15-60 s, from every Prometheus that scrapes
 * each API replica). They are across projects (an operator's view), one statement each, and each reads an
 * index range whose size is what it counts, or less: never a scan of a table that grows with the service's
 * history. The indexes are the ones the entities declare (pending-points.entity.ts, card.entity.ts, webhook-delivery.entity.ts).
 */
@Injectable()
export class MetricsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * PENDING entries whose `activates_at` has passed and that nobody has activated yet (nor set aside with an
   * `activation_error`): the range of the partial index `idx_pending_points_due` (ordered by activates_at) up to now. It holds only
   * PENDING rows, so settled entries cost nothing, and when the worker keeps up the range is (nearly) empty.
   */
  async duePendingPoints(): Promise<number> {
    const [row] = (await this.dataSource.query(`SELECT count(*) AS n FROM loyalty_pending_points WHERE status = 'PENDING' AND activation_error IS NULL AND activates_at <= now()`)) as { n: string }[];
    return Number(row.n);
  }

  /**
   * Cards whose point expiry the worker set aside (`expiry_error`): the partial index `idx_vouchers_expiry_set_aside`
   * holds exactly those (none, when all is well).
   */
  async expirySetAsideCards(): Promise<number> {
    const [row] = (await this.dataSource.query(`SELECT count(*) AS n FROM vouchers WHERE expiry_error IS NOT NULL`)) as { n: string }[];
    return Number(row.n);
  }

  /**
   * Deliveries PENDING and FAILED, exactly; SUCCEEDED deliveries are not counted. SUCCEEDED is nearly every
   * row of the table (one per event and distribution, kept forever), and no index leads with `status`, so its
   * count would read the whole table or the whole (distribution, status, seq) index at every scrape; the rate
   * of successes is `loyalty_webhook_delivery_attempts_total{outcome="success"}` of the workers instead.
   * - PENDING: the partial index `idx_webhook_deliveries_project_due` holds PENDING rows only (the backlog).
   * - FAILED: `idx_webhook_deliveries_distribution_status_seq` read once per distribution, at its FAILED range
   *   (a nested loop over `distributions`, a small table): the cost is the number of FAILED rows plus one probe
   *   per distribution.
   */
  async deliveriesByStatus(): Promise<{ PENDING: number; FAILED: number }> {
    const [row] = (await this.dataSource.query(
      `SELECT (SELECT count(*) FROM webhook_deliveries WHERE status = 'PENDING') AS pending,
              (SELECT coalesce(sum(f.n), 0) FROM distributions d
                 CROSS JOIN LATERAL (SELECT count(*) AS n FROM webhook_deliveries w WHERE w.distribution_id = d.id AND w.status = 'FAILED') f) AS failed`,
    )) as { pending: string; failed: string }[];
    // count(*) is a bigint, which node-postgres hands over as a string.
    return { PENDING: Number(row.pending), FAILED: Number(row.failed) };
  }
}
