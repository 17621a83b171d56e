-- The relay's outbox: a narrow row per new event, written in the event's transaction by the statement-level
-- trigger "events_outbox" (AFTER INSERT ON "events"). NOTIFY is delivered at commit, once per transaction
-- and channel: the relay wakes when events exist, once for a statement of many. A missed one (no worker
-- listening) is covered by the webhook sweep.
CREATE OR REPLACE FUNCTION "events_outbox"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO "event_outbox" ("seq", "event_id", "project_id", "type") SELECT "seq", "id", "project_id", "type" FROM new_events;
    PERFORM pg_notify('loyalty_events', '');
    RETURN NULL;
END $$;
