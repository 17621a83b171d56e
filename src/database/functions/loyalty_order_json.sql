-- A pending-points event's order (see loyalty_customer_json.sql for why payloads are SQL functions, and how
-- the fields without a value are left out while the caller's items and metadata are kept as they are). The
-- items are stored marked `object: "order_item"`, as Voucherify's SimpleOrderItem. `referrer_id` (always
-- null here, optional in SimpleOrder) is left out with the others.
CREATE OR REPLACE FUNCTION "loyalty_order_json"(o "orders") RETURNS json LANGUAGE sql STABLE AS $$
    SELECT (left(json_strip_nulls(json_build_object('id', o.id, 'source_id', o.source_id, 'status', o.status, 'customer_id', o.customer_id,
        'amount', o.amount, 'total_amount', o.amount, 'created_at', loyalty_iso(o.created_at), 'updated_at', loyalty_iso(o.updated_at)))::text, -1)
      || ', "items" : ' || o.items::text || ', "metadata" : ' || o.metadata::text || ', "object" : "order"}')::json
$$;
