import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { DataCipher } from '../../common/crypto/data-cipher.js';
import { type ClaimRow, contextFrom, PARK, toContext } from './delivery.sql.js';
import { type AttemptContext, withPayload } from './delivery.types.js';
import { type DeliveryStatus, WebhookAttempt, WebhookDelivery } from './webhook-delivery.entity.js';

/** A delivery asked for by hand is due now if its distribution is ACTIVE, else parked (no due time) until it is. */
const DUE_IF_ACTIVE = `(SELECT CASE WHEN dist.status = 'ACTIVE' THEN now() END FROM distributions dist WHERE dist.id = webhook_deliveries.distribution_id)`;

/** A delivery as an attempt would send it, without claiming it (what the API shows as `request_body`). */
const CONTEXT = `WITH one AS (SELECT * FROM webhook_deliveries WHERE id = $1 AND distribution_id = $2 AND project_id = $3)
${contextFrom('one', { payload: true })}`;

/** Distribution stats count at most this many of its newest deliveries. */
export const STATS_WINDOW = 100_000;

/** What TypeORM answers for an UPDATE … RETURNING: the rows and the count. */
type UpdateResult = [{ id: string }[], number];

/** The deliveries as the API reads and changes them (lists, stats, redeliver, test, recover's count, pause). */
@Injectable()
export class DeliveriesRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly cipher: DataCipher,
  ) {}

  /** A distribution paused by hand: its PENDING deliveries wait without a due time (PARK). */
  async park(distributionId: string): Promise<void> {
    await this.dataSource.query(PARK, [distributionId]);
  }

  /** One more attempt now, outside the retry schedule (redeliver); null if no such delivery. */
  async redeliver(projectId: string, distributionId: string, id: string): Promise<WebhookDelivery | null> {
    const rows = (await this.dataSource.query(
      // A delivery still in its retry schedule keeps it (this attempt only comes early); a settled one gets
      // one attempt, whose failure settles it again.
      // Due now while the distribution is ACTIVE; otherwise parked until it is (DistributionsService.update).
      `UPDATE webhook_deliveries SET manual = (status <> 'PENDING' OR manual), status = 'PENDING', next_attempt_at = ${DUE_IF_ACTIVE}
       WHERE id = $1 AND distribution_id = $2 AND project_id = $3 RETURNING id`,
      [id, distributionId, projectId],
    )) as UpdateResult;
    return rows[0].length ? this.findOne(projectId, distributionId, id) : null;
  }

  async findOne(projectId: string, distributionId: string, id: string): Promise<WebhookDelivery | null> {
    return this.dataSource.getRepository(WebhookDelivery).findOneBy({ projectId, distributionId, id });
  }

  /** What an attempt of this delivery sends, read without claiming it; null if no such delivery. */
  async context(projectId: string, distributionId: string, id: string): Promise<AttemptContext | null> {
    const [row] = (await this.dataSource.query(CONTEXT, [id, distributionId, projectId])) as ClaimRow[];
    return row ? withPayload(toContext(row, this.cipher), row.data ?? '{}') : null;
  }

  /**
   * A test delivery of a sample event, due now (parked while the distribution is not ACTIVE). Manual: one
   * attempt, whose failure leaves the delivery FAILED and the distribution as it was.
   */
  async insertTest(projectId: string, distributionId: string, trigger: string): Promise<WebhookDelivery> {
    const rows = (await this.dataSource.query(
      `INSERT INTO webhook_deliveries (id, project_id, distribution_id, event_id, event_type, next_attempt_at, manual, test)
       SELECT id, $1, $2, 'evtest_' || substr(id, 5), $3, ${DUE_IF_ACTIVE.replaceAll('webhook_deliveries.distribution_id', '$2')}, true, true
       FROM (SELECT 'whs_' || left(replace(gen_random_uuid()::text, '-', ''), 18) AS id) n
       RETURNING id`,
      [projectId, distributionId, trigger],
    )) as { id: string }[];
    return (await this.findOne(projectId, distributionId, rows[0].id))!;
  }

  /** The distribution's latest delivery with its latest attempt, and its deliveries of the last 24 hours by status. */
  async stats(distributionId: string): Promise<{ last: { id: string; status: DeliveryStatus; at: Date | null; status_code: number | null } | null; counts: Record<DeliveryStatus, number> }> {
    const [last] = (await this.dataSource.query(
      `SELECT d.id, d.status, a.at, a.status_code FROM webhook_deliveries d
       LEFT JOIN LATERAL (SELECT at, status_code FROM webhook_attempts WHERE delivery_id = d.id ORDER BY id DESC LIMIT 1) a ON true
       WHERE d.distribution_id = $1 ORDER BY d.seq DESC LIMIT 1`,
      [distributionId],
    )) as { id: string; status: DeliveryStatus; at: Date | null; status_code: number | null }[];
    // Among the newest STATS_WINDOW deliveries (the (distribution, seq) index read backwards, so that a
    // distribution with years of history costs no more), those created in the last 24 hours.
    const rows = (await this.dataSource.query(
      `SELECT status, count(*)::int AS n FROM (
         SELECT status, created_at FROM webhook_deliveries WHERE distribution_id = $1 ORDER BY seq DESC LIMIT $2
       ) newest WHERE created_at > now() - interval '24 hours' GROUP BY status`,
      [distributionId, STATS_WINDOW],
    )) as { status: DeliveryStatus; n: number }[];
    const counts = { PENDING: 0, SUCCEEDED: 0, FAILED: 0 };
    for (const row of rows) counts[row.status] = row.n;
    return { last: last ?? null, counts };
  }

  /** Newest first after the keyset position `beforeSeq`. */
  async list(projectId: string, distributionId: string, status: DeliveryStatus | undefined, beforeSeq: string | null, limit: number): Promise<WebhookDelivery[]> {
    const query = this.dataSource
      .getRepository(WebhookDelivery)
      .createQueryBuilder('d')
      .where('d.distribution_id = :distributionId AND d.project_id = :projectId', { distributionId, projectId })
      .orderBy('d.seq', 'DESC')
      .limit(limit);
    if (status !== undefined) query.andWhere('d.status = :status', { status });
    if (beforeSeq !== null) query.andWhere('d.seq < :beforeSeq', { beforeSeq });
    return query.getMany();
  }

  /** The attempts of these deliveries, oldest first. */
  async attemptsOf(deliveryIds: string[]): Promise<WebhookAttempt[]> {
    if (!deliveryIds.length) return [];
    return this.dataSource
      .getRepository(WebhookAttempt)
      .createQueryBuilder('a')
      .where('a.delivery_id = ANY(:deliveryIds)', { deliveryIds })
      .orderBy('a.delivery_id')
      .addOrderBy('a.id')
      .getMany();
  }

  /**
   * How many FAILED deliveries created since `since` a recover will send again, counted up to `window`
   * (the recover's answer): a bounded read of the FAILED rows' (distribution, created_at, id) index, which
   * holds no older delivery in the way.
   */
  async countFailedSince(distributionId: string, since: Date, window: number): Promise<number> {
    const [row] = (await this.dataSource.query(
      `SELECT count(*)::int AS n
       FROM (SELECT 1 FROM webhook_deliveries WHERE distribution_id = $1 AND status = 'FAILED' AND created_at >= $2 ORDER BY created_at DESC, id DESC LIMIT $3) recent`,
      [distributionId, since, window],
    )) as { n: number }[];
    return row.n;
  }
}
