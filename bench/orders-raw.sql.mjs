// The statements the API sends for POST /v1/orders with status PAID (a new order by source id that names its
// status and customer, the customer by source id, FIXED earning rules), as PostgreSQL logged them
// (log_statement = all; bench/orders.mjs keeps a fresh sample in bench/results/orders.json, `statement_samples`)
// on 2026-11-26 after the money-path changes, for the plain baseline (bench/orders-raw-server.mjs). Before the
// transaction: the customer by source id (made if missing, CustomerRepository), the earning rules with their
// campaigns (query builder) and the customer's cards in those campaigns. In it: the order's upsert (its row
// returned), the cards locked in id order, the claims (order_earnings), the pending entries, one update of the
// cards (accruals and pending totals), one `…pending_points.added` event per entry (the events' INSERT, whose
// trigger writes the webhook outbox), the accruals' ledger rows. The API sends the statements with a name
// (prepared once per connection) where it does; so does the baseline. Change them when the API's change.
import { eventsInsertSql } from '../dist/events/event.repository.js';

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
  rules: `SELECT "r"."id" AS "r_id", "r"."project_id" AS "r_project_id", "r"."campaign_id" AS "r_campaign_id", "r"."event" AS "r_event", "r"."loyalty" AS "r_loyalty", "r"."pending_points" AS "r_pending_points", "r"."banner" AS "r_banner", "r"."active" AS "r_active", "r"."start_date" AS "r_start_date", "r"."expiration_date" AS "r_expiration_date", "r"."metadata" AS "r_metadata", "r"."created_at" AS "r_created_at", "r"."updated_at" AS "r_updated_at", "c"."id" AS "c_id", "c"."project_id" AS "c_project_id", "c"."name" AS "c_name", "c"."description" AS "c_description", "c"."type" AS "c_type", "c"."auto_join" AS "c_auto_join", "c"."use_voucher_metadata_schema" AS "c_use_voucher_metadata_schema", "c"."active" AS "c_active", "c"."protected" AS "c_protected", "c"."start_date" AS "c_start_date", "c"."expiration_date" AS "c_expiration_date", "c"."validity_timeframe" AS "c_validity_timeframe", "c"."validity_day_of_week" AS "c_validity_day_of_week", "c"."validity_hours" AS "c_validity_hours", "c"."activity_duration_after_publishing" AS "c_activity_duration_after_publishing", "c"."category_id" AS "c_category_id", "c"."metadata" AS "c_metadata", "c"."voucher" AS "c_voucher", "c"."loyalty_tiers_expiration" AS "c_loyalty_tiers_expiration", "c"."access_assignments" AS "c_access_assignments", "c"."vouchers_target" AS "c_vouchers_target", "c"."vouchers_count" AS "c_vouchers_count", "c"."creation_status" AS "c_creation_status", "c"."vouchers_generation_status" AS "c_vouchers_generation_status", "c"."generation_error" AS "c_generation_error", "c"."created_at" AS "c_created_at", "c"."updated_at" AS "c_updated_at", "c"."deleted_at" AS "c_deleted_at" FROM "earning_rules" "r" INNER JOIN "campaigns" "c" ON "c"."id"="r"."campaign_id" WHERE "r"."project_id" = $1 AND "r"."event" = 'order.paid' AND "r"."active" AND ("r"."start_date" IS NULL OR "r"."start_date" <= now()) AND ("r"."expiration_date" IS NULL OR "r"."expiration_date" >= now()) AND "c"."deleted_at" IS NULL AND "c"."active" AND ("c"."start_date" IS NULL OR "c"."start_date" <= now()) AND ("c"."expiration_date" IS NULL OR "c"."expiration_date" >= now()) ORDER BY "r"."created_at" ASC, "r"."id" ASC`,
  cards: named(
    'cards_active_of',
    `SELECT v.campaign_id, v.id FROM vouchers v
   JOIN members m ON m.id = v.member_id AND m.status = 'ACTIVE' AND m.customer_id = $2
   WHERE v.holder_id = $2 AND v.project_id = $1 AND v.campaign_id = ANY($3::text[])`,
  ),
  upsertOrder: `INSERT INTO orders (id, project_id, source_id, status, amount, customer_id)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (project_id, source_id) WHERE source_id IS NOT NULL DO UPDATE SET status = EXCLUDED.status, amount = EXCLUDED.amount, customer_id = EXCLUDED.customer_id, updated_at = now() RETURNING ${ORDER_COLUMNS}`,
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
    `UPDATE vouchers v SET points = v.points + d.points, balance = v.balance + d.points,
     pending_points = v.pending_points + d.pending, updated_at = now()
   FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS d(id, points, pending)
   WHERE v.id = d.id
   RETURNING v.id, v.points, v.balance, v.pending_points`,
  ),
  pendingEvents: named(
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
  ),
  ledger: named(
    'ledger_insert',
    `INSERT INTO voucher_transactions (id, project_id, voucher_id, campaign_id, type, points, balance_after, order_id, pending_points_id, details, created_at)
       SELECT id, project_id, voucher_id, campaign_id, type, points, balance_after, order_id, pending_points_id, details, $2
       FROM ROWS FROM (json_to_recordset($1::json) AS (id text, project_id text, voucher_id text, campaign_id text, type text, points int,
            balance_after bigint, order_id text, pending_points_id text, details json)) WITH ORDINALITY AS t(id, project_id, voucher_id, campaign_id,
            type, points, balance_after, order_id, pending_points_id, details, n)
       ORDER BY n`,
  ),
};
