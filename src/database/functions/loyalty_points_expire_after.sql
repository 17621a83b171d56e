-- The moment a bucket whose last day is `expires` expires: 00:00 of the next day in the project's time
-- zone `zone`. The session setting `loyalty.day_ms` (the service's PENDING_POINTS_DAY_MS, set on every
-- pooled connection; 86,400,000 when unset) shortens the time left until then in proportion, as it
-- shortens a pending period, so that tests see a day pass in a moment. At the real length of a day the
-- factor is 1 and the moment is exact, summer time included. NULL for points that never expire.
CREATE OR REPLACE FUNCTION "loyalty_points_expire_after"(expires date, zone text) RETURNS timestamptz LANGUAGE sql STABLE AS $$
    SELECT now() + ((expires + 1)::timestamp AT TIME ZONE zone - now())
                   * (coalesce(nullif(current_setting('loyalty.day_ms', true), ''), '86400000')::float8 / 86400000)
$$;
