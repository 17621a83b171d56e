-- A card is born with the campaign's initial points; the ledger records them as its first transaction
-- (POINTS_ADDITION) and a bucket holds them, expiring under the campaign's expiration rules from the day the
-- card is made (in the project's time zone), so a card's balance is always the sum of its ledger and of its
-- ACTIVE buckets (and, when they expire, its next expiration). The statement-level trigger
-- "vouchers_initial_points_ledger" (AFTER INSERT ON "vouchers") runs this for every way cards are made (generation, enrolment, seed) at set speed.
-- A card has one ACTIVE bucket per day, which later credits add to (ON CONFLICT on "uq_points_buckets_card_day"):
-- a card this statement makes has no bucket yet, and no other transaction can see it, so its first is a plain
-- INSERT (one per card), which also runs where migrations before BucketsPerDay apply this file without the index.
CREATE OR REPLACE FUNCTION "vouchers_initial_points_ledger"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO "voucher_transactions" ("id", "project_id", "voucher_id", "campaign_id", "type", "points", "balance_after", "details", "created_at")
    SELECT 'vtx_' || left(replace(gen_random_uuid()::text, '-', ''), 18), n.project_id, n.id, n.campaign_id, 'POINTS_ADDITION',
           n.initial_points, n.initial_points,
           json_build_object(
               'balance', json_build_object('type', 'loyalty_card', 'total', n.initial_points, 'object', 'balance',
                   'points', n.initial_points, 'balance', n.initial_points, 'related_object', json_build_object('id', n.id, 'type', 'voucher')),
               'reason', 'initial points of the campaign''s loyalty card'),
           n.created_at
    FROM new_vouchers n WHERE n.initial_points > 0;
    WITH dates AS MATERIALIZED (
        -- Once per campaign of the statement's cards, not per card: the date function is not inlined.
        SELECT k.campaign_id, e.expires_at, loyalty_points_expire_after(e.expires_at, p.time_zone) AS expire_after
        FROM (SELECT DISTINCT project_id, campaign_id FROM new_vouchers WHERE initial_points > 0) k
        JOIN "projects" p ON p.id = k.project_id
        JOIN "campaigns" c ON c.id = k.campaign_id
        CROSS JOIN LATERAL (SELECT loyalty_points_expiry_date(c.voucher->'loyalty_card'->'expiration_rules', (now() AT TIME ZONE p.time_zone)::date) AS expires_at) e
    ), bucket AS (
        INSERT INTO "loyalty_points_buckets" ("id", "project_id", "voucher_id", "campaign_id", "total_points", "remaining", "expires_at", "expire_after", "created_at")
        SELECT 'lopb_' || left(replace(gen_random_uuid()::text, '-', ''), 18), n.project_id, n.id, n.campaign_id, n.initial_points, n.initial_points,
               d.expires_at, d.expire_after, n.created_at
        FROM new_vouchers n JOIN dates d ON d.campaign_id = n.campaign_id
        WHERE n.initial_points > 0
        RETURNING "voucher_id", "expires_at", "remaining"
    )
    UPDATE "vouchers" v SET "next_expiration_date" = bucket.expires_at, "next_expiration_points" = bucket.remaining
    FROM bucket WHERE v.id = bucket.voucher_id AND bucket.expires_at IS NOT NULL;
    RETURN NULL;
END $$;
