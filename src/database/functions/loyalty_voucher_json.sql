-- An event's loyalty card, with the card's totals and next expiration after the change (see
-- loyalty_customer_json.sql for why payloads are SQL functions). The totals are bigint, as the card's columns
-- are; the caller passes them, and the next expiration, because a statement that changes the card may see
-- the row as it was (an activation batch reports each entry's card right after it). Every value here is ours
-- (no caller's data), so json_strip_nulls leaves out exactly the fields without a value (holder_id of a free
-- card, updated_at of a card never changed, next_expiration_date when none of its points expire), which
-- Voucherify's SimpleVoucher types as plain strings; next_expiration_points is then 0, as the card's answer has it.
CREATE OR REPLACE FUNCTION "loyalty_voucher_json"(v "vouchers", campaign_name text, points bigint, balance bigint, pending_points bigint,
    next_expiration_date date, next_expiration_points bigint, active boolean)
RETURNS json LANGUAGE sql STABLE AS $$
    SELECT json_strip_nulls(json_build_object('id', v.id, 'code', v.code, 'type', 'LOYALTY_CARD', 'campaign', campaign_name, 'campaign_id', v.campaign_id,
        'holder_id', v.holder_id, 'loyalty_card', json_build_object('points', points, 'balance', balance,
            'next_expiration_date', to_char(next_expiration_date, 'YYYY-MM-DD'), 'next_expiration_points', next_expiration_points, 'pending_points', pending_points),
        'is_referral_code', false, 'active', coalesce(active, false), 'metadata', '{}'::json, 'created_at', loyalty_iso(v.created_at),
        'updated_at', loyalty_iso(v.updated_at), 'object', 'voucher'))
$$;
