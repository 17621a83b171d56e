-- A pending-points event's campaign (see loyalty_customer_json.sql for why payloads are SQL functions). The
-- optional fields without a value are left out, not null: Voucherify's SimpleCampaign types them as plain
-- strings (a typed client refuses a null there); jsonb_strip_nulls touches only that object of scalars, never
-- the campaign's metadata.
CREATE OR REPLACE FUNCTION "loyalty_campaign_json"(c "campaigns") RETURNS json LANGUAGE sql STABLE AS $$
    SELECT (jsonb_build_object('id', c.id, 'name', c.name, 'campaign_type', 'LOYALTY_PROGRAM', 'type', c.type, 'auto_join', c.auto_join,
        'join_once', true, 'active', c.active, 'category_id', c.category_id, 'metadata', c.metadata, 'created_at', loyalty_iso(c.created_at),
        'object', 'campaign')
      || jsonb_strip_nulls(jsonb_build_object('start_date', loyalty_iso(c.start_date), 'expiration_date', loyalty_iso(c.expiration_date),
        'description', c.description, 'updated_at', loyalty_iso(c.updated_at))))::json
$$;
