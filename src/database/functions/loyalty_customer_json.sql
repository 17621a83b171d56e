-- The payload pieces of the pending-points events (Voucherify's 2024-01-01 schemas) are SQL functions: the
-- worker builds an activation batch's events in one statement, in the database, instead of one object tree
-- per event in Node (bench/README.md). Every pending-points event is built with them. This one: a customer.
--
-- Fields without a value are left out, not null: Voucherify's Simple… schemas type them as plain strings (a
-- typed client refuses a null there). json_strip_nulls does that, but it strips nested objects too, and the
-- caller's metadata may hold nulls of its own: so the object is built and stripped without the caller's data,
-- its closing brace cut off (`left(…, -1)`: a json_build_object text always ends with it), and the metadata
-- (and the `object` tag) appended. The result keeps the order the fields were written in (`json`, not
-- `jsonb`, which would sort the keys), and the function stays a single expression PostgreSQL inlines.
CREATE OR REPLACE FUNCTION "loyalty_customer_json"(c "customers") RETURNS json LANGUAGE sql STABLE AS $$
    SELECT (left(json_strip_nulls(json_build_object('id', c.id, 'source_id', c.source_id, 'name', c.name, 'email', c.email))::text, -1)
      || ', "metadata" : ' || c.metadata::text || ', "object" : "customer"}')::json
$$;
