-- A pending-points event's entry (see loyalty_customer_json.sql for why payloads are SQL functions).
CREATE OR REPLACE FUNCTION "loyalty_pending_points_json"(p "loyalty_pending_points") RETURNS json LANGUAGE sql STABLE AS $$
    SELECT json_build_object('id', p.id, 'voucher_id', p.voucher_id, 'campaign_id', p.campaign_id, 'customer_id', p.customer_id,
        'order_id', p.order_id, 'points', p.points, 'activates_at', loyalty_iso(p.activates_at), 'status', p.status, 'details', p.details,
        'created_at', loyalty_iso(p.created_at), 'updated_at', loyalty_iso(p.updated_at))
$$;
