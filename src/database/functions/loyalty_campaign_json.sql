-- A pending-points event's campaign (see loyalty_customer_json.sql for why payloads are SQL functions, and how
-- the fields without a value are left out while the campaign's metadata is kept as it is).
CREATE OR REPLACE FUNCTION "loyalty_campaign_json"(c "campaigns") RETURNS json LANGUAGE sql STABLE AS $$
    SELECT (left(json_strip_nulls(json_build_object('id', c.id, 'name', c.name, 'campaign_type', 'LOYALTY_PROGRAM', 'type', c.type,
        'auto_join', c.auto_join, 'join_once', true, 'active', c.active, 'category_id', c.category_id, 'start_date', loyalty_iso(c.start_date),
        'expiration_date', loyalty_iso(c.expiration_date), 'description', c.description, 'created_at', loyalty_iso(c.created_at),
        'updated_at', loyalty_iso(c.updated_at)))::text, -1)
      || ', "metadata" : ' || c.metadata::text || ', "object" : "campaign"}')::json
$$;
