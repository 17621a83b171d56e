import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { prepared, runPrepared } from '../../database/prepared.js';
import type { Tx } from '../../database/transaction-runner.js';
import { type EventCause, eventsInsertSql, type EventType } from '../../events/recording/event-recording.js';

export type OperationType = 'MANUAL' | 'AUTOMATIC';

/**
 * The `added`, `canceled` and `updated` events of pending entries, written in the transaction of the change
 * after the entries and their cards were changed: customer, campaign, voucher (the card as it now is),
 * voucher_pending_points_balance (the change and the card's pending total) and pending_points, built by the
 * payload functions of the migration that activation events use too. Several entries of one card in one
 * statement (a batch of paid orders) each show the card's pending total right after their own change: the
 * total now, less the changes of the card's entries after it in the statement. Each entry names its own cause
 * (`$4` group ids, `$5` event sources: the batch's orders came from different requests). PostgreSQL plans this
 * statement on each run (a custom plan); the customer, the member and the order are read by scalar subqueries
 * rather than joins, which halves that planning (0.85 → 0.45 ms; bench/README.md, "Paid orders") for the same payload.
 */
export const RECORD = prepared(
  'pending_events_record',
  eventsInsertSql(`
  SELECT p.project_id, $3::text AS type, p.customer_id AS entity_id, ch.group_id, ch.source::jsonb AS event_source,
         json_build_object(
           'customer', (SELECT loyalty_customer_json(cu) FROM customers cu WHERE cu.id = p.customer_id),
           'campaign', loyalty_campaign_json(ca),
           'voucher', loyalty_voucher_json(v, ca.name, v.points, v.balance, v.pending_points - coalesce(sum(ch.change) OVER later, 0), v.next_expiration_date, v.next_expiration_points,
                                           (SELECT m.status = 'ACTIVE' FROM members m WHERE m.id = v.member_id)),
           'order', (SELECT loyalty_order_json(o) FROM orders o WHERE o.id = p.order_id),
           'voucher_pending_points_balance', json_build_object('points', ch.change, 'total', v.pending_points - coalesce(sum(ch.change) OVER later, 0),
                                                               'balance', v.pending_points - coalesce(sum(ch.change) OVER later, 0), 'object', 'balance',
                                                               'related_object', json_build_object('type', 'voucher', 'id', v.id), 'operation_type', $6::text),
           'pending_points', loyalty_pending_points_json(p)) AS data
  FROM unnest($1::text[], $2::int[], $4::text[], $5::text[]) WITH ORDINALITY AS ch(id, change, group_id, source, n)
  JOIN loyalty_pending_points p ON p.id = ch.id
  JOIN vouchers v ON v.id = p.voucher_id
  JOIN campaigns ca ON ca.id = p.campaign_id
  WINDOW later AS (PARTITION BY p.voucher_id ORDER BY ch.n ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING)
  ORDER BY ch.n`, '$7'),
);

/** A changed entry: its change of points, and what caused it. */
export interface EntryChange {
  id: string;
  change: number;
  cause: EventCause;
}

@Injectable()
export class PendingEventsRepository {
  constructor(private readonly config: AppConfig) {}

  async record(tx: Tx, changes: EntryChange[], type: EventType, operation: OperationType): Promise<void> {
    if (!changes.length) return;
    await runPrepared(tx, RECORD, [
      changes.map((c) => c.id),
      changes.map((c) => c.change),
      type,
      changes.map((c) => c.cause.groupId),
      changes.map((c) => JSON.stringify(c.cause.source)),
      operation,
      this.config.events.payloadMaxBytes,
    ]);
  }
}
