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
  /** The `data` of a test delivery's event, less its leading `test: true`: the shape of a real event's data. */
  sample: (ids: SampleIds) => Record<string, unknown>;
}

/** A pending-points event's sample: the entry's status after the change; an activated entry's points are on the card. */
function pendingPointsSample(status: 'PENDING' | 'ACTIVATED' | 'CANCELED'): EventEntry['sample'] {
  const activated = status === 'ACTIVATED';
  return ({ suffix, customerId, voucherId, at }) => ({
    customer: { id: customerId, source_id: 'test-customer', name: 'Test Customer', email: null, metadata: {}, object: 'customer' },
    voucher: {
      id: voucherId,
      code: 'TEST-CARD',
      type: 'LOYALTY_CARD',
      holder_id: customerId,
      loyalty_card: { points: activated ? 100 : 0, balance: activated ? 100 : 0, pending_points: activated ? 0 : 100 },
      metadata: {},
      object: 'voucher',
    },
    voucher_pending_points_balance: { points: 100, total: activated ? 0 : 100, balance: activated ? 0 : 100, object: 'balance', related_object: { type: 'voucher', id: voucherId }, operation_type: activated ? 'AUTOMATIC' : 'MANUAL' },
    pending_points: { id: `lopp_test_${suffix}`, voucher_id: voucherId, customer_id: customerId, points: 100, activates_at: at.slice(0, 10), activates_at_time: at, status },
  });
}

/** The card as a balance event shows it, with its points after the change. */
function sampleCard(voucherId: string, customerId: string, balance: number): Record<string, unknown> {
  return {
    id: voucherId,
    code: 'TEST-CARD',
    type: 'LOYALTY_CARD',
    holder_id: customerId,
    loyalty_card: { points: 150, balance, pending_points: 0 },
    metadata: {},
    object: 'voucher',
  };
}

const SAMPLE_CUSTOMER = (customerId: string) => ({ id: customerId, source_id: 'test-customer', name: 'Test Customer', email: null, metadata: {}, object: 'customer' });

/** A points_added or points_removed event's sample: the change, the card after it, and its ledger row. */
function balanceSample(points: number): EventEntry['sample'] {
  return ({ suffix, customerId, voucherId, at }) => {
    const after = { points, total: 150, balance: 100 + points, type: 'loyalty_card', object: 'balance', related_object: { type: 'voucher', id: voucherId } };
    return {
      customer: SAMPLE_CUSTOMER(customerId),
      voucher: sampleCard(voucherId, customerId, 100 + points),
      balance: { ...after, operation_type: 'MANUAL' },
      transaction: {
        id: `vtx_test_${suffix}`,
        source_id: null,
        voucher_id: voucherId,
        type: points > 0 ? 'POINTS_ADDITION' : 'POINTS_REMOVAL',
        reason: 'test',
        details: { balance: after, reason: 'test' },
        related_transaction_id: null,
        created_at: at,
      },
    };
  };
}

/** A points_expired event's sample: the points that left, the buckets they were in, the ledger row. */
function expiredSample({ suffix, customerId, voucherId, at }: SampleIds): Record<string, unknown> {
  const buckets = [
    { id: `lopb_test_${suffix}`, voucher_id: voucherId, bucket: { total_points: 50 }, status: 'EXPIRED', expires_at: at.slice(0, 10), created_at: at, updated_at: at, object: 'loyalty_points_bucket' },
  ];
  return {
    customer: SAMPLE_CUSTOMER(customerId),
    voucher: sampleCard(voucherId, customerId, 50),
    points: 50,
    buckets,
    transaction: {
      id: `vtx_test_${suffix}`,
      source_id: null,
      voucher_id: voucherId,
      type: 'POINTS_EXPIRATION',
      reason: null,
      details: {
        balance: { type: 'loyalty_card', total: 150, object: 'balance', points: -50, balance: 50, related_object: { id: voucherId, type: 'voucher' } },
        buckets: [{ id: `lopb_test_${suffix}`, points: 50, expires_at: at.slice(0, 10) }],
      },
      related_transaction_id: null,
      created_at: at,
    },
  };
}

const PENDING = EVENTS.CUSTOMER.VOUCHER.LOYALTY_CARD.PENDING_POINTS;
const CARD = EVENTS.CUSTOMER.VOUCHER.LOYALTY_CARD;

/** In the order the API's enums list the types. */
export const EVENT_CATALOGUE = {
  [PENDING.ADDED]: { label: 'Pending points added', channel: 'API', sample: pendingPointsSample('PENDING') },
  [PENDING.ACTIVATED]: { label: 'Pending points activated', channel: 'INTERNAL', sample: pendingPointsSample('ACTIVATED') },
  [PENDING.CANCELED]: { label: 'Pending points canceled', channel: 'API', sample: pendingPointsSample('CANCELED') },
  [PENDING.UPDATED]: { label: 'Pending points updated', channel: 'API', sample: pendingPointsSample('PENDING') },
  [CARD.POINTS_ADDED]: { label: 'Points added', channel: 'API', sample: balanceSample(50) },
  [CARD.POINTS_REMOVED]: { label: 'Points removed', channel: 'API', sample: balanceSample(-50) },
  [CARD.POINTS_EXPIRED]: { label: 'Points expired', channel: 'INTERNAL', sample: expiredSample },
} as const satisfies Record<EventType, EventEntry>;

export const EVENT_TYPES = Object.keys(EVENT_CATALOGUE) as readonly EventType[];

export function isEventType(type: string): type is EventType {
  return Object.hasOwn(EVENT_CATALOGUE, type);
}
