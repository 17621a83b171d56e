// The statements the API sends for POST /v1/orders with status PAID (a new order by source id that names its
// status and customer, the customer by source id, FIXED earning rules), as PostgreSQL logged them
// (log_statement = all; bench/orders.mjs keeps a fresh sample in bench/results/orders.json, `statement_samples`)
// on 2026-11-26 after the money-path changes, for the plain baseline (bench/orders-raw-server.mjs). Before the
// transaction: the customer by source id (made if missing, CustomerRepository), the earning rules that earn now
// with their campaign's auto_join, and the customer's cards in those campaigns. In it: the order's upsert (its
// row returned), the cards locked in id order, the claims (order_earnings), the pending entries, one update of
// the cards (accruals and pending totals), one `…pending_points.added` event per entry (its trigger writes the
// webhook outbox), the accruals' ledger rows and point buckets. The API sends the statements with a name (prepared once per
// connection) where it does; so does the baseline. Change them when the API's change.
import { eventsInsertSql } from '../dist/events/recording/event-recording.js';

const named = (name, text) => ({ name: `raw_${name}`, text });
const CUSTOMER_COLUMNS = 'id, project_id, source_id, name, description, email, phone, birthdate, address, metadata, created_at, updated_at';
const ORDER_COLUMNS = 'id, project_id, source_id, status, amount, customer_id, items, metadata, created_at, updated_at';

export const ORDER_SQL = {
  customer: named(
    'customers_ensure',
    `WITH made AS (
     INSERT INTO customers (id, project_id, source_id) VALUES ($1, $2, $3)
     ON CONFLICT (project_id, source_id) WHERE source_id IS NOT NULL DO NOTHING
     RETURNING ${CUSTOMER_COLUMNS}
   )
   SELECT * FROM made
   UNION ALL
   SELECT ${CUSTOMER_COLUMNS} FROM customers WHERE project_id = $2 AND source_id = $3 AND NOT EXISTS (SELECT 1 FROM made)`,
  ),
  rules: named(
    'earning_rules_now',
    `SELECT r.id, r.project_id, r.campaign_id, r.event, r.loyalty, r.pending_points, r.banner, r.active, r.start_date, r.expiration_date,
          r.metadata, r.created_at, r.updated_at, c.auto_join
   FROM earning_rules r JOIN campaigns c ON c.id = r.campaign_id
   WHERE r.project_id = $1 AND r.event = 'order.paid' AND r.active
     AND (r.start_date IS NULL OR r.start_date <= now()) AND (r.expiration_date IS NULL OR r.expiration_date >= now())
     AND c.deleted_at IS NULL AND c.active AND (c.start_date IS NULL OR c.start_date <= now()) AND (c.expiration_date IS NULL OR c.expiration_date >= now())
   ORDER BY r.created_at, r.id`,
  ),
  upsertOrder: named(
    'orders_save',
    `INSERT INTO orders (id, project_id, source_id, status, amount, customer_id)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (project_id, source_id) WHERE source_id IS NOT NULL DO UPDATE SET status = EXCLUDED.status, amount = EXCLUDED.amount, customer_id = EXCLUDED.customer_id, updated_at = now() RETURNING ${ORDER_COLUMNS}`,
  ),
  cards: named(
    'cards_active_of',
    `SELECT v.campaign_id, v.id FROM vouchers v
   JOIN members m ON m.id = v.member_id AND m.status = 'ACTIVE' AND m.customer_id = $2
   WHERE v.holder_id = $2 AND v.project_id = $1 AND v.campaign_id = ANY($3::text[])`,
  ),
  lockCards: named('cards_lock', 'SELECT 1 FROM vouchers WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE'),
  claim: named(
    'orders_claim',
    `INSERT INTO order_earnings (order_id, earning_rule_id, project_id, voucher_id, points)
   SELECT $1, c.rule, $2, c.card, c.points FROM unnest($3::text[], $4::text[], $5::int[]) AS c(rule, card, points)
   ON CONFLICT (order_id, earning_rule_id) DO NOTHING RETURNING earning_rule_id`,
  ),
  pending: named(
    'pending_insert',
    `INSERT INTO loyalty_pending_points (id, project_id, voucher_id, campaign_id, customer_id, order_id, earning_rule_id, points, activates_at, details)
       SELECT e.id, e.project_id, e.voucher_id, e.campaign_id, e.customer_id, e.order_id, e.earning_rule_id, e.points,
              now() + e.delay_ms * interval '1 millisecond', e.details
       FROM jsonb_to_recordset($1::jsonb) AS e(id text, project_id text, voucher_id text, campaign_id text, customer_id text, order_id text,
            earning_rule_id text, points int, delay_ms bigint, details jsonb)
       RETURNING id, project_id, voucher_id, campaign_id, customer_id, order_id, earning_rule_id, points, status, activates_at,
  details, activation_error, created_at, updated_at, settled_at`,
  ),
  applyCards: named(
    'cards_apply',
    `UPDATE vouchers v SET points = v.points + d.points, balance = v.balance + d.points - d.removed,
     pending_points = v.pending_points + d.pending, subtracted_points = v.subtracted_points + d.removed,
     added_points = v.added_points + d.added, pending_canceled_points = v.pending_canceled_points + d.canceled, updated_at = now()
   FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[]) AS d(id, points, pending, removed, added, canceled)
   WHERE v.id = d.id
   RETURNING v.id, v.points, v.balance, v.pending_points`,
  ),
  pendingEvents: named(
    'pending_events_record',
    eventsInsertSql(`
  SELECT p.project_id, $3::text AS type, p.customer_id AS entity_id, $4::text AS group_id, $5::jsonb AS event_source,
         json_build_object(
           'customer', (SELECT loyalty_customer_json(cu) FROM customers cu WHERE cu.id = p.customer_id),
           'campaign', loyalty_campaign_json(ca),
           'voucher', loyalty_voucher_json(v, ca.name, v.points, v.balance, v.pending_points, v.next_expiration_date, v.next_expiration_points, (SELECT m.status = 'ACTIVE' FROM members m WHERE m.id = v.member_id)),
           'order', (SELECT loyalty_order_json(o) FROM orders o WHERE o.id = p.order_id),
           'voucher_pending_points_balance', json_build_object('points', ch.change, 'total', v.pending_points, 'object', 'balance',
                                                               'related_object', json_build_object('type', 'voucher', 'id', v.id), 'operation_type', $6::text),
           'pending_points', loyalty_pending_points_json(p)) AS data
  FROM unnest($1::text[], $2::int[]) WITH ORDINALITY AS ch(id, change, n)
  JOIN loyalty_pending_points p ON p.id = ch.id
  JOIN vouchers v ON v.id = p.voucher_id
  JOIN campaigns ca ON ca.id = p.campaign_id
  ORDER BY ch.n`),
  ),
  ledger: named(
    'ledger_insert',
    `INSERT INTO voucher_transactions (id, project_id, voucher_id, campaign_id, type, points, balance_after, order_id, pending_points_id, source_id, details, created_at)
       SELECT id, project_id, voucher_id, campaign_id, type, points, balance_after, order_id, pending_points_id, source_id, details, $2
       FROM ROWS FROM (json_to_recordset($1::json) AS (id text, project_id text, voucher_id text, campaign_id text, type text, points bigint,
            balance_after bigint, order_id text, pending_points_id text, source_id text, details json)) WITH ORDINALITY AS t(id, project_id, voucher_id, campaign_id,
            type, points, balance_after, order_id, pending_points_id, source_id, details, n)
       ORDER BY n`,
  ),
  // Issue 28: each accrual's point bucket, dated by its earning rule's or campaign's expiration rules.
  buckets: named(
    'buckets_credit',
    `INSERT INTO loyalty_points_buckets (id, project_id, voucher_id, campaign_id, total_points, remaining, expires_at, expire_after)
   SELECT c.id, c.project_id, c.voucher_id, c.campaign_id, c.points, c.points, e.expires_at, loyalty_points_expire_after(e.expires_at, p.time_zone)
   FROM json_to_recordset($1::json) AS c(id text, project_id text, voucher_id text, campaign_id text, points bigint, date date, never boolean, earning_rule_id text)
   JOIN projects p ON p.id = c.project_id
   JOIN campaigns ca ON ca.id = c.campaign_id
   LEFT JOIN earning_rules er ON er.id = c.earning_rule_id
   CROSS JOIN LATERAL (SELECT CASE
       WHEN c.date IS NOT NULL THEN c.date
       WHEN c.never THEN NULL
       ELSE loyalty_points_expiry_date(coalesce(er.expiration_rules, ca.voucher->'loyalty_card'->'expiration_rules'), (now() AT TIME ZONE p.time_zone)::date)
     END AS expires_at) e
   RETURNING voucher_id, expires_at IS NOT NULL AS dated`,
  ),
};
