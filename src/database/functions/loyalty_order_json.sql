-- A pending-points event's order (see loyalty_customer_json.sql for why payloads are SQL functions).
CREATE OR REPLACE FUNCTION "loyalty_order_json"(o "orders") RETURNS json LANGUAGE sql STABLE AS $$
    SELECT json_build_object('id', o.id, 'source_id', o.source_id, 'status', o.status, 'customer_id', o.customer_id, 'referrer_id', NULL,
        'amount', o.amount, 'total_amount', o.amount, 'items', o.items, 'metadata', o.metadata, 'created_at', loyalty_iso(o.created_at),
        'updated_at', loyalty_iso(o.updated_at), 'object', 'order')
$$;
