-- An event's payload cut to `max_bytes` (EVENT_PAYLOAD_MAX_BYTES, which every statement that records events
-- passes as a parameter: eventsInsertSql), or returned as it is when it fits. An event is never dropped for its
-- size (docs/webhooks.md, "Size of an event", the table of what each event type may lose):
-- 0. A `big` value (below) longer than the bound on its own is left out first, as step 2 would leave it out
--    anyway: what follows then works on a small document. Each `#>`, json_each or json_array_length parses
--    the whole text of a json value, and an order's metadata alone may take most of the 1 MiB body limit: for
--    the 100 events of one such order (issue 36), steps 1–3 on the whole document took 3.1 s, 0.34 s after this.
-- 1. Its lists (`lists`: the ones an event has) are emptied, each counted whole in "<list>_omitted", to see
--    what the rest needs.
-- 2. If even that is over the bound, the values that are no list but may be large (`big`: metadata up to
--    the body limit, a campaign's description) are left out, the largest first, until it fits: a metadata
--    becomes {} and a description goes, each with "<name>_omitted": true next to it.
-- 3. The lists get back their first elements, as many as fit, the same number for each (an expiry's two
--    lists are of the same buckets), and "<list>_omitted" says how many more there were (added to a count
--    already there: the order summary's, loyalty_order_json).
-- The input limits keep what is left after 1 and 2 within the least bound the configuration accepts
-- (test/service/event-bounds.service-spec.ts). PL/pgSQL: only events over the bound come here (the INSERT of
-- eventsInsertSql checks the size first), so the common case costs no function call.
CREATE OR REPLACE FUNCTION "loyalty_event_fit"(data json, max_bytes int) RETURNS json LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    lists CONSTANT text[] := ARRAY['order.items', 'buckets', 'transaction.details.buckets'];
    big CONSTANT text[] := ARRAY['customer.metadata', 'campaign.metadata', 'order.metadata', 'campaign.description'];
    present text[] := '{}';
    list text;
    path text[];
    base json;
    largest text;
    room bigint;
    keep bigint;
    total int;
    counted int;
    keys text[];
    vals json[];
    fkeys text[];
    fvals json[];
    oversized text[];
    field text;
    shed boolean := false;
BEGIN
    IF octet_length(data::text) <= max_bytes THEN
        RETURN data;
    END IF;
    IF json_typeof(data) = 'object' THEN
        SELECT array_agg(e.key ORDER BY e.n), array_agg(e.value ORDER BY e.n) INTO keys, vals FROM json_each(data) WITH ORDINALITY AS e(key, value, n);
    END IF;
    FOR i IN 1 .. coalesce(cardinality(keys), 0) LOOP
        CONTINUE WHEN octet_length(vals[i]::text) <= max_bytes OR json_typeof(vals[i]) <> 'object';
        SELECT array_agg(f.key ORDER BY f.n), array_agg(f.value ORDER BY f.n) INTO fkeys, fvals FROM json_each(vals[i]) WITH ORDINALITY AS f(key, value, n);
        oversized := '{}';
        FOR j IN 1 .. coalesce(cardinality(fkeys), 0) LOOP
            IF keys[i] || '.' || fkeys[j] = ANY (big) AND octet_length(fvals[j]::text) > max_bytes THEN
                fvals[j] := '{}';
                oversized := oversized || fkeys[j];
            END IF;
        END LOOP;
        CONTINUE WHEN cardinality(oversized) = 0;
        vals[i] := (SELECT json_object_agg(f.k, f.v ORDER BY f.n) FROM unnest(fkeys, fvals) WITH ORDINALITY AS f(k, v, n));
        FOREACH field IN ARRAY oversized LOOP
            vals[i] := loyalty_json_put(vals[i], ARRAY[field], CASE WHEN field = 'metadata' THEN '{}'::json END, 'true');
        END LOOP;
        shed := true;
    END LOOP;
    IF shed THEN
        data := (SELECT json_object_agg(e.k, e.v ORDER BY e.n) FROM unnest(keys, vals) WITH ORDINALITY AS e(k, v, n));
    END IF;
    FOREACH list IN ARRAY lists LOOP
        IF json_typeof(data #> string_to_array(list, '.')) = 'array' THEN
            present := present || list;
        END IF;
    END LOOP;
    base := data;
    FOREACH list IN ARRAY present LOOP
        path := string_to_array(list, '.');
        counted := coalesce((data #>> (path[1:cardinality(path) - 1] || (path[cardinality(path)] || '_omitted')))::int, 0);
        base := loyalty_json_put(base, path, '[]', to_json(counted + json_array_length(data #> path)));
    END LOOP;
    LOOP
        EXIT WHEN octet_length(base::text) <= max_bytes;
        SELECT b INTO largest FROM unnest(big) AS b
        WHERE octet_length((base #> string_to_array(b, '.'))::text) > 2
        ORDER BY octet_length((base #> string_to_array(b, '.'))::text) DESC LIMIT 1;
        EXIT WHEN largest IS NULL;
        path := string_to_array(largest, '.');
        base := loyalty_json_put(base, path, CASE WHEN largest LIKE '%.metadata' THEN '{}'::json END, 'true');
        data := loyalty_json_put(data, path, CASE WHEN largest LIKE '%.metadata' THEN '{}'::json END, 'true');
    END LOOP;
    room := max_bytes - octet_length(base::text);
    -- Each element costs its text and the ", " before it (one separator too many: a margin of 2 bytes a list).
    SELECT coalesce(max(r.n), 0) INTO keep FROM (
        SELECT per.n, sum(per.bytes) OVER (ORDER BY per.n) AS used
        FROM (SELECT e.n, sum(octet_length(e.value::text) + 2) AS bytes
              FROM unnest(present) AS l, json_array_elements(data #> string_to_array(l, '.')) WITH ORDINALITY AS e(value, n)
              GROUP BY e.n) per
    ) r WHERE r.used <= room;
    FOREACH list IN ARRAY present LOOP
        path := string_to_array(list, '.');
        total := json_array_length(data #> path);
        counted := coalesce((data #>> (path[1:cardinality(path) - 1] || (path[cardinality(path)] || '_omitted')))::int, 0) + total - least(keep, total)::int;
        data := loyalty_json_put(data, path,
            (SELECT coalesce(json_agg(e.value ORDER BY e.n), '[]'::json) FROM json_array_elements(data #> path) WITH ORDINALITY AS e(value, n) WHERE e.n <= keep),
            CASE WHEN counted > 0 THEN to_json(counted) END);
    END LOOP;
    RETURN data;
END $$;
