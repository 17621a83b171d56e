-- A pending-points event's order, as a summary bounded whatever the order (issue 36: an order earns once per
-- rule, and each of those events carries it): the order's fields, its first 10 items and, when it has more,
-- "items_omitted" (how many more; GET /v1/orders/{id} has them all), and its metadata (which the event's size
-- bound may still leave out: loyalty_event_fit). See loyalty_customer_json.sql for why payloads are SQL
-- functions, and how the fields without a value are left out while the caller's items and metadata are kept
-- as they are. The items are stored marked `object: "order_item"`, as Voucherify's SimpleOrderItem;
-- jsonb_path_query_array takes the first ten without a sub-select, which would stop PostgreSQL from inlining
-- the function into the activation statement. `referrer_id` (always null here, optional in SimpleOrder) is
-- left out with the others. `discount_amount` is the order's COIN discount (issue 38), left out when 0;
-- `total_amount` is the amount after it, never below 0.
CREATE OR REPLACE FUNCTION "loyalty_order_json"(o "orders") RETURNS json LANGUAGE sql STABLE AS $$
    SELECT (left(json_strip_nulls(json_build_object('id', o.id, 'source_id', o.source_id, 'status', o.status, 'customer_id', o.customer_id,
        'amount', o.amount, 'discount_amount', nullif(o.discount_amount, 0), 'total_amount', greatest(o.amount - o.discount_amount, 0), 'created_at', loyalty_iso(o.created_at), 'updated_at', loyalty_iso(o.updated_at)))::text, -1)
      || CASE WHEN jsonb_array_length(o.items) > 10
              THEN ', "items" : ' || jsonb_path_query_array(o.items, '$[0 to 9]')::text || ', "items_omitted" : ' || (jsonb_array_length(o.items) - 10)
              ELSE ', "items" : ' || o.items::text END
      || ', "metadata" : ' || o.metadata::text || ', "object" : "order"}')::json
$$;
