-- The payload pieces of the pending-points events (Voucherify's 2024-01-01 schemas) are SQL functions: the
-- worker builds an activation batch's events in one statement, in the database, instead of one object tree
-- per event in Node (bench/README.md). Every pending-points event is built with them. This one: a customer,
-- without the fields it has no value for (SimpleCustomer types them as plain strings).
CREATE OR REPLACE FUNCTION "loyalty_customer_json"(c "customers") RETURNS json LANGUAGE sql STABLE AS $$
    SELECT (jsonb_build_object('id', c.id, 'metadata', c.metadata, 'object', 'customer')
      || jsonb_strip_nulls(jsonb_build_object('source_id', c.source_id, 'name', c.name, 'email', c.email)))::json
$$;
