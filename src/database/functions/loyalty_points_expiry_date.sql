-- The last day points credited on `activity` (a date in the project's time zone) can be spent, under a
-- campaign's or an earning rule's `expiration_rules`; NULL when there are no rules (the points never
-- expire). docs/points-expiry.md describes each rule with examples:
-- - MONTH: the activity date plus `period_value` months. PostgreSQL's month arithmetic clamps a day past
--   the target month's end to that end (31 Jan + 1 month = 28 Feb), as Voucherify documents.
-- - FIXED_DAY_OF_YEAR: the next `fixed_month`/`fixed_day` after the activity date (points credited on that
--   very day last until its next occurrence); a day past the month's end is the month's last day.
-- - rounding_type extends the date to the end of its month, quarter, half-year or year, or to the end of the
--   next month numbered `rounding_value` (PARTICULAR_MONTH, 1-12) on or after it.
-- PL/pgSQL rather than SQL: PostgreSQL cannot inline a SQL function of this shape, and one it does not inline
-- runs through the SQL-function executor on every call, many times slower (bench/README.md, "Point buckets").
-- Dates are truncated as timestamps without time zone, so the result never depends on the session's TimeZone.
CREATE OR REPLACE FUNCTION "loyalty_points_expiry_date"(rules jsonb, activity date) RETURNS date LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    d date;
    y int;
    month int;
BEGIN
    IF rules IS NULL THEN
        RETURN NULL;
    END IF;
    CASE rules->>'period_type'
        WHEN 'MONTH' THEN
            d := (activity + make_interval(months => coalesce((rules->>'period_value')::int, 0)))::date;
        WHEN 'FIXED_DAY_OF_YEAR' THEN
            month := (rules->>'fixed_month')::int;
            y := extract(year FROM activity)::int;
            LOOP
                d := (make_date(y, month, 1) + make_interval(days => least((rules->>'fixed_day')::int,
                         extract(day FROM make_date(y, month, 1) + interval '1 month - 1 day')::int) - 1))::date;
                EXIT WHEN d > activity;
                y := y + 1;
            END LOOP;
        ELSE
            RETURN NULL;
    END CASE;
    RETURN CASE rules->>'rounding_type'
        WHEN 'END_OF_MONTH' THEN (date_trunc('month', d::timestamp) + interval '1 month - 1 day')::date
        WHEN 'END_OF_QUARTER' THEN (date_trunc('quarter', d::timestamp) + interval '3 months - 1 day')::date
        WHEN 'END_OF_HALF_YEAR' THEN (date_trunc('year', d::timestamp) + CASE WHEN extract(month FROM d) <= 6 THEN interval '6 months' ELSE interval '12 months' END - interval '1 day')::date
        WHEN 'END_OF_YEAR' THEN (date_trunc('year', d::timestamp) + interval '1 year - 1 day')::date
        WHEN 'PARTICULAR_MONTH' THEN (make_date(extract(year FROM d)::int + CASE WHEN extract(month FROM d) <= (rules->>'rounding_value')::int THEN 0 ELSE 1 END,
                                                (rules->>'rounding_value')::int, 1) + interval '1 month - 1 day')::date
        ELSE d
    END;
END $$;
