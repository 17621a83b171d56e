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
 * payload functions of the migration that activation events use too. PostgreSQL plans this statement on each
 * run (a custom plan); the customer, the member and the order are read by scalar subqueries rather than joins,
 * which halves that planning (0.85 → 0.45 ms; bench/README.md, "Paid orders") for the same payload.
 */
export const RECORD = prepared(
  'pending_events_record',
  eventsInsertSql(`
  SELECT p.project_id, $3::text AS type, p.customer_id AS entity_id, $4::text AS group_id, $5::jsonb AS event_source,
         json_build_object(
           'customer', (SELECT loyalty_customer_json(cu) FROM customers cu WHERE cu.id = p.customer_id),
           'campaign', loyalty_campaign_json(ca),
           'voucher', loyalty_voucher_json(v, ca.name, v.points, v.balance, v.pending_points, v.next_expiration_date, v.next_expiration_points, (SELECT m.status = 'ACTIVE' FROM members m WHERE m.id = v.member_id)),
           'order', (SELECT loyalty_order_json(o) FROM orders o WHERE o.id = p.order_id),
           'voucher_pending_points_balance', json_build_object('points', ch.change, 'total', v.pending_points, 'balance', v.pending_points, 'object', 'balance',
                                                               'related_object', json_build_object('type', 'voucher', 'id', v.id), 'operation_type', $6::text),
           'pending_points', loyalty_pending_points_json(p)) AS data
  FROM unnest($1::text[], $2::int[]) WITH ORDINALITY AS ch(id, change, n)
  JOIN loyalty_pending_points p ON p.id = ch.id
  JOIN vouchers v ON v.id = p.voucher_id
  JOIN campaigns ca ON ca.id = p.campaign_id
  ORDER BY ch.n`, '$7'),
);

@Injectable()
export class PendingEventsRepository {
  constructor(private readonly config: AppConfig) {}

  async record(tx: Tx, changes: { id: string; change: number }[], type: EventType, operation: OperationType, cause: EventCause): Promise<void> {
    if (!changes.length) return;
    await runPrepared(tx, RECORD, [changes.map((c) => c.id), changes.map((c) => c.change), type, cause.groupId, JSON.stringify(cause.source), operation, this.config.events.payloadMaxBytes]);
  }
}
