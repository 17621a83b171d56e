-- The last day points credited on `activity` (a date in the project's time zone) can be spent, under a
-- campaign's or an earning rule's `expiration_rules`; NULL when there are no rules (the points never
-- expire). docs/points-expiry.md describes each rule with examples:
-- - MONTH: the activity date plus `period_value` months. PostgreSQL's month arithmetic clamps a day past
--   the target month's end to that end (31 Jan + 1 month = 28 Feb), as Voucherify documents.
-- - FIXED_DAY_OF_YEAR: the next `fixed_month`/`fixed_day` after the activity date (points credited on that
--   very day last until its next occurrence); a day past the month's end is the month's last day.
-- - rounding_type extends the date to the end of its month, quarter, half-year or year, or to the end of the
--   next month numbered `rounding_value` (PARTICULAR_MONTH, 1-12) on or after it.
-- IMMUTABLE: a pure function of its arguments, so the planner may inline and fold it.
CREATE OR REPLACE FUNCTION "loyalty_points_expiry_date"(rules jsonb, activity date) RETURNS date LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE rules->>'rounding_type'
        WHEN 'END_OF_MONTH' THEN (date_trunc('month', d) + interval '1 month - 1 day')::date
        WHEN 'END_OF_QUARTER' THEN (date_trunc('quarter', d) + interval '3 months - 1 day')::date
        WHEN 'END_OF_HALF_YEAR' THEN (date_trunc('year', d) + CASE WHEN extract(month FROM d) <= 6 THEN interval '6 months' ELSE interval '12 months' END - interval '1 day')::date
        WHEN 'END_OF_YEAR' THEN (date_trunc('year', d) + interval '1 year - 1 day')::date
        WHEN 'PARTICULAR_MONTH' THEN (make_date(extract(year FROM d)::int + CASE WHEN extract(month FROM d) <= (rules->>'rounding_value')::int THEN 0 ELSE 1 END,
                                                (rules->>'rounding_value')::int, 1) + interval '1 month - 1 day')::date
        ELSE d
    END
    FROM (SELECT CASE rules->>'period_type'
        WHEN 'MONTH' THEN (activity + make_interval(months => coalesce((rules->>'period_value')::int, 0)))::date
        WHEN 'FIXED_DAY_OF_YEAR' THEN (
            SELECT min(day) FROM (
                SELECT (make_date(y, (rules->>'fixed_month')::int, 1)
                        + (least((rules->>'fixed_day')::int,
                                 extract(day FROM make_date(y, (rules->>'fixed_month')::int, 1) + interval '1 month - 1 day')::int) - 1))::date AS day
                FROM (VALUES (extract(year FROM activity)::int), (extract(year FROM activity)::int + 1)) AS years(y)
            ) candidates WHERE day > activity)
    END AS d) base
$$;
