-- A pending-points event's order (see loyalty_customer_json.sql for why payloads are SQL functions), with its
-- items as stored (marked `object: "order_item"`, as Voucherify's SimpleOrderItem); `source_id` and
-- `updated_at` are left out without a value (SimpleOrder types source_id as a plain string).
CREATE OR REPLACE FUNCTION "loyalty_order_json"(o "orders") RETURNS json LANGUAGE sql STABLE AS $$
    SELECT (jsonb_build_object('id', o.id, 'status', o.status, 'customer_id', o.customer_id, 'referrer_id', NULL,
        'amount', o.amount, 'total_amount', o.amount, 'items', o.items, 'metadata', o.metadata, 'created_at', loyalty_iso(o.created_at),
        'object', 'order')
      || jsonb_strip_nulls(jsonb_build_object('source_id', o.source_id, 'updated_at', loyalty_iso(o.updated_at))))::json
$$;
