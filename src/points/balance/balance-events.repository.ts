import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { prepared, runPrepared } from '../../database/prepared.js';
import type { LockedCards } from '../../cards/card.repository.js';
import { type EventCause, eventsInsertSql, type EventType } from '../../events/recording/event-recording.js';

/**
 * The event of a balance change made by hand (`points_added`, `points_removed`), in its transaction after the
 * card changed: customer, campaign and voucher built by the payload functions the other card events use,
 * the balance and the ledger row as the caller made them. A card without a holder has no customer to tell.
 */
export const RECORD = prepared(
  'balance_events_record',
  eventsInsertSql(`
  SELECT v.project_id, $2::text AS type, v.holder_id AS entity_id, $3::text AS group_id, $4::jsonb AS event_source,
         json_build_object(
           'customer', loyalty_customer_json(cu),
           'campaign', loyalty_campaign_json(ca),
           'voucher', loyalty_voucher_json(v, ca.name, v.points, v.balance, v.pending_points, v.next_expiration_date, v.next_expiration_points, (SELECT m.status = 'ACTIVE' FROM members m WHERE m.id = v.member_id)),
           'balance', $5::json,
           'transaction', $6::json) AS data
  FROM vouchers v
  JOIN customers cu ON cu.id = v.holder_id
  JOIN campaigns ca ON ca.id = v.campaign_id
  WHERE v.id = $1`, '$7'),
);

@Injectable()
export class BalanceEventsRepository {
  constructor(private readonly config: AppConfig) {}

  async record(locked: LockedCards, cardId: string, type: EventType, data: { balance: object; transaction: object }, cause: EventCause): Promise<void> {
    locked.require([cardId]);
    await runPrepared(locked.tx, RECORD, [cardId, type, cause.groupId, JSON.stringify(cause.source), JSON.stringify(data.balance), JSON.stringify(data.transaction), this.config.events.payloadMaxBytes]);
  }
}
