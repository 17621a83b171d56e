/**
 * The event catalogue: every event type this service records, with what each part of the service needs
 * to know about it. The API's enums, the test deliveries' samples and the dashboard's lists all derive from
 * it, and the compiler refuses a type without its entry, so a new event type is one entry here (and the
 * code that records it).
 *
 * No imports: the dashboard (its own build, its own tsconfig) compiles this file too.
 */

/**
 * The event types, under the names Voucherify's distributions use. Spec §6 names the activation event by
 * this constant path: `EVENTS.CUSTOMER.VOUCHER.LOYALTY_CARD.PENDING_POINTS.ACTIVATED`.
 */
export const EVENTS = {
  CUSTOMER: {
    VOUCHER: {
      LOYALTY_CARD: {
        PENDING_POINTS: {
          ADDED: 'customer.voucher.loyalty_card.pending_points.added',
          ACTIVATED: 'customer.voucher.loyalty_card.pending_points.activated',
          CANCELED: 'customer.voucher.loyalty_card.pending_points.canceled',
          UPDATED: 'customer.voucher.loyalty_card.pending_points.updated',
        },
        POINTS_ADDED: 'customer.voucher.loyalty_card.points_added',
        /** Ours: Voucherify has no event for points removed by hand; the same data as points_added. */
        POINTS_REMOVED: 'customer.voucher.loyalty_card.points_removed',
        POINTS_EXPIRED: 'customer.voucher.loyalty_card.points_expired',
      },
    },
    /** A reward redeemed with a loyalty card (issue 38): created, then completed (COIN, CAMPAIGN) or pending (MATERIAL); rolled back. */
    REWARD_REDEMPTIONS: {
      CREATED: 'customer.reward_redemptions.created',
      PENDING: 'customer.reward_redemptions.pending',
      COMPLETED: 'customer.reward_redemptions.completed',
      /** Voucherify's customer activity with no webhook: the event log only (`logOnly`). */
      ROLLEDBACK: 'customer.reward_redemptions.rolledback',
    },
  },
  REDEMPTION: {
    SUCCEEDED: 'redemption.succeeded',
    ROLLBACK: { SUCCEEDED: 'redemption.rollback.succeeded' },
  },
} as const;

type Leaves<T> = T extends string ? T : { [K in keyof T]: Leaves<T[K]> }[keyof T];
export type EventType = Leaves<typeof EVENTS>;

/** The made-up ids and time a test delivery's sample is built from (see test-event.ts). */
export interface SampleIds {
  suffix: string;
  customerId: string;
  voucherId: string;
  /** ISO 8601, the delivery's creation time. */
  at: string;
}

export interface EventEntry {
  /** The dashboard's name for the type (the distribution form's trigger list). */
  label: string;
  /**
   * What usually causes an event of the type, so a test delivery's `event_source` has a real one's shape: API
   * (a request with a key: the sample names a made-up key, `name` and `app_id`) or INTERNAL (the worker).
   */
  channel: 'API' | 'INTERNAL';
  /**
   * The `$id` of the JSON Schema of the type's `data`, in src/events/schemas/ (event-schemas.ts loads them):
   * Voucherify's fragment where Voucherify has the event, ours where it has not. Every sample, and every event
   * the e2e runs record, is checked against it (docs/architecture.md, "Event types").
   */
  schema: string;
  /** The `data` of a test delivery's event, less its leading `test: true`: a valid instance of `schema`. */
  sample: (ids: SampleIds) => Record<string, unknown>;
  /** The event log only: no distribution can name it as its trigger (Voucherify has no webhook for it). */
  logOnly?: true;
}

/** The made-up key a test event of an API type names (never the key that asked for the test). */
export function sampleKey(suffix: string): { name: string; app_id: string } {
  return { name: 'Test key', app_id: `app_test_${suffix}` };
}

/**
 * The samples have the shapes a real event's pieces have (the payload functions of src/database/functions/
 * build those): fields without a value are left out, ids are made up and marked `test`. Every card holds
 * `initial` points before the change the sample shows; all of its balance expires a year on.
 */
const initial = 150;

function sampleParts({ suffix, customerId, voucherId, at }: SampleIds) {
  const campaignId = `camp_test_${suffix}`;
  const yearOn = new Date(Date.parse(at) + 365 * 86_400_000).toISOString().slice(0, 10);
  return {
    campaignId,
    customer: { id: customerId, source_id: 'test-customer', name: 'Test Customer', metadata: {}, object: 'customer' },
    campaign: { id: campaignId, name: 'Test Campaign', campaign_type: 'LOYALTY_PROGRAM', type: 'AUTO_UPDATE', auto_join: false, join_once: true, active: true, created_at: at, metadata: {}, object: 'campaign' },
    /** The card right after the change. */
    card: (points: number, balance: number, pending: number) => ({
      id: voucherId,
      code: 'TEST-CARD',
      type: 'LOYALTY_CARD',
      campaign: 'Test Campaign',
      campaign_id: campaignId,
      holder_id: customerId,
      loyalty_card: { points, balance, next_expiration_date: yearOn, next_expiration_points: balance, pending_points: pending },
      is_referral_code: false,
      active: true,
      metadata: {},
      created_at: at,
      updated_at: at,
      object: 'voucher',
    }),
    balance: (points: number, total: number, balance: number) => ({ type: 'loyalty_card', total, object: 'balance', points, balance, related_object: { id: voucherId, type: 'voucher' } }),
    /** A ledger row as the API and the events show it. */
    transaction: (type: string, details: Record<string, unknown>, reason: string | null = null) => ({
      id: `vtx_test_${suffix}`,
      source_id: null,
      voucher_id: voucherId,
      campaign_id: campaignId,
      source: null,
      reason,
      type,
      details,
      related_transaction_id: null,
      created_at: at,
    }),
  };
}

/**
 * A pending-points event's sample: the entry of `points` after the change, its status, the change to the card's
 * pending points, and who made it (AUTOMATIC: the service; MANUAL: a request on the entry).
 */
function pendingPointsSample(status: 'ADDED' | 'UPDATED' | 'ACTIVATED' | 'CANCELED', points: number, change: number, operation: 'AUTOMATIC' | 'MANUAL'): EventEntry['sample'] {
  return (ids) => {
    const { suffix, customerId, voucherId, at } = ids;
    const { campaignId, customer, campaign, card, balance, transaction } = sampleParts(ids);
    const orderId = `ord_test_${suffix}`;
    const earningRule = { id: `ern_test_${suffix}`, source: { banner: 'A point per euro' } };
    const order = { id: orderId, source_id: 'test-order', status: 'PAID', customer_id: customerId, amount: 10_000, total_amount: 10_000, created_at: at, items: [{ product_id: 'test-product', quantity: 1, price: 10_000, amount: 10_000, object: 'order_item' }], metadata: {}, object: 'order' };
    const paid = {
      event: { id: `evcus_test_${suffix}`, type: 'customer.order.paid', category: 'ACTION', group_id: `v-test-${suffix}`, entity_id: customerId, created_at: at, event_source: { channel: 'API', api_key: sampleKey(suffix) } },
      order: { id: orderId, source_id: 'test-order' },
      earning_rule: earningRule,
    };
    const entry = {
      id: `lopp_test_${suffix}`,
      voucher_id: voucherId,
      campaign_id: campaignId,
      customer_id: customerId,
      order_id: orderId,
      points,
      activates_at: at.slice(0, 10),
      activates_at_time: at,
      status: status === 'ADDED' || status === 'UPDATED' ? 'PENDING' : status,
      details: paid,
      created_at: at,
      // Left out until the entry changes: an added one has not.
      ...(status === 'ADDED' ? {} : { updated_at: at }),
    };
    if (status === 'ACTIVATED') {
      const after = balance(points, initial + points, initial + points);
      return {
        customer,
        campaign,
        voucher: card(initial + points, initial + points, 0),
        balance: { ...after, operation_type: operation },
        order,
        transaction: transaction('PENDING_POINTS_ACTIVATION', { balance: after, order: paid.order, event: { id: paid.event.id, type: paid.event.type }, earning_rule: earningRule, pending_points: entry }),
        pending_points: entry,
      };
    }
    const pending = status === 'CANCELED' ? 0 : points;
    return {
      customer,
      campaign,
      voucher: card(initial, initial, pending),
      order,
      voucher_pending_points_balance: { points: change, total: pending, balance: pending, object: 'balance', related_object: { type: 'voucher', id: voucherId }, operation_type: operation },
      pending_points: entry,
    };
  };
}

/** A points_added or points_removed event's sample: the change by hand, the card after it, and its ledger row. */
function balanceSample(points: number): EventEntry['sample'] {
  return (ids) => {
    const { customer, campaign, card, balance, transaction } = sampleParts(ids);
    const after = balance(points, initial + Math.max(points, 0), initial + points);
    return {
      customer,
      campaign,
      voucher: card(after.total, after.balance, 0),
      balance: { ...after, operation_type: 'MANUAL' },
      transaction: transaction(points > 0 ? 'POINTS_ADDITION' : 'POINTS_REMOVAL', { balance: after, reason: 'test' }, 'test'),
    };
  };
}

/** A points_expired event's sample: the points that left, the buckets they were in, the ledger row. */
function expiredSample(ids: SampleIds): Record<string, unknown> {
  const { suffix, voucherId, at } = ids;
  const { campaignId, customer, campaign, card, balance, transaction } = sampleParts(ids);
  const day = at.slice(0, 10);
  const points = 50;
  return {
    customer,
    campaign,
    voucher: card(initial, initial - points, 0),
    points,
    buckets: [
      { id: `lopb_test_${suffix}`, voucher_id: voucherId, campaign_id: campaignId, bucket: { total_points: points }, status: 'EXPIRED', expires_at: day, created_at: at, updated_at: at, object: 'loyalty_points_bucket' },
    ],
    transaction: transaction('POINTS_EXPIRATION', { balance: balance(-points, initial, initial - points), buckets: [{ id: `lopb_test_${suffix}`, points, expires_at: day }] }),
  };
}

/** A reward redemption's pieces: a MATERIAL reward of 100 points redeemed with the card, `r_test_…`. */
function redemptionParts(ids: SampleIds) {
  const { suffix, customerId, voucherId, at } = ids;
  const { campaignId, customer, campaign, card } = sampleParts(ids);
  const redemptionId = `r_test_${suffix}`;
  const assignmentId = `rewa_test_${suffix}`;
  const reward = {
    id: `rew_test_${suffix}`,
    name: 'Test mug',
    type: 'MATERIAL',
    parameters: { product: { id: 'test-product', sku_id: null } },
    stock: 10,
    redeemed: 1,
    attributes: {},
    created_at: at,
    updated_at: null,
    metadata: {},
    object: 'reward',
    assignment_id: assignmentId,
    product: { id: 'test-product', object: 'product' },
  };
  const voucher = card(initial, initial - 100, 0);
  // The webhook document's SimpleRedemption: no card, metadata an object, fields without a value left out.
  const redemption = {
    id: redemptionId,
    customer_id: customerId,
    tracking_id: 'test-customer',
    date: at,
    amount: 100,
    reward,
    customer,
    result: 'SUCCESS',
    status: 'SUCCEEDED',
    metadata: {},
    channel: { channel_id: sampleKey(suffix).app_id, channel_type: 'API' },
    object: 'redemption',
  };
  const rewardRedemption = (state: string) => ({
    id: `rewr_test_${suffix}`,
    state,
    created_at: at,
    updated_at: at,
    voucher_id: voucherId,
    campaign_id: campaignId,
    customer_id: customerId,
    reward_assignment_id: assignmentId,
    source_id: redemptionId,
    source_type: 'redemption',
  });
  const assignment = { id: assignmentId, reward_id: reward.id, related_object_id: campaignId, related_object_type: 'campaign', parameters: { loyalty: { points: 100 } }, created_at: at, updated_at: null, object: 'reward_assignment' };
  return { customer, campaign, voucher, reward, redemption, rewardRedemption, assignment, at, suffix, customerId, voucherId };
}

function rewardRedemptionSample(state: 'CREATED' | 'PENDING' | 'COMPLETED' | 'ROLLEDBACK'): EventEntry['sample'] {
  return (ids) => {
    const p = redemptionParts(ids);
    return {
      customer: p.customer,
      holder: p.customer,
      campaign: p.campaign,
      voucher: state === 'ROLLEDBACK' ? { ...p.voucher, loyalty_card: { ...p.voucher.loyalty_card, balance: initial } } : p.voucher,
      reward: p.reward,
      reward_assignment: p.assignment,
      source: { id: p.redemption.id, type: 'redemption' },
      balance: null,
      reward_redemption: p.rewardRedemption(state),
    };
  };
}

function redemptionSample(ids: SampleIds): Record<string, unknown> {
  const p = redemptionParts(ids);
  return { customer: p.customer, holder: p.customer, campaign: p.campaign, voucher: p.voucher, order: null, redemption: p.redemption, created_at: p.at };
}

function rollbackSample(ids: SampleIds): Record<string, unknown> {
  const p = redemptionParts(ids);
  const rollback = { ...p.redemption, id: `rr_test_${p.suffix}`, amount: -100, redemption: p.redemption.id, reason: 'test', object: 'redemption_rollback' };
  return {
    customer: p.customer,
    holder: p.customer,
    campaign: p.campaign,
    voucher: { ...p.voucher, loyalty_card: { ...p.voucher.loyalty_card, balance: initial } },
    order: null,
    redemption: { ...p.redemption, status: 'ROLLED BACK' },
    redemption_rollback: rollback,
  };
}

const PENDING = EVENTS.CUSTOMER.VOUCHER.LOYALTY_CARD.PENDING_POINTS;
const CARD = EVENTS.CUSTOMER.VOUCHER.LOYALTY_CARD;
const REWARD_REDEMPTIONS = EVENTS.CUSTOMER.REWARD_REDEMPTIONS;

/** In the order the API's enums list the types. */
export const EVENT_CATALOGUE = {
  [PENDING.ADDED]: { label: 'Pending points added', channel: 'API', schema: 'EventCustomerLoyaltyCardPendingPointsAdded', sample: pendingPointsSample('ADDED', 100, 100, 'AUTOMATIC') },
  [PENDING.ACTIVATED]: { label: 'Pending points activated', channel: 'INTERNAL', schema: 'EventCustomerLoyaltyCardPendingPointsActivated', sample: pendingPointsSample('ACTIVATED', 100, -100, 'AUTOMATIC') },
  [PENDING.CANCELED]: { label: 'Pending points canceled', channel: 'API', schema: 'EventCustomerLoyaltyCardPendingPointsCanceled', sample: pendingPointsSample('CANCELED', 100, -100, 'MANUAL') },
  [PENDING.UPDATED]: { label: 'Pending points updated', channel: 'API', schema: 'EventCustomerLoyaltyCardPendingPointsUpdated', sample: pendingPointsSample('UPDATED', 120, 20, 'MANUAL') },
  [CARD.POINTS_ADDED]: { label: 'Points added', channel: 'API', schema: 'EventCustomerLoyaltyCardPointsAdded', sample: balanceSample(50) },
  [CARD.POINTS_REMOVED]: { label: 'Points removed', channel: 'API', schema: 'EventCustomerLoyaltyCardPointsRemoved', sample: balanceSample(-50) },
  [CARD.POINTS_EXPIRED]: { label: 'Points expired', channel: 'INTERNAL', schema: 'EventCustomerVouchersLoyaltyPointsExpired', sample: expiredSample },
  [REWARD_REDEMPTIONS.CREATED]: { label: 'Reward redemption created', channel: 'API', schema: 'EventCustomerRewardRedemptionsCreated', sample: rewardRedemptionSample('CREATED') },
  [REWARD_REDEMPTIONS.PENDING]: { label: 'Reward redemption pending', channel: 'API', schema: 'EventCustomerRewardRedemptionsPending', sample: rewardRedemptionSample('PENDING') },
  [REWARD_REDEMPTIONS.COMPLETED]: { label: 'Reward redemption completed', channel: 'API', schema: 'EventCustomerRewardRedemptionsCompleted', sample: rewardRedemptionSample('COMPLETED') },
  [REWARD_REDEMPTIONS.ROLLEDBACK]: { label: 'Reward redemption rolled back', channel: 'API', schema: 'EventCustomerRewardRedemptionsRolledBack', sample: rewardRedemptionSample('ROLLEDBACK'), logOnly: true },
  [EVENTS.REDEMPTION.SUCCEEDED]: { label: 'Redemption succeeded', channel: 'API', schema: 'EventRedemptionSucceeded', sample: redemptionSample },
  [EVENTS.REDEMPTION.ROLLBACK.SUCCEEDED]: { label: 'Redemption rolled back', channel: 'API', schema: 'EventRedemptionRollbackSucceeded', sample: rollbackSample },
} as const satisfies Record<EventType, EventEntry>;

export const EVENT_TYPES = Object.keys(EVENT_CATALOGUE) as readonly EventType[];

/** The event types of the event log only (`logOnly`): no webhook. */
type LogOnlyType = { [K in EventType]: (typeof EVENT_CATALOGUE)[K] extends { logOnly: true } ? K : never }[EventType];
export type WebhookEventType = Exclude<EventType, LogOnlyType>;

/** The types a distribution can be triggered by: all but the event log's own (`logOnly`). */
export const WEBHOOK_EVENT_TYPES = EVENT_TYPES.filter((type): type is WebhookEventType => !(EVENT_CATALOGUE[type] as EventEntry).logOnly);

export function isEventType(type: string): type is EventType {
  return Object.hasOwn(EVENT_CATALOGUE, type);
}
