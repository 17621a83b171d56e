// The statements the API sends for POST /v1/orders with status PAID (a new order by source id that names its
// status and customer, the customer by source id, FIXED earning rules), for the plain baseline
// (bench/orders-raw-server.mjs), imported from the build (dist/): the service's own text, named as the API names
// it where the API prepares it once per connection, so the baseline cannot drift from the API. Before the
// transaction: the customer by source id (made if missing, CustomerRepository), the earning rules that earn now
// with their campaign's auto_join, and the customer's cards in those campaigns. In it: the order's upsert (its
// row returned), the cards locked in id order, the claims (order_earnings), the pending entries, then the
// accruals' posting (PointsPosting): one update of the cards (accruals and pending totals), the accruals' ledger
// rows and point buckets, and the cards' next expiration when a bucket is dated; last, one
// `…pending_points.added` event per entry (its trigger writes the webhook outbox). bench/orders.mjs samples what each side sends from PostgreSQL's log (`statement_samples`, `raw`).
import { ACTIVE_CARDS } from '../dist/members/member-card.repository.js';
import { APPLY, DELTA_COLUMNS, LOCK } from '../dist/cards/card.repository.js';
import { BY_SOURCE_ID, ENSURE_BY_SOURCE_ID } from '../dist/customers/customer.repository.js';
import { CREDIT, REFRESH_NEXT } from '../dist/points/buckets/bucket.repository.js';
import { CLAIM, insertOrderSql } from '../dist/points/orders/order.repository.js';
import { EARNING_NOW } from '../dist/points/earning/earning-rule.repository.js';
import { INSERT as LEDGER_INSERT } from '../dist/points/ledger/ledger.repository.js';
import { INSERT as PENDING_INSERT } from '../dist/points/pending/pending-points.repository.js';
import { RECORD as PENDING_EVENTS } from '../dist/points/pending/pending-events.repository.js';
import { prepared } from '../dist/database/prepared.js';

/** The delta columns of `applyCards`, in the order of APPLY's arrays. */
export { DELTA_COLUMNS };

export const ORDER_SQL = {
  customer: ENSURE_BY_SOURCE_ID,
  customerAgain: BY_SOURCE_ID,
  rules: EARNING_NOW,
  // OrderRepository.save prepares the upsert of the columns a request sets, under this name.
  upsertOrder: prepared('orders_save', insertOrderSql(['status', 'amount', 'customer_id'], true)),
  cards: ACTIVE_CARDS,
  lockCards: LOCK,
  claim: CLAIM,
  pending: PENDING_INSERT,
  applyCards: APPLY,
  pendingEvents: PENDING_EVENTS,
  ledger: LEDGER_INSERT,
  buckets: CREDIT,
  refreshNext: REFRESH_NEXT,
};
