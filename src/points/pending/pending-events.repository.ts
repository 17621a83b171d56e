import { Injectable } from '@nestjs/common';
import { prepared, runPrepared } from '../../database/prepared.js';
import type { Tx } from '../../database/transaction-runner.js';
import type { EventCause } from '../../events/events.service.js';
import { eventsInsertSql } from '../../events/event.repository.js';
import type { EventType } from '../../events/event-types.js';

export type OperationType = 'MANUAL' | 'AUTOMATIC';

/**
 * The `added`, `canceled` and `updated` events of pending entries, written in the transaction of the change
 * after the entries and their cards were changed: customer, campaign, voucher (the card as it now is),
 * voucher_pending_points_balance (the change and the card's pending total) and pending_points, built by the
 * payload functions of the migration that activation events use too.
 */
const RECORD = prepared(
  'pending_events_record',
  eventsInsertSql(`
  SELECT p.project_id, $3::text AS type, p.customer_id AS entity_id, $4::text AS group_id, $5::jsonb AS event_source,
         json_build_object(
           'customer', loyalty_customer_json(cu),
           'campaign', loyalty_campaign_json(ca),
           'voucher', loyalty_voucher_json(v, ca.name, v.points, v.balance, v.pending_points, m.status = 'ACTIVE'),
           'order', loyalty_order_json(o),
           'voucher_pending_points_balance', json_build_object('points', ch.change, 'total', v.pending_points, 'object', 'balance',
                                                               'related_object', json_build_object('type', 'voucher', 'id', v.id), 'operation_type', $6::text),
           'pending_points', loyalty_pending_points_json(p)) AS data
  FROM unnest($1::text[], $2::int[]) WITH ORDINALITY AS ch(id, change, n)
  JOIN loyalty_pending_points p ON p.id = ch.id
  JOIN vouchers v ON v.id = p.voucher_id
  LEFT JOIN members m ON m.id = v.member_id
  JOIN customers cu ON cu.id = p.customer_id
  JOIN campaigns ca ON ca.id = p.campaign_id
  LEFT JOIN orders o ON o.id = p.order_id
  ORDER BY ch.n`),
);

@Injectable()
export class PendingEventsRepository {
  async record(tx: Tx, changes: { id: string; change: number }[], type: EventType, operation: OperationType, cause: EventCause): Promise<void> {
    if (!changes.length) return;
    await runPrepared(tx, RECORD, [changes.map((c) => c.id), changes.map((c) => c.change), type, cause.groupId, JSON.stringify(cause.source), operation]);
  }
}
