import { Injectable } from '@nestjs/common';
import type { LockedCards } from '../cards/card.repository.js';
import { AppConfig } from '../config/app-config.js';
import { prepared, runPrepared } from '../database/prepared.js';
import { EVENTS, type EventCause, eventsInsertSql, type EventType } from '../events/recording/event-recording.js';
import type { StoredAssignment } from '../rewards/reward-assignment.repository.js';
import type { LoyaltyRedemptionDto, RedemptionRollbackDto } from './dto/redemption.dto.js';
import type { Redemption } from './redemption.entity.js';

/**
 * The events of redemptions and rollbacks, in their transaction after the cards changed (`$1`: one `{card_id,
 * balance, type, data, group_id, source}` per event, in their order): customer (and holder), campaign and voucher
 * built by the payload functions the other card events use, merged with each event's own part built here. The
 * voucher shows its card as the change left it: `balance` when given (a batch's redemption of a card that later
 * redemptions of the same batch drain further: the balance right after its own), else the card's column. A card
 * without a holder has no customer to tell: no event.
 */
export const RECORD = prepared(
  'redemption_events_record',
  eventsInsertSql(`
  SELECT v.project_id, e.type, v.holder_id AS entity_id, e.group_id, e.source AS event_source,
         (jsonb_build_object(
           'customer', loyalty_customer_json(cu),
           'holder', loyalty_customer_json(cu),
           'campaign', loyalty_campaign_json(ca),
           'voucher', loyalty_voucher_json(v, ca.name, v.points, coalesce(e.balance, v.balance), v.pending_points, v.next_expiration_date, v.next_expiration_points, (SELECT m.status = 'ACTIVE' FROM members m WHERE m.id = v.member_id)))
          || e.data)::json AS data
  FROM ROWS FROM (jsonb_to_recordset($1::jsonb) AS (card_id text, balance bigint, type text, data jsonb, group_id text, source jsonb)) WITH ORDINALITY AS e(card_id, balance, type, data, group_id, source, n)
  JOIN vouchers v ON v.id = e.card_id
  JOIN customers cu ON cu.id = v.holder_id
  JOIN campaigns ca ON ca.id = v.campaign_id
  ORDER BY e.n`, '$2'),
);

/** One event of a redemption or rollback, as RECORD takes it. */
interface CardEvent {
  card_id: string;
  balance: number | null;
  type: EventType;
  data: Record<string, unknown>;
  group_id: string;
  source: EventCause['source'];
}

/** A redemption of a batch whose events are recorded: its row and answer, its offer, its request's cause, and its card's balance right after it. */
export interface RedeemedItem {
  row: Redemption;
  answer: LoyaltyRedemptionDto;
  assignment: StoredAssignment;
  cause: EventCause;
  balance: number | null;
}

const REWARD_REDEMPTIONS = EVENTS.CUSTOMER.REWARD_REDEMPTIONS;

/** Voucherify's `RewardRedemption`: the reward's side of a redemption, in a state. */
function rewardRedemption(row: Redemption, state: 'CREATED' | 'PENDING' | 'COMPLETED' | 'ROLLEDBACK', at: string): Record<string, unknown> {
  return {
    id: `rewr_${row.id.replace(/^r_/, '')}`,
    state,
    created_at: row.createdAt.toISOString(),
    updated_at: at,
    voucher_id: row.voucherId,
    campaign_id: row.campaignId,
    customer_id: row.customerId,
    reward_assignment_id: row.assignmentId,
    source_id: row.id,
    source_type: 'redemption',
  };
}

/**
 * Voucherify's `SimpleRedemption` of the redemption (and rollback) events, as its webhook document has it: no
 * card (the event's `voucher`), `metadata` an object, a rolled-back redemption's status `ROLLED BACK` (the
 * webhook document's spelling), fields without a value left out.
 */
/** The order as the events carry it (Voucherify's SimpleOrder): fields without a value left out. */
function eventOrder(order: Record<string, unknown> | null): Record<string, unknown> | null {
  return order ? Object.fromEntries(Object.entries(order).filter(([, value]) => value !== null)) : null;
}

function simpleRedemption(answer: LoyaltyRedemptionDto | RedemptionRollbackDto): Record<string, unknown> {
  return {
    id: answer.id,
    customer_id: answer.customer_id,
    ...(answer.tracking_id !== null ? { tracking_id: answer.tracking_id } : {}),
    date: answer.date,
    amount: answer.amount,
    ...(answer.order ? { order: eventOrder(answer.order) } : {}),
    reward: answer.reward,
    ...(answer.customer ? { customer: answer.customer } : {}),
    result: answer.result,
    status: answer.status === 'ROLLED_BACK' ? 'ROLLED BACK' : answer.status,
    ...('redemption' in answer ? { redemption: answer.redemption } : {}),
    metadata: answer.metadata ?? {},
    ...('reason' in answer && answer.reason !== null ? { reason: answer.reason } : {}),
    channel: answer.channel,
    object: answer.object,
  };
}

@Injectable()
export class RedemptionEventsRepository {
  constructor(private readonly config: AppConfig) {}

  /**
   * Each redemption's events: `customer.reward_redemptions.created`, then `.completed` (COIN and CAMPAIGN rewards:
   * nothing is left to do) or `.pending` (MATERIAL: the merchant hands it over), and `redemption.succeeded`; all of
   * them in one statement.
   */
  async redeemed(locked: LockedCards, items: RedeemedItem[]): Promise<void> {
    await this.record(
      locked,
      items.flatMap(({ row, answer, assignment, cause, balance }) => {
        const at = row.createdAt.toISOString();
        const reward = answer.reward;
        const shared = { reward, reward_assignment: assignmentJson(assignment), source: { id: row.id, type: 'redemption' }, balance: null };
        const next = reward.type === 'MATERIAL' ? 'PENDING' : 'COMPLETED';
        const event = (type: EventType, data: Record<string, unknown>): CardEvent => ({ card_id: row.voucherId, balance, type, data, group_id: cause.groupId, source: cause.source });
        return [
          event(REWARD_REDEMPTIONS.CREATED, { ...shared, reward_redemption: rewardRedemption(row, 'CREATED', at) }),
          event(REWARD_REDEMPTIONS[next], { ...shared, reward_redemption: rewardRedemption(row, next, at) }),
          event(EVENTS.REDEMPTION.SUCCEEDED, { order: eventOrder(answer.order), redemption: simpleRedemption(answer), created_at: at }),
        ];
      }),
    );
  }

  /** A rollback's events: `customer.reward_redemptions.rolledback` (the event log only, as Voucherify) and `redemption.rollback.succeeded`. */
  async rolledBack(locked: LockedCards, redemption: Redemption, rollback: Redemption, answer: RedemptionRollbackDto, redemptionAnswer: LoyaltyRedemptionDto, assignment: StoredAssignment | null, cause: EventCause): Promise<void> {
    const at = rollback.createdAt.toISOString();
    const event = (type: EventType, data: Record<string, unknown>): CardEvent => ({ card_id: rollback.voucherId, balance: null, type, data, group_id: cause.groupId, source: cause.source });
    await this.record(locked, [
      event(REWARD_REDEMPTIONS.ROLLEDBACK, {
        reward: answer.reward,
        reward_assignment: assignment ? assignmentJson(assignment) : null,
        source: { id: redemption.id, type: 'redemption' },
        balance: null,
        reward_redemption: rewardRedemption(redemption, 'ROLLEDBACK', at),
      }),
      event(EVENTS.REDEMPTION.ROLLBACK.SUCCEEDED, { order: eventOrder(answer.order), redemption: simpleRedemption(redemptionAnswer), redemption_rollback: simpleRedemption(answer) }),
    ]);
  }

  private async record(locked: LockedCards, events: CardEvent[]): Promise<void> {
    locked.require(events.map((e) => e.card_id));
    await runPrepared(locked.tx, RECORD, [JSON.stringify(events), this.config.events.payloadMaxBytes]);
  }
}

/** Voucherify's `RewardAssignment`, as the reward-redemption events carry it. */
function assignmentJson(assignment: StoredAssignment): Record<string, unknown> {
  return {
    id: assignment.id,
    reward_id: assignment.rewardId,
    related_object_id: assignment.campaignId,
    related_object_type: 'campaign',
    ...(assignment.points !== null ? { parameters: { loyalty: { points: assignment.points } } } : {}),
    created_at: assignment.createdAt.toISOString(),
    updated_at: assignment.updatedAt?.toISOString() ?? null,
    object: 'reward_assignment',
  };
}

