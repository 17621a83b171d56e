// The statements the API sends for POST /v1/loyalties/members/{code}/pending-points/{id}/activate, as
// PostgreSQL logged them (log_statement = all) on 2026-11-25 (the lock order and mode of 2026-11-26), for the plain baseline
// (bench/member-list-raw-server.mjs): the card by code (CardRepository), the entry (PendingPointsRepository),
// then in one transaction the card locked, its entry locked while PENDING, and the activation itself (that
// one is imported from dist/, ActivationRepository's own text). Change them when the API's change.
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
};
