-- `obj` with the value at `path` replaced by `val` (removed when `val` is NULL), every key kept where it was
-- (a json object keeps the order it was written in; jsonb_set would sort the keys). `mark`, when not NULL, is
-- written as "<last key>_omitted" right after it, replacing one already there; a NULL `mark` removes that key.
-- loyalty_event_fit cuts events with it (docs/webhooks.md, "Size of an event").
CREATE OR REPLACE FUNCTION "loyalty_json_put"(obj json, path text[], val json, mark json) RETURNS json LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    field CONSTANT text := path[1];
    at_end CONSTANT boolean := cardinality(path) = 1;
BEGIN
    IF NOT at_end THEN
        val := loyalty_json_put(obj -> field, path[2:], val, mark);
    END IF;
    RETURN (
        SELECT coalesce(json_object_agg(f.k, f.v ORDER BY f.n, f.after), '{}'::json)
        FROM (
            SELECT e.k, CASE WHEN e.k = field THEN val ELSE e.v END AS v, e.n, 0 AS after
            FROM json_each(obj) WITH ORDINALITY AS e(k, v, n)
            WHERE (e.k <> field OR val IS NOT NULL) AND NOT (at_end AND e.k = field || '_omitted')
            UNION ALL
            SELECT field || '_omitted', mark, e.n, 1
            FROM json_each(obj) WITH ORDINALITY AS e(k, v, n)
            WHERE at_end AND mark IS NOT NULL AND e.k = field
        ) f
    );
END $$;
