/**
 * The event types this service records, under the names Voucherify's distributions use. Spec §6 names the
 * activation event by this constant path: `EVENTS.CUSTOMER.VOUCHER.LOYALTY_CARD.PENDING_POINTS.ACTIVATED`.
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
      },
    },
  },
} as const;

const PENDING = EVENTS.CUSTOMER.VOUCHER.LOYALTY_CARD.PENDING_POINTS;
export const EVENT_TYPES = [PENDING.ADDED, PENDING.ACTIVATED, PENDING.CANCELED, PENDING.UPDATED] as const;
export type EventType = (typeof EVENT_TYPES)[number];
