// The statements the API sends for POST /v1/loyalties/members/{code}/pending-points/{id}/activate, as
// PostgreSQL logged them (log_statement = all) on 2026-11-25 (the lock order and mode of 2026-11-26), for the plain baseline
// (bench/member-list-raw-server.mjs): the card by code (CardRepository), the entry (PendingPointsRepository),
// then in one transaction the card locked, its entry locked while PENDING, and the activation itself
// (ActivationRepository's text, copied on 2026-11-26 after issue 28: with the point buckets, and the cards' next
// expiration set again when a bucket is dated; again after issue 29: the ledger row carries the whole entry;
// issue 37: the event's card takes a next expiration, here the card's as it was, where the API computes each
// entry's). Change them when the API's change.
export const ACTIVATE_SQL = {
  card: `SELECT v.id, v.code, v.campaign_id, v.holder_id, v.project_id
       FROM vouchers v
       JOIN members m ON m.id = v.member_id AND m.status <> 'DELETED'
       JOIN campaigns c ON c.id = v.campaign_id AND c.deleted_at IS NULL
       WHERE v.project_id = $1 AND v.code = $2 AND ($3::text IS NULL OR v.campaign_id = $3)`,
  entry: `SELECT id, project_id, voucher_id, campaign_id, customer_id, order_id, earning_rule_id, points, status, activates_at,
  details, activation_error, created_at, updated_at, settled_at FROM loyalty_pending_points WHERE id = $1 AND project_id = $2`,
  lockPending: `SELECT id, voucher_id FROM loyalty_pending_points WHERE id = $1 AND project_id = $2 AND status = 'PENDING' FOR UPDATE`,
  lockCards: `SELECT 1 FROM vouchers WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE`,
  activate: `
WITH upd AS (
  UPDATE loyalty_pending_points p SET status = 'ACTIVATED', updated_at = now(), settled_at = clock_timestamp()
  WHERE p.id = ANY($1::text[]) AND p.status = 'PENDING' AND p.voucher_id = ANY($5::text[])
  RETURNING p.*
), agg AS (
  SELECT voucher_id, sum(points)::bigint AS points FROM upd GROUP BY voucher_id
), cards AS (
  UPDATE vouchers v SET points = v.points + agg.points, balance = v.balance + agg.points, pending_points = v.pending_points - agg.points,
    pending_activated_points = v.pending_activated_points + agg.points, updated_at = now()
  FROM agg WHERE v.id = agg.voucher_id
  RETURNING v.*
), joined AS (
  SELECT ROW(u.*)::loyalty_pending_points AS entry, ROW(c.*)::vouchers AS card, loyalty_pending_points_json(ROW(u.*)::loyalty_pending_points) AS entry_json,
         coalesce(sum(u.points) OVER (PARTITION BY u.voucher_id ORDER BY u.id DESC ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)::bigint AS later
  FROM upd u JOIN cards c ON c.id = u.voucher_id
), run AS (
  SELECT entry, card, entry_json, (entry).id, (entry).project_id, (entry).voucher_id, (entry).campaign_id, (entry).customer_id, (entry).order_id, (entry).points,
         (card).points - later AS total, (card).balance - later AS balance, (card).pending_points + later AS pending,
         'vtx_' || left(md5(random()::text || clock_timestamp()::text || (entry).id), 18) AS transaction_id,
         json_build_object(
           'balance', json_build_object('type', 'loyalty_card', 'total', (card).points - later, 'object', 'balance', 'points', (entry).points,
                                        'balance', (card).balance - later, 'related_object', json_build_object('id', (entry).voucher_id, 'type', 'voucher')),
           'order', (entry).details->'order', 'event', json_build_object('id', (entry).details->'event'->>'id', 'type', (entry).details->'event'->>'type'),
           'earning_rule', (entry).details->'earning_rule', 'pending_points', entry_json) AS transaction_details
  FROM joined
), tx AS (
  INSERT INTO voucher_transactions (id, project_id, voucher_id, campaign_id, type, points, balance_after, order_id, pending_points_id, details, created_at)
  SELECT transaction_id, project_id, voucher_id, campaign_id, 'PENDING_POINTS_ACTIVATION', points, balance, order_id, id, transaction_details, now()
  FROM run ORDER BY voucher_id, id
), dates AS MATERIALIZED (
  SELECT k.campaign_id, k.earning_rule_id, e.expires_at, loyalty_points_expire_after(e.expires_at, pr.time_zone) AS expire_after
  FROM (SELECT DISTINCT project_id, campaign_id, earning_rule_id FROM upd) k
  JOIN projects pr ON pr.id = k.project_id
  JOIN campaigns ca ON ca.id = k.campaign_id
  LEFT JOIN earning_rules er ON er.id = k.earning_rule_id
  CROSS JOIN LATERAL (SELECT loyalty_points_expiry_date(coalesce(er.expiration_rules, ca.voucher->'loyalty_card'->'expiration_rules'),
                                                         (now() AT TIME ZONE pr.time_zone)::date) AS expires_at) e
), bk AS (
  INSERT INTO loyalty_points_buckets (id, project_id, voucher_id, campaign_id, total_points, remaining, expires_at, expire_after)
  SELECT 'lopb_' || left(md5(random()::text || clock_timestamp()::text || u.id), 18), u.project_id, u.voucher_id, u.campaign_id, u.points, u.points,
         d.expires_at, d.expire_after
  FROM upd u JOIN dates d ON d.campaign_id = u.campaign_id AND d.earning_rule_id = u.earning_rule_id
  RETURNING voucher_id, expires_at
), ev AS (
  INSERT INTO events (id, project_id, type, entity_id, group_id, event_source, data)
    SELECT 'evcus_' || left(md5(random()::text || clock_timestamp()::text || s.entity_id), 18), s.project_id, s.type, s.entity_id, s.group_id, s.event_source, s.data
    FROM (
    SELECT r.project_id, 'customer.voucher.loyalty_card.pending_points.activated'::text AS type, r.customer_id AS entity_id, $3::text AS group_id,
           $4::jsonb AS event_source,
           json_build_object(
             'customer', loyalty_customer_json(cu),
             'campaign', loyalty_campaign_json(ca),
             'voucher', loyalty_voucher_json(r.card, ca.name, r.total, r.balance, r.pending, (r.card).next_expiration_date, (r.card).next_expiration_points, (SELECT m.status = 'ACTIVE' FROM members m WHERE m.id = (r.card).member_id)),
             'balance', json_build_object('points', r.points, 'total', r.total, 'balance', r.balance, 'type', 'loyalty_card', 'object', 'balance',
                                          'related_object', json_build_object('type', 'voucher', 'id', r.voucher_id), 'operation_type', $2::text),
             'order', loyalty_order_json(o),
             'transaction', json_build_object('id', r.transaction_id, 'source_id', NULL, 'voucher_id', r.voucher_id, 'campaign_id', r.campaign_id, 'source', NULL,
                                              'reason', NULL, 'type', 'PENDING_POINTS_ACTIVATION', 'details', r.transaction_details,
                                              'related_transaction_id', NULL, 'created_at', loyalty_iso(now())),
             'pending_points', r.entry_json) AS data
    FROM run r
    JOIN customers cu ON cu.id = r.customer_id
    JOIN campaigns ca ON ca.id = r.campaign_id
    LEFT JOIN orders o ON o.id = r.order_id
    ORDER BY r.voucher_id, r.id) s
)
SELECT r.id, r.voucher_id, r.points, r.total, r.balance, r.pending, d.dated
FROM run r LEFT JOIN (SELECT voucher_id, bool_or(expires_at IS NOT NULL) AS dated FROM bk GROUP BY voucher_id) d ON d.voucher_id = r.voucher_id
ORDER BY r.voucher_id, r.id`,
  refreshNext: `UPDATE vouchers v SET next_expiration_date = n.d, next_expiration_points = coalesce(n.p, 0)
   FROM unnest($1::text[]) AS c(id)
   LEFT JOIN LATERAL (
     SELECT b.expires_at AS d, sum(b.remaining)::bigint AS p FROM loyalty_points_buckets b
     WHERE b.voucher_id = c.id AND b.status = 'ACTIVE' AND b.remaining > 0 AND b.expires_at IS NOT NULL
     GROUP BY b.expires_at ORDER BY b.expires_at LIMIT 1
   ) n ON true
   WHERE v.id = c.id AND (v.next_expiration_date IS DISTINCT FROM n.d OR v.next_expiration_points <> coalesce(n.p, 0))`,
};
