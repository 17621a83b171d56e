-- An id of an append-only log that grows with time (the ledger's `vtx_`, the events' `evcus_`): the prefix,
-- 13 hex characters of the microsecond it was made (clock_timestamp: each row of a statement its own moment),
-- then 9 random hex characters (36 bits) for the rows of concurrent statements made in the same microsecond.
-- Random ids put each of a batch's thousands of rows on a random leaf page of a primary key that outgrows the
-- server's memory; these land at its right edge (bench/README.md, "Activation by cohort", on a large database).
-- VOLATILE, as its body is: PostgreSQL inlines it into the statement, so it costs no function call per row.
CREATE OR REPLACE FUNCTION "loyalty_time_id"(prefix text) RETURNS text LANGUAGE sql VOLATILE AS $$
    SELECT prefix || lpad(to_hex((date_part('epoch', clock_timestamp()) * 1000000)::bigint), 13, '0')
        || lpad(to_hex(floor(random() * 68719476736)::bigint), 9, '0')
$$;
