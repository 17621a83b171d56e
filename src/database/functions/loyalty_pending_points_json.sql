-- A pending-points entry as the events and the activation's ledger row carry it, the shape the lists build in
-- Node (toPendingPointsDto); see loyalty_customer_json.sql for why payloads are SQL functions. `activates_at`
-- is the UTC date, as Voucherify's schema and examples have it; `activates_at_time` is the moment.
-- `updated_at` is left out until the entry changes (Voucherify's schema has no null there): two whole
-- objects rather than one edited afterwards, because a json object keeps the order it was written in.
CREATE OR REPLACE FUNCTION "loyalty_pending_points_json"(p "loyalty_pending_points") RETURNS json LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN p.updated_at IS NULL THEN
        json_build_object('id', p.id, 'voucher_id', p.voucher_id, 'campaign_id', p.campaign_id, 'customer_id', p.customer_id,
            'order_id', p.order_id, 'points', p.points, 'activates_at', left(loyalty_iso(p.activates_at), 10),
            'activates_at_time', loyalty_iso(p.activates_at), 'status', p.status, 'details', p.details, 'created_at', loyalty_iso(p.created_at))
    ELSE
        json_build_object('id', p.id, 'voucher_id', p.voucher_id, 'campaign_id', p.campaign_id, 'customer_id', p.customer_id,
            'order_id', p.order_id, 'points', p.points, 'activates_at', left(loyalty_iso(p.activates_at), 10),
            'activates_at_time', loyalty_iso(p.activates_at), 'status', p.status, 'details', p.details, 'created_at', loyalty_iso(p.created_at),
            'updated_at', loyalty_iso(p.updated_at))
    END
$$;
