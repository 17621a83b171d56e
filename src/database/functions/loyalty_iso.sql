-- A timestamp as the events carry it: rounded to the millisecond as the timestamptz(3) columns are, in the
-- format of JavaScript's toISOString(). STABLE, which it is (to_char of a timestamp is STABLE), not
-- IMMUTABLE: PostgreSQL inlines a SQL function only when its body is no more volatile than declared, and
-- every payload calls it many times per event (bench/README.md, "Pending points activation").
CREATE OR REPLACE FUNCTION "loyalty_iso"(ts timestamptz) RETURNS text LANGUAGE sql STABLE AS $$
    SELECT to_char(ts::timestamptz(3) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;
