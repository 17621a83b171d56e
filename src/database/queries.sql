-- The SQL statements of src, as test/e2e/sql-sources.e2e-spec.ts PREPAREs them against the migrated schema:
-- every SQL literal with its ${…} pieces evaluated in its file, every exported prepared(…) statement, and the
-- member list's pages. A statement marked "per call" takes pieces from each call; it is shown as written.
-- Generated: do not edit. After changing SQL, run `npm run sql:update` and commit this file with the change.

-- app/database/migrate.ts: migrateDatabase
SELECT pg_advisory_lock($1);

-- app/database/migrate.ts: migrateDatabase #2
SELECT pg_advisory_unlock($1);

-- async-actions/async-action.repository.ts: AsyncActionRepository.reportProgress
UPDATE async_actions SET progress = $2 WHERE id = $1 AND status = 'IN_PROGRESS' AND progress < $2;

-- async-actions/async-action.repository.ts: AsyncActionRepository.finish
UPDATE async_actions SET status = 'DONE', progress = 100, result = $2, updated_at = greatest(clock_timestamp(), created_at) WHERE id = $1 AND status = 'IN_PROGRESS';

-- async-actions/async-action.repository.ts: AsyncActionRepository.deleteExpired
WITH gone AS (
  DELETE FROM async_actions WHERE id IN (
    SELECT id FROM async_actions WHERE created_at < now() - $1 * interval '1 millisecond' LIMIT $2 FOR UPDATE SKIP LOCKED
  )
  RETURNING 1
)
SELECT count(*)::int AS n FROM gone;

-- auth/project.repository.ts: FIND_KEY
SELECT k.project_id, k.token_sha256, k.name, p.areas_and_stores FROM app_keys k JOIN projects p ON p.id = k.project_id WHERE k.app_id = $1;

-- auth/project.repository.ts: ProjectRepository.setTimeZone
SELECT now() AT TIME ZONE $1;

-- auth/project.repository.ts: ProjectRepository.addKey
INSERT INTO app_keys (app_id, project_id, token_sha256, name)
SELECT $1, p.id, $3, COALESCE($4, CASE WHEN EXISTS (SELECT 1 FROM app_keys o WHERE o.project_id = p.id) THEN 'Key ' || to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD') ELSE $5 END)
  FROM projects p WHERE p.id = $2
RETURNING name;

-- auth/project.repository.ts: ProjectRepository.listKeys
SELECT k.app_id, k.name, k.created_at FROM projects p LEFT JOIN app_keys k ON k.project_id = p.id WHERE p.id = $1 ORDER BY k.created_at, k.app_id;

-- auth/project.repository.ts: ProjectRepository.revokeKey
SELECT p.id FROM projects p WHERE p.id = (SELECT project_id FROM app_keys WHERE app_id = $1) FOR UPDATE;

-- auth/project.repository.ts: ProjectRepository.revokeKey #2
SELECT count(*)::int AS keys FROM app_keys WHERE project_id = $1;

-- auth/project.repository.ts: ProjectRepository.revokeKey #3
DELETE FROM app_keys WHERE app_id = $1 RETURNING app_id;

-- campaigns/campaign-deletion.repository.ts: CampaignDeletionRepository.claim
UPDATE campaigns c
   SET deletion_turn_at = clock_timestamp(), deletion_lease_until = clock_timestamp() + make_interval(secs => $1::int / 1000.0)
  FROM (SELECT n.id FROM campaigns n
         CROSS JOIN LATERAL (SELECT max(s.deletion_turn_at) AS served_at FROM campaigns s
                             WHERE s.project_id = n.project_id AND s.deletion_action_id IS NOT NULL) p
         WHERE n.deletion_action_id IS NOT NULL AND (n.deletion_lease_until IS NULL OR n.deletion_lease_until <= clock_timestamp())
         ORDER BY p.served_at ASC NULLS FIRST, n.deletion_turn_at ASC NULLS FIRST, n.id
         LIMIT 1
           FOR UPDATE OF n SKIP LOCKED) next
 WHERE c.id = next.id
RETURNING c.id, c.project_id, c.deletion_action_id;

-- campaigns/campaign-deletion.repository.ts: CampaignDeletionRepository.holdAfterFailure
UPDATE campaigns SET deletion_lease_until = clock_timestamp() + make_interval(secs => $2::int / 1000.0) WHERE id = $1;

-- campaigns/campaign-deletion.repository.ts: CampaignDeletionRepository.batchDone
UPDATE campaigns SET vouchers_count = greatest(vouchers_count - $2, 0), deletion_lease_until = NULL WHERE id = $1 RETURNING vouchers_target, vouchers_count;

-- campaigns/campaign-deletion.repository.ts: CampaignDeletionRepository.finish
SELECT vouchers_target FROM campaigns WHERE id = $1 AND deletion_action_id IS NOT NULL FOR UPDATE;

-- campaigns/campaign-deletion.repository.ts: CampaignDeletionRepository.finish #2
SELECT 1 FROM vouchers WHERE campaign_id = $1 LIMIT 1;

-- campaigns/campaign-deletion.repository.ts: CampaignDeletionRepository.finish #3
DELETE FROM campaigns WHERE id = $1;

-- campaigns/campaign.repository.ts: COUNT_ENROLMENT_CARD
UPDATE campaigns SET vouchers_count = vouchers_count + 1, vouchers_target = vouchers_target + 1 WHERE id = $1;

-- campaigns/campaign.repository.ts: CampaignRepository.lockForDeletion
SELECT protected, vouchers_count FROM campaigns WHERE project_id = $1 AND id = $2 AND deleted_at IS NULL FOR NO KEY UPDATE;

-- campaigns/campaign.repository.ts: CampaignRepository.markForDeletion
UPDATE campaigns SET deleted_at = now(), deletion_action_id = $3, vouchers_target = vouchers_count WHERE project_id = $1 AND id = $2 AND deleted_at IS NULL;

-- campaigns/campaign.repository.ts: CampaignRepository.countGeneratedCards
UPDATE campaigns SET vouchers_count = vouchers_count + $2
WHERE id = $1 AND deleted_at IS NULL AND vouchers_generation_status = 'IN_PROGRESS' AND vouchers_count + $2 <= vouchers_target
RETURNING 1;

-- campaigns/card-turn.repository.ts: CardTurnRepository.claim
UPDATE campaigns c
   SET generation_turn_at = clock_timestamp(), generation_lease_until = clock_timestamp() + make_interval(secs => $1::int / 1000.0)
  FROM (SELECT n.id FROM campaigns n
         CROSS JOIN LATERAL (SELECT max(s.generation_turn_at) AS served_at FROM campaigns s WHERE s.project_id = n.project_id) p
         WHERE n.vouchers_generation_status = 'IN_PROGRESS' AND n.deleted_at IS NULL
           AND (n.generation_lease_until IS NULL OR n.generation_lease_until <= clock_timestamp())
         ORDER BY p.served_at ASC NULLS FIRST, n.generation_turn_at ASC NULLS FIRST, n.created_at, n.id
         LIMIT 1
           FOR UPDATE OF n SKIP LOCKED) next
 WHERE c.id = next.id
RETURNING c.id, c.project_id, c.voucher, c.vouchers_target, c.vouchers_count;

-- campaigns/card-turn.repository.ts: CardTurnRepository.release
UPDATE campaigns SET generation_lease_until = NULL, generation_failures = 0 WHERE id = $1;

-- campaigns/card-turn.repository.ts: CardTurnRepository.recordFailure
UPDATE campaigns
  SET generation_failures = generation_failures + 1,
      generation_lease_until = clock_timestamp() + make_interval(secs => $2::int / 1000.0 * power(2, generation_failures))
WHERE id = $1 RETURNING generation_failures;

-- campaigns/card-turn.repository.ts: CardTurnRepository.nextRetryAt
SELECT min(coalesce(generation_lease_until, clock_timestamp())) AS at FROM campaigns
WHERE vouchers_generation_status = 'IN_PROGRESS' AND deleted_at IS NULL AND (generation_lease_until IS NULL OR generation_lease_until <= clock_timestamp()
                   OR (generation_failures > 0 AND generation_lease_until <= clock_timestamp() + make_interval(secs => $1::int / 1000.0)));

-- cards/card-issue.repository.ts: INSERT
INSERT INTO vouchers (id, project_id, campaign_id, code, initial_points, points, balance)
SELECT t.id, $3, $4, t.code, $5::int, $5::int, $5::int FROM unnest($1::text[], $2::text[]) AS t(id, code);

-- cards/card-issue.repository.ts: PUBLISH_FREE
UPDATE vouchers SET member_id = $1, holder_id = $2, published_at = now(), updated_at = now()
WHERE id = (SELECT id FROM vouchers WHERE campaign_id = $3 AND member_id IS NULL LIMIT 1 FOR UPDATE SKIP LOCKED)
RETURNING id;

-- cards/card-issue.repository.ts: CREATE_PUBLISHED
INSERT INTO vouchers (id, project_id, campaign_id, code, initial_points, points, balance, member_id, holder_id, published_at, updated_at)
VALUES ($1, $2, $3, $4, $5::int, $5::int, $5::int, $6, $7, now(), now())
ON CONFLICT (project_id, code) DO NOTHING RETURNING id;

-- cards/card-issue.repository.ts: CardIssueRepository.insertBatch (per call)
WITH ins AS (${insert} RETURNING 1) SELECT count(*)::int AS n FROM ins;

-- cards/card-issue.repository.ts: CardIssueRepository.publishCode
UPDATE vouchers SET member_id = $1, holder_id = $2, published_at = now(), updated_at = now() WHERE project_id = $3 AND campaign_id = $4 AND code = $5 AND member_id IS NULL RETURNING id;

-- cards/card.repository.ts: LOCK (prepared cards_lock)
SELECT id, points, balance, pending_points, redeemed_points, redeemed_quantity, updated_at FROM vouchers WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE;

-- cards/card.repository.ts: cardDeltasSql (per call)
UPDATE vouchers v SET points = v.points + d.points, balance = v.balance + d.points - d.removed - d.expired - d.redeemed,
  pending_points = v.pending_points + d.pending, subtracted_points = v.subtracted_points + d.removed, expired_points = v.expired_points + d.expired,
  redeemed_points = v.redeemed_points + d.redeemed, redeemed_quantity = v.redeemed_quantity + d.redemptions, added_points = v.added_points + d.added,
  pending_activated_points = v.pending_activated_points + d.activated, pending_canceled_points = v.pending_canceled_points + d.canceled,
  updated_at = now()${next}
FROM ${rows}
WHERE v.id = d.id;

-- cards/card.repository.ts: nextExpirationSql (per call)
UPDATE vouchers v SET next_expiration_date = n.day, next_expiration_points = n.points
FROM ${rows}
WHERE v.id = n.id AND (v.next_expiration_date IS DISTINCT FROM n.day OR v.next_expiration_points <> n.points);

-- cards/card.repository.ts: APPLY (prepared cards_apply)
UPDATE vouchers v SET points = v.points + d.points, balance = v.balance + d.points - d.removed - d.expired - d.redeemed,
  pending_points = v.pending_points + d.pending, subtracted_points = v.subtracted_points + d.removed, expired_points = v.expired_points + d.expired,
  redeemed_points = v.redeemed_points + d.redeemed, redeemed_quantity = v.redeemed_quantity + d.redemptions, added_points = v.added_points + d.added,
  pending_activated_points = v.pending_activated_points + d.activated, pending_canceled_points = v.pending_canceled_points + d.canceled,
  updated_at = now()
FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[]) AS d(id, points, pending, removed, added, canceled, activated, expired, redeemed, redemptions)
WHERE v.id = d.id
RETURNING v.id, v.points, v.balance, v.pending_points, v.redeemed_points, v.redeemed_quantity, v.updated_at;

-- cards/card.repository.ts: CURRENT (prepared cards_current)
SELECT id, points, balance, pending_points, redeemed_points, redeemed_quantity, updated_at FROM vouchers WHERE id = ANY($1::text[]);

-- cards/card.repository.ts: RELEASE_EXPIRY
UPDATE vouchers v SET expiry_error = NULL, expiry_set_aside_at = NULL
WHERE v.id IN (SELECT id FROM vouchers WHERE expiry_error IS NOT NULL AND ($1::text[] IS NULL OR id = ANY($1::text[])) AND ($2::text IS NULL OR project_id = $2)
                 AND expiry_set_aside_at <= now() - make_interval(secs => $3::float8 / 1000)
               ORDER BY id FOR NO KEY UPDATE SKIP LOCKED)
RETURNING v.id;

-- cards/card.repository.ts: CardRepository.lockForOrder
SELECT id FROM vouchers WHERE id IN (SELECT voucher_id FROM loyalty_pending_points WHERE order_id = $1 AND status = 'PENDING')
ORDER BY id FOR NO KEY UPDATE;

-- cards/card.repository.ts: CardRepository.idsOfCampaign
SELECT id FROM vouchers WHERE campaign_id = $1 LIMIT $2;

-- cards/card.repository.ts: CardRepository.deleteLocked
DELETE FROM vouchers WHERE id = ANY($1::text[]) RETURNING member_id;

-- cards/card.repository.ts: CardRepository.lockAvailable
SELECT id FROM vouchers WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE SKIP LOCKED;

-- cards/card.repository.ts: CardRepository.setExpiryAside
UPDATE vouchers v SET expiry_error = f.error, expiry_set_aside_at = now() FROM unnest($1::text[], $2::text[]) AS f(id, error) WHERE v.id = f.id;

-- customers/customer.repository.ts: ENSURE_BY_SOURCE_ID (prepared customers_ensure)
WITH made AS (
  INSERT INTO customers (id, project_id, source_id)
  SELECT w.id, $1, w.source_id FROM unnest($2::text[], $3::text[]) AS w(source_id, id) ORDER BY w.source_id
  ON CONFLICT (project_id, source_id) WHERE source_id IS NOT NULL DO NOTHING
  RETURNING id, project_id, source_id, name, description, email, phone, birthdate, address, metadata, created_at, updated_at
)
SELECT * FROM made
UNION ALL
SELECT id, project_id, source_id, name, description, email, phone, birthdate, address, metadata, created_at, updated_at FROM customers WHERE project_id = $1 AND source_id = ANY($2::text[]) AND source_id NOT IN (SELECT source_id FROM made);

-- customers/customer.repository.ts: BY_ID (prepared customers_by_id)
SELECT id, project_id, source_id, name, description, email, phone, birthdate, address, metadata, created_at, updated_at FROM customers WHERE project_id = $1 AND id = ANY($2::text[]);

-- customers/customer.repository.ts: BY_SOURCE_ID (prepared customers_by_source_id)
SELECT id, project_id, source_id, name, description, email, phone, birthdate, address, metadata, created_at, updated_at FROM customers WHERE project_id = $1 AND source_id = $2;

-- customers/customer.repository.ts: CustomerRepository.insert (per call)
INSERT INTO customers (id, project_id, source_id${columns.map(([name]) => `, ${name}`).join('')})
VALUES ($1, $2, $3${columns.map((_, i) => `, $${i + 4}`).join('')})
${onConflict} RETURNING ${CUSTOMER_COLUMNS};

-- customers/customer.repository.ts: CustomerRepository.pointsByCampaign
SELECT c.name AS campaign, sum(v.balance)::float8 AS points, sum(v.redeemed_points)::float8 AS redeemed
FROM vouchers v
JOIN members m ON m.id = v.member_id AND m.status <> 'DELETED'
JOIN campaigns c ON c.id = v.campaign_id AND c.deleted_at IS NULL
WHERE v.holder_id = $1 AND v.project_id = $2
GROUP BY c.name ORDER BY c.name;

-- database/ensure-database.ts: ensureDatabase
SELECT 1 FROM pg_database WHERE datname = $1;

-- database/sql-functions.ts: applySqlFunctions
SELECT set_config('check_function_bodies', 'off', true), current_setting('check_function_bodies') AS before;

-- database/sql-functions.ts: applySqlFunctions #2
SELECT set_config('check_function_bodies', $1, true);

-- diagnostics/diagnostic-ping.repository.ts: DiagnosticPingRepository.claimStale
WITH due AS MATERIALIZED (
  SELECT p.id FROM projects p WHERE EXISTS (SELECT 1 FROM diagnostic_pings d WHERE d.project_id = p.id AND d.status = 'QUEUED' AND coalesce(d.swept_at, d.created_at) < now() - $1 * interval '1 millisecond')
), share AS MATERIALIZED (
  SELECT ceil($2::numeric / greatest(count(*), 1))::int AS n FROM due
), first AS MATERIALIZED (
  SELECT due.id AS project_id, s.id, s.since FROM due CROSS JOIN LATERAL (
    SELECT d.id, coalesce(d.swept_at, d.created_at) AS since FROM diagnostic_pings d
    WHERE d.project_id = due.id AND d.status = 'QUEUED' AND coalesce(d.swept_at, d.created_at) < now() - $1 * interval '1 millisecond' ORDER BY coalesce(d.swept_at, d.created_at) LIMIT (SELECT n FROM share)
  ) s
), more AS MATERIALIZED (
  SELECT project_id FROM first GROUP BY project_id HAVING count(*) = (SELECT n FROM share)
), second AS (
  SELECT s.id, s.since FROM more CROSS JOIN LATERAL (
    SELECT d.id, coalesce(d.swept_at, d.created_at) AS since FROM diagnostic_pings d
    WHERE d.project_id = more.project_id AND d.status = 'QUEUED' AND coalesce(d.swept_at, d.created_at) < now() - $1 * interval '1 millisecond' ORDER BY coalesce(d.swept_at, d.created_at)
    OFFSET (SELECT n FROM share)
    LIMIT (SELECT greatest(0, ceil(($2 - (SELECT count(*) FROM first))::numeric / greatest(count(*), 1)))::int FROM more)
  ) s
), picked AS (
  SELECT id FROM (SELECT 1 AS pass, id, since FROM first UNION ALL SELECT 2, id, since FROM second) c
  ORDER BY pass, since, id LIMIT $2
), locked AS (
  SELECT d.id FROM diagnostic_pings d WHERE d.id = ANY (ARRAY(SELECT id FROM picked)) AND d.status = 'QUEUED' AND coalesce(d.swept_at, d.created_at) < now() - $1 * interval '1 millisecond' FOR UPDATE SKIP LOCKED
)
UPDATE diagnostic_pings SET swept_at = now() WHERE id = ANY (ARRAY(SELECT id FROM locked))
RETURNING id, requeue_count;

-- diagnostics/diagnostic-ping.repository.ts: DiagnosticPingRepository.requeueOrGiveUp
UPDATE diagnostic_pings SET status = CASE WHEN requeue_count >= $2 THEN 'FAILED' ELSE status END,
       requeue_count = requeue_count + CASE WHEN requeue_count >= $2 THEN 0 ELSE 1 END
WHERE id = ANY ($1::text[]) AND status = 'QUEUED'
RETURNING id, status;

-- events/delivery/deliveries.repository.ts: CONTEXT
WITH one AS (SELECT * FROM webhook_deliveries WHERE id = $1 AND distribution_id = $2 AND project_id = $3)

SELECT c.id, c.project_id, c.created_at, c.attempts_count, c.first_attempt_at, c.manual, c.test, c.load_failures, c.lease_until,
       dist.id AS distribution_id, dist.target_url, dist.custom_headers, dist.event_name, dist.trigger,
       ev.id AS event_id, ev.type AS event_type, ev.created_at AS event_created_at, ev.entity_id, ev.group_id, ev.event_source,
       pg_column_size(ev.data) AS event_stored_bytes, ev.data::text AS data,
       s.secret, s.previous_secret, s.previous_expires_at
FROM one c
JOIN distributions dist ON dist.id = c.distribution_id
LEFT JOIN events ev ON ev.id = c.event_id
LEFT JOIN webhook_secrets s ON s.project_id = c.project_id;

-- events/delivery/deliveries.repository.ts: DeliveriesRepository.redeliver
UPDATE webhook_deliveries SET manual = (status <> 'PENDING' OR manual), status = 'PENDING', next_attempt_at = (SELECT CASE WHEN dist.status = 'ACTIVE' THEN now() END FROM distributions dist WHERE dist.id = webhook_deliveries.distribution_id)
WHERE id = $1 AND distribution_id = $2 AND project_id = $3 RETURNING id;

-- events/delivery/deliveries.repository.ts: DeliveriesRepository.insertTest
INSERT INTO webhook_deliveries (id, project_id, distribution_id, event_id, event_type, next_attempt_at, manual, test)
SELECT id, $1, $2, 'evtest_' || substr(id, 5), $3, (SELECT CASE WHEN dist.status = 'ACTIVE' THEN now() END FROM distributions dist WHERE dist.id = $2), true, true
FROM (SELECT 'whs_' || left(replace(gen_random_uuid()::text, '-', ''), 18) AS id) n
RETURNING id;

-- events/delivery/deliveries.repository.ts: DeliveriesRepository.stats
SELECT d.id, d.status, a.at, a.status_code FROM webhook_deliveries d
LEFT JOIN LATERAL (SELECT at, status_code FROM webhook_attempts WHERE delivery_id = d.id ORDER BY id DESC LIMIT 1) a ON true
WHERE d.distribution_id = $1 ORDER BY d.seq DESC LIMIT 1;

-- events/delivery/deliveries.repository.ts: DeliveriesRepository.stats #2
SELECT status, count(*)::int AS n FROM (
  SELECT status, created_at FROM webhook_deliveries WHERE distribution_id = $1 ORDER BY seq DESC LIMIT $2
) newest WHERE created_at > now() - interval '24 hours' GROUP BY status;

-- events/delivery/deliveries.repository.ts: DeliveriesRepository.countFailedSince
SELECT count(*)::int AS n
FROM (SELECT 1 FROM webhook_deliveries WHERE distribution_id = $1 AND status = 'FAILED' AND created_at >= $2 ORDER BY created_at DESC, id DESC LIMIT $3) recent;

-- events/delivery/delivery.sql.ts: contextFrom (per call)
SELECT c.id, c.project_id, c.created_at, c.attempts_count, c.first_attempt_at, c.manual, c.test, c.load_failures, c.lease_until,
       dist.id AS distribution_id, dist.target_url, dist.custom_headers, dist.event_name, dist.trigger,
       ev.id AS event_id, ev.type AS event_type, ev.created_at AS event_created_at, ev.entity_id, ev.group_id, ev.event_source,
       pg_column_size(ev.data) AS event_stored_bytes${payload ? ', ev.data::text AS data' : ''},${
         inline
           ? `
       CASE WHEN sum(octet_length(inl.text)) OVER (ORDER BY c.id ROWS UNBOUNDED PRECEDING) <= ${inline.room} THEN inl.text END AS inline_data,
       CASE WHEN sum(octet_length(inl.text)) OVER (ORDER BY c.id ROWS UNBOUNDED PRECEDING) <= ${inline.room} THEN octet_length(inl.text) END AS inline_bytes,`
           : ''
       }
       s.secret, s.previous_secret, s.previous_expires_at
FROM ${source} c
JOIN distributions dist ON dist.id = c.distribution_id
LEFT JOIN events ev ON ev.id = c.event_id
LEFT JOIN webhook_secrets s ON s.project_id = c.project_id${
  inline
    ? `
LEFT JOIN LATERAL (SELECT CASE WHEN pg_column_size(ev.data) <= ${inline.maxStored} THEN ev.data::text END AS text OFFSET 0) inl ON true`
    : ''
};

-- events/delivery/delivery.sql.ts: PARK
UPDATE webhook_deliveries SET next_attempt_at = NULL WHERE distribution_id = $1 AND status = 'PENDING';

-- events/delivery/worker/dispatch.repository.ts: RECORD_AND_CLAIM_DUE
WITH RECURSIVE
input AS (
  SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::int[], $4::int[], $5::text[], $6::text[], $7::text[], $8::timestamptz[])
    AS t(delivery_id, at, status_code, duration_ms, error, response_excerpt, status, next_attempt_at)
), recorded AS (
  UPDATE webhook_deliveries d SET status = i.status, attempts_count = d.attempts_count + 1, first_attempt_at = coalesce(d.first_attempt_at, i.at),
    next_attempt_at = i.next_attempt_at, delivered_at = CASE WHEN i.status = 'SUCCEEDED' THEN now() END, lease_until = NULL, manual = false,
    load_failures = 0
  FROM input i WHERE d.id = ANY($1::text[]) AND d.id = i.delivery_id AND (SELECT set_config('synchronous_commit', 'off', true)) IS NOT NULL
  RETURNING d.id
), att AS (
  INSERT INTO webhook_attempts (delivery_id, at, status_code, duration_ms, error, response_excerpt)
  SELECT i.delivery_id, i.at, i.status_code, i.duration_ms, i.error, i.response_excerpt FROM input i JOIN recorded r ON r.id = i.delivery_id
),
load AS (
  SELECT * FROM unnest($9::text[], $10::int[]) AS l(distribution_id, in_flight)
), project_load AS (
  SELECT l.project_id, l.in_flight, least(coalesce(l.cap, $18::int), $18::int) AS cap
  FROM unnest($15::text[], $16::int[], $17::int[]) AS l(project_id, in_flight, cap)
), walk AS (
  SELECT f.project_id, f.project_id AS first, 1 AS pos, f.due, f.eligible, f.eligible::int AS found
  FROM (SELECT n.project_id, n.due, n.due AND coalesce((SELECT least(pl.cap, $19::int) - pl.in_flight FROM project_load pl WHERE pl.project_id = n.project_id), least($23::int, $19::int)) > 0 AS eligible
        FROM (SELECT n.project_id, coalesce(n.next_attempt_at <= now(), false) AS due FROM (
  (SELECT d.project_id, d.next_attempt_at FROM webhook_deliveries d
   WHERE d.status = 'PENDING' AND d.project_id > $20::text ORDER BY d.project_id, d.next_attempt_at LIMIT 1)
  UNION ALL
  (SELECT d.project_id, d.next_attempt_at FROM webhook_deliveries d
   WHERE d.status = 'PENDING' ORDER BY d.project_id, d.next_attempt_at LIMIT 1)
  LIMIT 1) n) n) f
  UNION ALL
  SELECT f.project_id, w.first, w.pos + 1, f.due, f.eligible, w.found + f.eligible::int
  FROM walk w CROSS JOIN LATERAL (
    SELECT n.project_id, n.due, n.due AND coalesce((SELECT least(pl.cap, $19::int) - pl.in_flight FROM project_load pl WHERE pl.project_id = n.project_id), least($23::int, $19::int)) > 0 AS eligible
    FROM (SELECT n.project_id, coalesce(n.next_attempt_at <= now(), false) AS due FROM (
  (SELECT d.project_id, d.next_attempt_at FROM webhook_deliveries d
   WHERE d.status = 'PENDING' AND d.project_id > w.project_id ORDER BY d.project_id, d.next_attempt_at LIMIT 1)
  UNION ALL
  (SELECT d.project_id, d.next_attempt_at FROM webhook_deliveries d
   WHERE d.status = 'PENDING' ORDER BY d.project_id, d.next_attempt_at LIMIT 1)
  LIMIT 1) n) n
  ) f
  WHERE f.project_id <> w.first AND w.found < $14 AND w.pos < 1000
), share AS (
  SELECT greatest(1, least($18::int, $24::int / (1 + (SELECT count(*) FROM (SELECT project_id FROM walk WHERE due UNION SELECT project_id FROM project_load WHERE in_flight > 0) active))))::int AS n
), candidates AS (
  SELECT c.id, c.distribution_id, c.event_id, w.project_id, c.next_attempt_at, w.pos
  FROM walk w CROSS JOIN LATERAL (
    SELECT d.id, d.distribution_id, d.event_id, d.next_attempt_at FROM webhook_deliveries d
    WHERE d.project_id = w.project_id AND d.status = 'PENDING' AND d.next_attempt_at <= now()
      AND (d.lease_until IS NULL OR d.lease_until < now())
      AND (SELECT dist.status FROM distributions dist WHERE dist.id = d.distribution_id) = 'ACTIVE'
      AND d.distribution_id <> ALL (ARRAY(SELECT distribution_id FROM load WHERE in_flight >= $13))
    ORDER BY d.next_attempt_at
    LIMIT greatest(0, least($11, coalesce((SELECT least(pl.cap, (SELECT n FROM share)) - pl.in_flight FROM project_load pl WHERE pl.project_id = w.project_id), least($23::int, (SELECT n FROM share)))))
  ) c
  WHERE w.eligible
), ranked AS (
  SELECT c.id, c.project_id, c.event_id, c.pos, c.next_attempt_at, row_number() OVER (PARTITION BY c.distribution_id ORDER BY c.next_attempt_at) AS n, $13 - coalesce(l.in_flight, 0) AS free
  FROM candidates c LEFT JOIN load l USING (distribution_id)
), ordered AS (
  SELECT r.id, r.project_id, r.event_id, r.pos, row_number() OVER (PARTITION BY r.project_id ORDER BY r.next_attempt_at) AS turn
  FROM ranked r WHERE r.n <= r.free
  ORDER BY turn, r.pos LIMIT $11
), sized AS (
  SELECT o.id, o.project_id, o.pos, o.turn,
         coalesce((SELECT CASE WHEN pg_column_size(ev.data) > $22::int THEN 0 ELSE pg_column_size(ev.data) END FROM events ev WHERE ev.id = o.event_id), 0) AS bytes
  FROM ordered o
), chosen AS (
  SELECT s.id, s.project_id, s.pos, s.turn FROM (
    SELECT s.*, sum(s.bytes) OVER (ORDER BY s.turn, s.pos ROWS UNBOUNDED PRECEDING) - s.bytes AS before FROM sized s
  ) s WHERE s.before < $21::bigint
), picked AS (
  SELECT d.id FROM webhook_deliveries d
  WHERE d.id = ANY (ARRAY(SELECT id FROM chosen))
    AND d.status NOT IN ('SUCCEEDED', 'FAILED') AND (d.lease_until IS NULL OR d.lease_until < now())
  FOR UPDATE SKIP LOCKED
), claimed AS (
  UPDATE webhook_deliveries d SET lease_until = now() + $12 * interval '1 millisecond'
  WHERE d.id = ANY (ARRAY(SELECT id FROM picked)) AND (SELECT set_config('synchronous_commit', 'off', true)) IS NOT NULL
  RETURNING d.*
)
SELECT ctx.*, cur.next_project, cur.share
FROM (SELECT coalesce((SELECT project_id FROM chosen ORDER BY turn DESC, pos DESC LIMIT 1), (SELECT project_id FROM walk ORDER BY pos DESC LIMIT 1), $20::text) AS next_project,
             (SELECT n FROM share) AS share) cur
LEFT JOIN (
SELECT c.id, c.project_id, c.created_at, c.attempts_count, c.first_attempt_at, c.manual, c.test, c.load_failures, c.lease_until,
       dist.id AS distribution_id, dist.target_url, dist.custom_headers, dist.event_name, dist.trigger,
       ev.id AS event_id, ev.type AS event_type, ev.created_at AS event_created_at, ev.entity_id, ev.group_id, ev.event_source,
       pg_column_size(ev.data) AS event_stored_bytes,
       CASE WHEN sum(octet_length(inl.text)) OVER (ORDER BY c.id ROWS UNBOUNDED PRECEDING) <= $21::bigint THEN inl.text END AS inline_data,
       CASE WHEN sum(octet_length(inl.text)) OVER (ORDER BY c.id ROWS UNBOUNDED PRECEDING) <= $21::bigint THEN octet_length(inl.text) END AS inline_bytes,
       s.secret, s.previous_secret, s.previous_expires_at
FROM claimed c
JOIN distributions dist ON dist.id = c.distribution_id
LEFT JOIN events ev ON ev.id = c.event_id
LEFT JOIN webhook_secrets s ON s.project_id = c.project_id
LEFT JOIN LATERAL (SELECT CASE WHEN pg_column_size(ev.data) <= least($25::int, $22::int) THEN ev.data::text END AS text OFFSET 0) inl ON true) ctx ON true;

-- events/delivery/worker/event-payload.repository.ts: LOAD
WITH read AS MATERIALIZED (
  SELECT e.id, array_position($1::text[], e.id) AS n, e.data::text AS text FROM events e WHERE e.id = ANY($1::text[])
), sized AS (
  SELECT id, n, text, octet_length(text) AS bytes FROM read
), running AS (
  SELECT id, text, bytes, sum(CASE WHEN bytes <= $2 THEN bytes ELSE 0 END) OVER (ORDER BY n) AS total FROM sized
)
SELECT id, bytes, CASE WHEN bytes <= $2 AND (total = bytes OR total <= $3) THEN text END AS data FROM running;

-- events/delivery/worker/webhook-work.repository.ts: RECOVER_PLAN
SELECT set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true), set_config('enable_sort', 'off', true);

-- events/delivery/worker/webhook-work.repository.ts: RECOVER_BATCH
WITH scan AS (
  SELECT id, created_at FROM webhook_deliveries
  WHERE distribution_id = $1 AND status = 'FAILED' AND created_at >= $2
    AND ($3::timestamptz IS NULL OR (created_at, id) < ($3::timestamptz, $4::text))
  ORDER BY created_at DESC, id DESC LIMIT $5
), due AS (
  SELECT CASE WHEN status = 'ACTIVE' THEN now() END AS at FROM distributions WHERE id = $1
), changed AS (
  UPDATE webhook_deliveries d SET status = 'PENDING', manual = true, next_attempt_at = (SELECT at FROM due)
  WHERE d.id IN (SELECT id FROM scan) AND d.status = 'FAILED'
  RETURNING 1
), oldest AS (
  SELECT created_at::text AS created_at, id FROM scan ORDER BY created_at, id LIMIT 1
)
SELECT (SELECT count(*)::int FROM changed) AS changed, (SELECT count(*)::int FROM scan) AS read,
       (SELECT created_at FROM oldest) AS last_created_at, (SELECT id FROM oldest) AS last_id,
       (SELECT CASE WHEN count(*) > 0 THEN pg_notify('loyalty_deliveries', '') END FROM changed) AS notified;

-- events/delivery/worker/webhook-work.repository.ts: WebhookWorkRepository.pending
SELECT id, status = 'DELETED' AS deleted, recover_since, recover_requested_at::text, resume_requested_at::text FROM distributions
WHERE status = 'DELETED' OR recover_requested_at IS NOT NULL OR resume_requested_at IS NOT NULL LIMIT $1;

-- events/delivery/worker/webhook-work.repository.ts: WebhookWorkRepository.resumeBatch
WITH scan AS (
  SELECT id, seq, next_attempt_at FROM webhook_deliveries
  WHERE distribution_id = $1 AND status = 'PENDING' AND ($2::bigint IS NULL OR seq > $2) ORDER BY seq LIMIT $3
), changed AS (
  UPDATE webhook_deliveries d SET next_attempt_at = now()
  WHERE d.id IN (SELECT id FROM scan WHERE next_attempt_at IS NULL) AND d.status = 'PENDING' AND d.next_attempt_at IS NULL
    AND EXISTS (SELECT 1 FROM distributions WHERE id = $1 AND status = 'ACTIVE')
  RETURNING 1
)
SELECT (SELECT count(*)::int FROM changed) AS changed, (SELECT max(seq)::text FROM scan) AS last,
       (SELECT CASE WHEN count(*) > 0 THEN pg_notify('loyalty_deliveries', '') END FROM changed) AS notified;

-- events/delivery/worker/webhook-work.repository.ts: WebhookWorkRepository.deleteBatch
WITH batch AS (
  SELECT id FROM webhook_deliveries WHERE distribution_id = $1 ORDER BY seq LIMIT $2
), attempts AS (
  DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM batch)
), gone AS (
  DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM batch) AND EXISTS (SELECT 1 FROM distributions WHERE id = $1 AND status = 'DELETED')
  RETURNING 1
)
SELECT count(*)::int AS n FROM gone;

-- events/delivery/worker/webhook-work.repository.ts: WebhookWorkRepository.deleteDistribution
DELETE FROM distributions WHERE id = $1 AND status = 'DELETED';

-- events/delivery/worker/webhook-work.repository.ts: WebhookWorkRepository.recoverDone
UPDATE distributions SET recover_since = NULL, recover_requested_at = NULL WHERE id = $1 AND recover_requested_at = $2::timestamptz;

-- events/delivery/worker/webhook-work.repository.ts: WebhookWorkRepository.resumeDone
UPDATE distributions SET resume_requested_at = NULL WHERE id = $1 AND resume_requested_at = $2::timestamptz;

-- events/delivery/worker/worker-delivery.repository.ts: RELAY
WITH candidates AS (
  SELECT seq, event_id, project_id, type FROM event_outbox ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED
), fanout AS (
  SELECT d.project_id, d.trigger, count(*) AS n FROM distributions d
  WHERE d.status = 'ACTIVE' AND (d.project_id, d.trigger) IN (SELECT DISTINCT project_id, type FROM candidates)
  GROUP BY d.project_id, d.trigger
), batch AS (
  SELECT seq, event_id, project_id, type FROM (
    SELECT c.*, sum(coalesce(f.n, 0)) OVER (ORDER BY c.seq) AS running, row_number() OVER (ORDER BY c.seq) AS rn
    FROM candidates c LEFT JOIN fanout f ON f.project_id = c.project_id AND f.trigger = c.type
  ) w WHERE rn = 1 OR running <= $2
), gone AS (
  DELETE FROM event_outbox o USING batch b WHERE o.seq = b.seq RETURNING 1
), ins AS (
  INSERT INTO webhook_deliveries (id, project_id, distribution_id, event_id, event_type, next_attempt_at)
  SELECT 'whs_' || left(replace(gen_random_uuid()::text, '-', ''), 18), b.project_id, d.id, b.event_id, b.type, now()
  FROM batch b JOIN distributions d ON d.project_id = b.project_id AND d.trigger = b.type AND d.status = 'ACTIVE'
  ORDER BY b.seq, d.seq
  ON CONFLICT (distribution_id, event_id) DO NOTHING
  RETURNING 1
)
SELECT relayed, deliveries, relayed < candidates OR candidates = $1 AS more, CASE WHEN deliveries > 0 THEN pg_notify('loyalty_deliveries', '') END AS notified
FROM (SELECT (SELECT count(*)::int FROM gone) AS relayed, (SELECT count(*)::int FROM ins) AS deliveries, (SELECT count(*)::int FROM candidates) AS candidates) counts;

-- events/delivery/worker/worker-delivery.repository.ts: CLAIM
WITH claimed AS (
  UPDATE webhook_deliveries d SET lease_until = now() + $2 * interval '1 millisecond'
  FROM distributions dist
  WHERE d.id = ANY($1::text[]) AND dist.id = d.distribution_id AND d.status = 'PENDING'
    AND (d.lease_until IS NULL OR d.lease_until < now())
    AND dist.status = 'ACTIVE'
    AND (d.next_attempt_at IS NULL OR d.next_attempt_at <= now() + interval '20 milliseconds')
    AND (SELECT set_config('synchronous_commit', 'off', true)) IS NOT NULL
  RETURNING d.*
)

SELECT c.id, c.project_id, c.created_at, c.attempts_count, c.first_attempt_at, c.manual, c.test, c.load_failures, c.lease_until,
       dist.id AS distribution_id, dist.target_url, dist.custom_headers, dist.event_name, dist.trigger,
       ev.id AS event_id, ev.type AS event_type, ev.created_at AS event_created_at, ev.entity_id, ev.group_id, ev.event_source,
       pg_column_size(ev.data) AS event_stored_bytes,
       s.secret, s.previous_secret, s.previous_expires_at
FROM claimed c
JOIN distributions dist ON dist.id = c.distribution_id
LEFT JOIN events ev ON ev.id = c.event_id
LEFT JOIN webhook_secrets s ON s.project_id = c.project_id;

-- events/delivery/worker/worker-delivery.repository.ts: WorkerDeliveryRepository.claimMany
SELECT d.id, d.status, d.next_attempt_at, d.lease_until, d.manual, dist.status AS distribution_status
FROM webhook_deliveries d JOIN distributions dist ON dist.id = d.distribution_id WHERE d.id = ANY($1::text[]);

-- events/delivery/worker/worker-delivery.repository.ts: WorkerDeliveryRepository.recordMany
WITH
input AS (
  SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::int[], $4::int[], $5::text[], $6::text[], $7::text[], $8::timestamptz[])
    AS t(delivery_id, at, status_code, duration_ms, error, response_excerpt, status, next_attempt_at)
), recorded AS (
  UPDATE webhook_deliveries d SET status = i.status, attempts_count = d.attempts_count + 1, first_attempt_at = coalesce(d.first_attempt_at, i.at),
    next_attempt_at = i.next_attempt_at, delivered_at = CASE WHEN i.status = 'SUCCEEDED' THEN now() END, lease_until = NULL, manual = false,
    load_failures = 0
  FROM input i WHERE d.id = ANY($1::text[]) AND d.id = i.delivery_id AND (SELECT set_config('synchronous_commit', 'off', true)) IS NOT NULL
  RETURNING d.id
), att AS (
  INSERT INTO webhook_attempts (delivery_id, at, status_code, duration_ms, error, response_excerpt)
  SELECT i.delivery_id, i.at, i.status_code, i.duration_ms, i.error, i.response_excerpt FROM input i JOIN recorded r ON r.id = i.delivery_id
) SELECT count(*)::int AS n FROM recorded;

-- events/delivery/worker/worker-delivery.repository.ts: WorkerDeliveryRepository.giveBack
UPDATE webhook_deliveries d SET lease_until = now() + $4 * interval '1 millisecond', load_failures = d.load_failures + g.counted::int
FROM unnest($1::text[], $2::timestamptz[], $3::boolean[]) AS g(id, lease_until, counted)
WHERE d.id = ANY($1::text[]) AND d.id = g.id AND d.lease_until = g.lease_until AND d.status = 'PENDING' AND (SELECT set_config('synchronous_commit', 'off', true)) IS NOT NULL;

-- events/delivery/worker/worker-delivery.repository.ts: WorkerDeliveryRepository.failPending
UPDATE webhook_deliveries SET status = 'FAILED', next_attempt_at = NULL, lease_until = NULL
WHERE id IN (SELECT id FROM webhook_deliveries WHERE distribution_id = $1 AND status = 'PENDING' ORDER BY id FOR UPDATE);

-- events/distributions/distribution.repository.ts: DistributionRepository.insertWithinLimit
SELECT pg_advisory_xact_lock(hashtextextended('distributions:' || $1, 0));

-- events/distributions/distribution.repository.ts: DistributionRepository.insertWithinLimit #2
SELECT count(*)::int AS n FROM distributions WHERE project_id = $1 AND status <> 'DELETED';

-- events/distributions/distribution.repository.ts: DistributionRepository.markDeleted
UPDATE distributions SET status = 'DELETED', updated_at = now(), recover_since = NULL, recover_requested_at = NULL, resume_requested_at = NULL
WHERE project_id = $1 AND id = $2 AND status <> 'DELETED' RETURNING pg_notify('loyalty_webhook_work', '');

-- events/distributions/distribution.repository.ts: DistributionRepository.requestRecover
UPDATE distributions SET recover_since = least(recover_since, $3::timestamptz), recover_requested_at = clock_timestamp()
WHERE project_id = $1 AND id = $2 AND status <> 'DELETED' RETURNING pg_notify('loyalty_webhook_work', '');

-- events/distributions/distribution.repository.ts: DistributionRepository.requestResume
UPDATE distributions SET resume_requested_at = clock_timestamp() WHERE id = $1 AND status = 'ACTIVE' RETURNING pg_notify('loyalty_webhook_work', '');

-- events/distributions/distribution.repository.ts: DistributionRepository.storedHeadersPage
SELECT id, custom_headers FROM distributions WHERE id > $1 ORDER BY id LIMIT $2;

-- events/distributions/distribution.repository.ts: DistributionRepository.resealHeaders
UPDATE distributions SET custom_headers = $3 WHERE id = $1 AND custom_headers = $2::jsonb;

-- events/distributions/distribution.repository.ts: DistributionRepository.changeStatus
UPDATE distributions SET status = $2, updated_at = now() WHERE id = $1 AND (CASE WHEN $2 = 'PAUSED' THEN status = 'ACTIVE' ELSE status NOT IN ('DISABLED', 'DELETED') END) RETURNING id;

-- events/recording/event-recording.ts: eventsInsertSql (per call)
INSERT INTO events (id, project_id, type, entity_id, group_id, event_source, data)
SELECT loyalty_time_id('evcus_'), s.project_id, s.type, s.entity_id, s.group_id, s.event_source,
       CASE WHEN octet_length(s.data::text) <= ${maxBytes}::int THEN s.data ELSE loyalty_event_fit(s.data, ${maxBytes}::int) END
FROM (${select} OFFSET 0) s;

-- events/secrets/webhook-secret.repository.ts: WebhookSecretRepository.get
INSERT INTO webhook_secrets (project_id, secret) VALUES ($1, $2) ON CONFLICT (project_id) DO NOTHING;

-- events/secrets/webhook-secret.repository.ts: WebhookSecretRepository.rotate
UPDATE webhook_secrets SET previous_secret = secret, previous_expires_at = now() + $3 * interval '1 second', secret = $2, created_at = now()
WHERE project_id = $1;

-- events/secrets/webhook-secret.repository.ts: WebhookSecretRepository.storedPage
SELECT project_id, secret, previous_secret FROM webhook_secrets WHERE project_id > $1 ORDER BY project_id LIMIT $2;

-- events/secrets/webhook-secret.repository.ts: WebhookSecretRepository.reseal
UPDATE webhook_secrets SET secret = $3, previous_secret = $5 WHERE project_id = $1 AND secret = $2 AND previous_secret IS NOT DISTINCT FROM $4;

-- idempotency/idempotency.repository.ts: IdempotencyRepository.insertClaim
INSERT INTO idempotency_keys (project_id, scope, key, fingerprint, status, claim_token, locked_at, expires_at)
VALUES ($1, $2, $3, $4, 'IN_FLIGHT', $5, now(), now() + $6::bigint * interval '1 millisecond')
ON CONFLICT (project_id, scope, key) DO NOTHING
RETURNING 1;

-- idempotency/idempotency.repository.ts: IdempotencyRepository.find
SELECT fingerprint, status, claim_token, response_status, response_body, expires_at <= now() AS expired,
       (status = 'IN_FLIGHT' AND locked_at <= now() - $4::bigint * interval '1 millisecond') AS stale
FROM idempotency_keys WHERE project_id = $1 AND scope = $2 AND key = $3;

-- idempotency/idempotency.repository.ts: IdempotencyRepository.takeOver
UPDATE idempotency_keys
SET fingerprint = $5, status = 'IN_FLIGHT', claim_token = $4, locked_at = now(), response_status = NULL, response_body = NULL,
    created_at = now(), expires_at = now() + $7::bigint * interval '1 millisecond'
WHERE project_id = $1 AND scope = $2 AND key = $3 AND claim_token = $6
  AND (expires_at <= now() OR (status = 'IN_FLIGHT' AND locked_at <= now() - $8::bigint * interval '1 millisecond'))
RETURNING 1;

-- idempotency/idempotency.repository.ts: IdempotencyRepository.complete
UPDATE idempotency_keys SET status = 'DONE', response_status = $5, response_body = $6::json
WHERE project_id = $1 AND scope = $2 AND key = $3 AND claim_token = $4
RETURNING 1;

-- idempotency/idempotency.repository.ts: IdempotencyRepository.storeAnswer
UPDATE idempotency_keys SET status = 'DONE', response_status = $5, response_body = $6::json
WHERE project_id = $1 AND scope = $2 AND key = $3 AND claim_token = $4 AND status = 'IN_FLIGHT';

-- idempotency/idempotency.repository.ts: IdempotencyRepository.release
DELETE FROM idempotency_keys WHERE project_id = $1 AND scope = $2 AND key = $3 AND claim_token = $4 AND status = 'IN_FLIGHT';

-- idempotency/idempotency.repository.ts: IdempotencyRepository.deleteExpired
WITH gone AS (
  DELETE FROM idempotency_keys WHERE (project_id, scope, key) IN (
    SELECT project_id, scope, key FROM idempotency_keys WHERE expires_at <= now() LIMIT $1 FOR UPDATE SKIP LOCKED
  )
  RETURNING 1
)
SELECT count(*)::int AS n FROM gone;

-- members/member-card.repository.ts: ACTIVE_CARDS (prepared cards_active_of)
SELECT v.holder_id AS customer_id, v.campaign_id, v.id FROM vouchers v
JOIN members m ON m.id = v.member_id AND m.status = 'ACTIVE' AND m.customer_id = v.holder_id
WHERE v.holder_id = ANY($2::text[]) AND v.project_id = $1 AND v.campaign_id = ANY($3::text[]);

-- members/member-card.repository.ts: PUBLISHED_BY_CODE
SELECT v.id, v.code, v.campaign_id, v.holder_id, v.project_id
FROM vouchers v
JOIN members m ON m.id = v.member_id AND m.status <> 'DELETED'
JOIN campaigns c ON c.id = v.campaign_id AND c.deleted_at IS NULL
WHERE v.project_id = $1 AND v.code = $2 AND ($3::text IS NULL OR v.campaign_id = $3);

-- members/member-card.repository.ts: CARD_BY_CODE (prepared member_cards_by_code)
SELECT v.id, v.project_id, v.campaign_id, v.code, v.type, v.initial_points, v.points, v.balance, v.pending_points, v.expired_points,
      v.subtracted_points, v.redeemed_points, v.redeemed_quantity, v.added_points, v.pending_activated_points, v.pending_canceled_points,
      to_char(v.next_expiration_date, 'YYYY-MM-DD') AS next_expiration_date, v.next_expiration_points, v.expiry_error, v.expiry_set_aside_at,
      v.member_id, v.holder_id, v.published_at, v.created_at, v.updated_at,
      m.id AS m_id, m.project_id AS m_project_id, m.program_id AS m_program_id, m.customer_id AS m_customer_id, m.status AS m_status,
      m.metadata AS m_metadata, m.created_at AS m_created_at, m.updated_at AS m_updated_at,
      c.id AS c_id, c.project_id AS c_project_id, c.name AS c_name, c.description AS c_description, c.type AS c_type, c.auto_join AS c_auto_join,
      c.use_voucher_metadata_schema AS c_use_voucher_metadata_schema, c.active AS c_active, c.protected AS c_protected,
      c.start_date AS c_start_date, c.expiration_date AS c_expiration_date, c.validity_timeframe AS c_validity_timeframe,
      c.validity_day_of_week AS c_validity_day_of_week, c.validity_hours AS c_validity_hours,
      c.activity_duration_after_publishing AS c_activity_duration_after_publishing, c.category_id AS c_category_id, c.metadata AS c_metadata,
      c.voucher AS c_voucher, c.loyalty_tiers_expiration AS c_loyalty_tiers_expiration, c.access_assignments AS c_access_assignments,
      c.vouchers_target AS c_vouchers_target, c.vouchers_count AS c_vouchers_count, c.creation_status AS c_creation_status,
      c.vouchers_generation_status AS c_vouchers_generation_status, c.generation_error AS c_generation_error, c.created_at AS c_created_at,
      c.updated_at AS c_updated_at, c.deleted_at AS c_deleted_at,
      cat.id AS cat_id, cat.project_id AS cat_project_id, cat.name AS cat_name, cat.hierarchy AS cat_hierarchy, cat.created_at AS cat_created_at
 FROM vouchers v
 JOIN members m ON m.id = v.member_id AND m.status <> 'DELETED'
 JOIN campaigns c ON c.id = v.campaign_id AND c.deleted_at IS NULL
 LEFT JOIN categories cat ON cat.id = c.category_id
WHERE v.project_id = $1 AND v.code = ANY($2::text[]);

-- members/member-card.repository.ts: MemberCardRepository.hasLiveMembership
SELECT 1 FROM members m JOIN loyalty_programs p ON p.id = m.program_id
WHERE m.project_id = $1 AND m.customer_id = $2 AND p.campaign_id = $3 AND m.status <> 'DELETED' LIMIT 1;

-- members/member-page.sql.ts: memberPageQuery (per call)
SELECT page.* FROM loyalty_programs p
LEFT JOIN LATERAL (SELECT ${COLUMNS} FROM members m WHERE ${where.join(' AND ')} ORDER BY ${orderBy} LIMIT ${params.add(limit, 'int')}) page ON true
WHERE ${program};

-- members/member-page.sql.ts: memberPageQuery(a filtered page: every kind of filter, a status, a cursor)
SELECT page.* FROM loyalty_programs p
LEFT JOIN LATERAL (SELECT m.id, m.program_id, m.customer_id, m.status, m.metadata, m.created_at, m.updated_at FROM members m WHERE m.program_id = p.id AND m.status <> 'DELETED' AND m.status = $3 AND ((m.id = ANY($4::text[]) AND m.status <> $5 AND m.customer_id = $6) OR (m.created_at < $7::timestamptz AND m.created_at >= $8::timestamptz AND m.created_at < $9::timestamptz AND m.created_at < now() - make_interval(days => $10::int) AND m.created_at IS NOT NULL)) AND m.status >= $11::text AND ((m.status > $11::text) OR (m.status = $11::text AND m.created_at < $12::timestamptz) OR (m.status = $11::text AND m.created_at = $12::timestamptz AND m.id < $13::text)) ORDER BY m.status ASC, m.created_at DESC, m.id DESC LIMIT $14::int) page ON true
WHERE p.id = $1 AND p.project_id = $2;

-- members/member-page.sql.ts: memberPageQuery(a first page)
SELECT page.* FROM loyalty_programs p
LEFT JOIN LATERAL (SELECT m.id, m.program_id, m.customer_id, m.status, m.metadata, m.created_at, m.updated_at FROM members m WHERE m.program_id = p.id AND m.status <> 'DELETED' ORDER BY m.id ASC LIMIT $3::int) page ON true
WHERE p.id = $1 AND p.project_id = $2;

-- members/member-seed.repository.ts: MemberSeedRepository.insertChunk
WITH g AS MATERIALIZED (
  SELECT i,
         'cust_' || translate(substr(encode(sha256(convert_to(random()::text || ':c' || i, 'UTF8')), 'base64'), 1, 24), '+/', 'Qz') AS customer_id,
         'lmbr_' || substr(md5(random()::text || ':m' || i), 1, 18) AS member_id,
         'v_' || translate(substr(encode(sha256(convert_to(random()::text || ':v' || i, 'UTF8')), 'base64'), 1, 32), '+/', 'Qz') AS card_id,
         $5::timestamptz - make_interval(secs => k + (k * 7919 % 1000) / 1000.0) AS created_at,
         CASE WHEN random() < 0.2 THEN 'INACTIVE' ELSE 'ACTIVE' END AS status
  FROM generate_series($6::int, $7::int) AS i
  CROSS JOIN LATERAL (SELECT floor(i * 0.8)::bigint AS k) AS t
),
c AS (
  INSERT INTO customers (id, project_id, source_id, name, email, metadata, created_at)
  SELECT customer_id, $1, 'seed-' || $8 || '-' || i, 'Seed customer ' || i, 'seed-' || $8 || '-' || i || '@example.com', '{}', created_at
  FROM g
),
m AS (
  INSERT INTO members (id, project_id, program_id, customer_id, status, metadata, created_at)
  SELECT member_id, $1, $2, customer_id, status, '{}', created_at
  FROM g
)
INSERT INTO vouchers (id, project_id, campaign_id, code, initial_points, points, balance, member_id, holder_id, published_at, created_at, updated_at)
SELECT card_id, $1, $3, 'SEED-' || $8 || '-' || lpad(i::text, 8, '0'), $4::int, $4::int, $4::int, member_id, customer_id, created_at, created_at, created_at
FROM g;

-- members/member-seed.repository.ts: MemberSeedRepository.insertChunk #2
UPDATE campaigns SET vouchers_count = vouchers_count + $2, vouchers_target = vouchers_target + $2 WHERE id = $1 AND project_id = $3;

-- members/member.repository.ts: INSERT
INSERT INTO members (id, project_id, program_id, customer_id, status, metadata)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (program_id, customer_id) WHERE status <> 'DELETED' DO NOTHING
RETURNING id;

-- members/member.repository.ts: MemberRepository.updateMetadata
UPDATE members SET updated_at = now(), metadata = CASE WHEN $4::jsonb IS NULL THEN '{}'::jsonb
  ELSE (metadata || $4::jsonb) - ARRAY(SELECT key FROM jsonb_each($4::jsonb) WHERE value = 'null'::jsonb) END
WHERE project_id = $1 AND program_id = $2 AND id = $3 AND status <> 'DELETED' RETURNING id;

-- members/member.repository.ts: MemberRepository.setStatus
UPDATE members SET status = $4, updated_at = CASE WHEN status = $4 THEN updated_at ELSE now() END
WHERE project_id = $1 AND program_id = $2 AND id = $3 AND status <> 'DELETED' RETURNING id;

-- members/member.repository.ts: MemberRepository.deleteCardless
DELETE FROM members m WHERE m.id = ANY($1::text[]) AND NOT EXISTS (SELECT 1 FROM vouchers v WHERE v.member_id = m.id);

-- metrics/metrics.repository.ts: MetricsRepository.duePendingPoints
SELECT count(*) AS n FROM loyalty_pending_points WHERE status = 'PENDING' AND activation_error IS NULL AND activates_at <= now();

-- metrics/metrics.repository.ts: MetricsRepository.expirySetAsideCards
SELECT count(*) AS n FROM vouchers WHERE expiry_error IS NOT NULL;

-- metrics/metrics.repository.ts: MetricsRepository.deliveriesByStatus
SELECT (SELECT count(*) FROM webhook_deliveries WHERE status = 'PENDING') AS pending,
(SELECT coalesce(sum(f.n), 0) FROM distributions d
   CROSS JOIN LATERAL (SELECT count(*) AS n FROM webhook_deliveries w WHERE w.distribution_id = d.id AND w.status = 'FAILED') f) AS failed;

-- points/balance/balance-events.repository.ts: RECORD (prepared balance_events_record)
INSERT INTO events (id, project_id, type, entity_id, group_id, event_source, data)
  SELECT loyalty_time_id('evcus_'), s.project_id, s.type, s.entity_id, s.group_id, s.event_source,
         CASE WHEN octet_length(s.data::text) <= $7::int THEN s.data ELSE loyalty_event_fit(s.data, $7::int) END
  FROM (
SELECT v.project_id, $2::text AS type, v.holder_id AS entity_id, $3::text AS group_id, $4::jsonb AS event_source,
       json_build_object(
         'customer', loyalty_customer_json(cu),
         'campaign', loyalty_campaign_json(ca),
         'voucher', loyalty_voucher_json(v, ca.name, v.points, v.balance, v.pending_points, v.next_expiration_date, v.next_expiration_points, (SELECT m.status = 'ACTIVE' FROM members m WHERE m.id = v.member_id)),
         'balance', $5::json,
         'transaction', $6::json) AS data
FROM vouchers v
JOIN customers cu ON cu.id = v.holder_id
JOIN campaigns ca ON ca.id = v.campaign_id
WHERE v.id = $1 OFFSET 0) s;

-- points/buckets/bucket.repository.ts: bucketCreditSql (per call)
INSERT INTO loyalty_points_buckets AS b (id, project_id, voucher_id, campaign_id, total_points, remaining, expires_at, expire_after)
${select}
ON CONFLICT (${BUCKET_DAY_KEY}) WHERE status = 'ACTIVE'
DO UPDATE SET ${MERGE_CREDIT};

-- points/buckets/bucket.repository.ts: nextExpirationOfSql (per call)
SELECT b.expires_at AS d, sum(b.remaining)::bigint AS p FROM loyalty_points_buckets b
WHERE b.voucher_id = ${card} AND b.status = 'ACTIVE' AND b.remaining > 0 AND b.expires_at IS NOT NULL${except ? ` AND b.id <> ALL(${except})` : ''}
GROUP BY b.expires_at ORDER BY b.expires_at LIMIT 1;

-- points/buckets/bucket.repository.ts: CREDIT (prepared buckets_credit)
INSERT INTO loyalty_points_buckets AS b (id, project_id, voucher_id, campaign_id, total_points, remaining, expires_at, expire_after)
 SELECT min(c.id), c.project_id, c.voucher_id, c.campaign_id, sum(c.points), sum(c.points), e.expires_at, max(loyalty_points_expire_after(e.expires_at, p.time_zone))
 FROM json_to_recordset($1::json) AS c(id text, project_id text, voucher_id text, campaign_id text, points bigint, date date, never boolean, earning_rule_id text)
 JOIN projects p ON p.id = c.project_id
 JOIN campaigns ca ON ca.id = c.campaign_id
 LEFT JOIN earning_rules er ON er.id = c.earning_rule_id
 CROSS JOIN LATERAL (SELECT CASE
     WHEN c.date IS NOT NULL THEN c.date
     WHEN c.never THEN NULL
     ELSE loyalty_points_expiry_date(coalesce(er.expiration_rules, ca.voucher->'loyalty_card'->'expiration_rules'), (now() AT TIME ZONE p.time_zone)::date)
   END AS expires_at) e
 GROUP BY c.project_id, c.voucher_id, c.campaign_id, e.expires_at
 ON CONFLICT (voucher_id, (coalesce(expires_at, 'infinity'::date))) WHERE status = 'ACTIVE'
 DO UPDATE SET total_points = b.total_points + EXCLUDED.total_points, remaining = b.remaining + EXCLUDED.remaining,
expire_after = EXCLUDED.expire_after, updated_at = now()
 RETURNING voucher_id, expires_at IS NOT NULL AS dated;

-- points/buckets/bucket.repository.ts: REFRESH_NEXT (prepared buckets_refresh_next)
UPDATE vouchers v SET next_expiration_date = n.day, next_expiration_points = n.points
FROM (
  SELECT c.id, n.d AS day, coalesce(n.p, 0) AS points FROM unnest($1::text[]) AS c(id)
  LEFT JOIN LATERAL (SELECT b.expires_at AS d, sum(b.remaining)::bigint AS p FROM loyalty_points_buckets b
  WHERE b.voucher_id = c.id AND b.status = 'ACTIVE' AND b.remaining > 0 AND b.expires_at IS NOT NULL
  GROUP BY b.expires_at ORDER BY b.expires_at LIMIT 1) n ON true
) n
WHERE v.id = n.id AND (v.next_expiration_date IS DISTINCT FROM n.day OR v.next_expiration_points <> n.points);

-- points/buckets/bucket.repository.ts: DRAIN (prepared buckets_drain)
WITH b AS (
  SELECT id, remaining, sum(remaining) OVER (ORDER BY expires_at NULLS LAST, created_at, id) - remaining AS before
  FROM loyalty_points_buckets WHERE voucher_id = $1 AND status = 'ACTIVE' AND remaining > 0
), take AS (
  SELECT id, least(remaining, $2::bigint - before) AS taken FROM b WHERE before < $2::bigint
)
UPDATE loyalty_points_buckets x SET remaining = x.remaining - take.taken, updated_at = now()
FROM take WHERE x.id = take.id
RETURNING x.id, take.taken, to_char(x.expires_at, 'YYYY-MM-DD') AS expires_at;

-- points/buckets/bucket.repository.ts: RESTORE (prepared buckets_restore)
WITH r AS (
  SELECT id, voucher_id, sum(points)::bigint AS points FROM json_to_recordset($1::json) AS r(id text, voucher_id text, points bigint) GROUP BY id, voucher_id
), ok AS (
  SELECT count(*) = (SELECT count(*) FROM r) AS all_active FROM loyalty_points_buckets b JOIN r ON r.id = b.id AND r.voucher_id = b.voucher_id WHERE b.status = 'ACTIVE'
)
UPDATE loyalty_points_buckets b SET remaining = b.remaining + r.points, updated_at = now()
FROM r WHERE b.id = r.id AND (SELECT all_active FROM ok)
RETURNING b.voucher_id, b.expires_at IS NOT NULL AS dated;

-- points/buckets/bucket.repository.ts: BucketRepository.today
SELECT to_char(now() AT TIME ZONE time_zone, 'YYYY-MM-DD') AS today FROM projects WHERE id = $1;

-- points/buckets/bucket.repository.ts: BucketRepository.list
SELECT id, voucher_id, campaign_id, remaining, status, to_char(expires_at, 'YYYY-MM-DD') AS expires_at, created_at, updated_at
FROM loyalty_points_buckets WHERE voucher_id = $1 AND project_id = $2 AND status = 'ACTIVE'
ORDER BY coalesce(expires_at, 'infinity'::date) LIMIT $3 OFFSET $4;

-- points/buckets/bucket.repository.ts: BucketRepository.list #2
SELECT count(*)::int AS total FROM loyalty_points_buckets WHERE voucher_id = $1 AND project_id = $2 AND status = 'ACTIVE';

-- points/buckets/bucket.repository.ts: BucketRepository.cardsWithDatedBuckets
SELECT voucher_id FROM loyalty_points_buckets
WHERE project_id = $1 AND status = 'ACTIVE' AND expire_after IS NOT NULL AND voucher_id > $2
GROUP BY voucher_id ORDER BY voucher_id LIMIT $3;

-- points/buckets/bucket.repository.ts: BucketRepository.reschedule
UPDATE loyalty_points_buckets b SET expire_after = loyalty_points_expire_after(b.expires_at, p.time_zone)
FROM projects p WHERE p.id = b.project_id AND b.voucher_id = ANY($1::text[]) AND b.status = 'ACTIVE' AND b.expires_at IS NOT NULL;

-- points/buckets/bucket.repository.ts: BucketRepository.deleteOfCards
DELETE FROM loyalty_points_buckets WHERE id IN (SELECT id FROM loyalty_points_buckets WHERE voucher_id = ANY($1::text[]) LIMIT $2);

-- points/buckets/expiry.repository.ts: DUE_CARDS (prepared buckets_due_cards)
SELECT b.voucher_id FROM (SELECT id FROM projects ORDER BY random()) p
CROSS JOIN LATERAL (
  SELECT b.voucher_id FROM loyalty_points_buckets b
  WHERE b.project_id = p.id AND b.status = 'ACTIVE' AND b.expire_after <= now()
    AND NOT EXISTS (SELECT 1 FROM loyalty_pending_points pp
                    WHERE pp.voucher_id = b.voucher_id AND pp.status = 'PENDING' AND pp.activation_error IS NULL AND pp.activates_at <= now())
    AND NOT EXISTS (SELECT 1 FROM vouchers v WHERE v.id = b.voucher_id AND v.expiry_error IS NOT NULL)
  ORDER BY b.expire_after LIMIT $1) b
LIMIT $1;

-- points/buckets/expiry.repository.ts: EXPIRE (prepared buckets_expire)
WITH pick AS MATERIALIZED (
  SELECT b.id, c.id AS voucher_id FROM unnest($1::text[]) AS c(id)
  CROSS JOIN LATERAL (
    SELECT b.id FROM loyalty_points_buckets b
    WHERE b.voucher_id = c.id AND b.status = 'ACTIVE' AND b.expire_after IS NOT NULL AND b.expire_after <= now()
    ORDER BY b.expire_after LIMIT $4
  ) b
), chunk AS MATERIALIZED (
  -- Within the budget (nearly always) every pick goes; otherwise (and only then: the second branch's sort
  -- is not run when its one-time filter is false) the buckets of whole cards while those before stay in it.
  SELECT id FROM pick WHERE (SELECT count(*) FROM pick) <= $5
  UNION ALL
  SELECT id FROM (SELECT id, count(*) OVER (ORDER BY voucher_id) - count(*) OVER (PARTITION BY voucher_id) AS before FROM pick) p
  WHERE (SELECT count(*) FROM pick) > $5 AND before < $5
), due AS (
  UPDATE loyalty_points_buckets b SET status = 'EXPIRED', updated_at = now()
  WHERE b.id = ANY(ARRAY(SELECT id FROM chunk)) AND b.status = 'ACTIVE'
  RETURNING b.id, b.voucher_id, b.campaign_id, b.remaining, b.expires_at, b.created_at
), agg AS (
  SELECT voucher_id, sum(remaining)::bigint AS points, array_agg(id) AS ids,
         json_agg(json_build_object('id', id, 'voucher_id', voucher_id, 'campaign_id', campaign_id, 'bucket', json_build_object('total_points', remaining),
                                    'status', 'EXPIRED', 'expires_at', to_char(expires_at, 'YYYY-MM-DD'), 'created_at', loyalty_iso(created_at),
                                    'updated_at', loyalty_iso(now()), 'object', 'loyalty_points_bucket') ORDER BY expires_at, created_at, id) AS buckets,
         json_agg(json_build_object('id', id, 'points', remaining, 'expires_at', to_char(expires_at, 'YYYY-MM-DD')) ORDER BY expires_at, created_at, id) AS ledger_buckets
  FROM due GROUP BY voucher_id HAVING sum(remaining) > 0
), cards AS (
  UPDATE vouchers v SET points = v.points + d.points, balance = v.balance + d.points - d.removed - d.expired - d.redeemed,
  pending_points = v.pending_points + d.pending, subtracted_points = v.subtracted_points + d.removed, expired_points = v.expired_points + d.expired,
  redeemed_points = v.redeemed_points + d.redeemed, redeemed_quantity = v.redeemed_quantity + d.redemptions, added_points = v.added_points + d.added,
  pending_activated_points = v.pending_activated_points + d.activated, pending_canceled_points = v.pending_canceled_points + d.canceled,
  updated_at = now(), next_expiration_date = d.next_day, next_expiration_points = d.next_points
FROM (SELECT agg.voucher_id AS id, (0)::bigint AS points, (0)::bigint AS pending, (0)::bigint AS removed, (0)::bigint AS added, (0)::bigint AS canceled, (0)::bigint AS activated, (agg.points)::bigint AS expired, (0)::bigint AS redeemed, (0)::bigint AS redemptions, n.d AS next_day, coalesce(n.p, 0) AS next_points
      FROM agg LEFT JOIN LATERAL (SELECT b.expires_at AS d, sum(b.remaining)::bigint AS p FROM loyalty_points_buckets b
  WHERE b.voucher_id = agg.voucher_id AND b.status = 'ACTIVE' AND b.remaining > 0 AND b.expires_at IS NOT NULL AND b.id <> ALL(agg.ids)
  GROUP BY b.expires_at ORDER BY b.expires_at LIMIT 1) n ON true) d
WHERE v.id = d.id
  RETURNING v.*
), run AS (
  SELECT ROW(c.*)::vouchers AS card, c.id AS voucher_id, c.project_id, c.campaign_id, c.holder_id, a.points, a.buckets, c.points AS total, c.balance,
         loyalty_time_id('vtx_') AS transaction_id,
         json_build_object('balance', json_build_object('type', 'loyalty_card', 'total', c.points, 'object', 'balance', 'points', -a.points, 'balance', c.balance,
                         'related_object', json_build_object('id', c.id, 'type', 'voucher')), 'buckets', a.ledger_buckets) AS details
  FROM cards c JOIN agg a ON a.voucher_id = c.id
), tx AS (
  INSERT INTO voucher_transactions (id, project_id, voucher_id, campaign_id, type, points, balance_after, order_id, pending_points_id, source_id, details, created_at)
    SELECT transaction_id, project_id, voucher_id, campaign_id, 'POINTS_EXPIRATION', -points, balance, NULL, NULL, NULL, details, now() FROM run ORDER BY voucher_id
), ev AS (
  INSERT INTO events (id, project_id, type, entity_id, group_id, event_source, data)
 SELECT loyalty_time_id('evcus_'), s.project_id, s.type, s.entity_id, s.group_id, s.event_source,
        CASE WHEN octet_length(s.data::text) <= $6::int THEN s.data ELSE loyalty_event_fit(s.data, $6::int) END
 FROM (
    SELECT r.project_id, 'customer.voucher.loyalty_card.points_expired'::text AS type, r.holder_id AS entity_id, $2::text AS group_id, $3::jsonb AS event_source,
           json_build_object(
             'customer', loyalty_customer_json(cu),
             'campaign', loyalty_campaign_json(ca),
             'voucher', loyalty_voucher_json(r.card, ca.name, r.total, r.balance, (r.card).pending_points, (r.card).next_expiration_date, (r.card).next_expiration_points, (SELECT m.status = 'ACTIVE' FROM members m WHERE m.id = (r.card).member_id)),
             'points', r.points,
             'buckets', r.buckets,
             'transaction', json_build_object('id', r.transaction_id, 'source_id', NULL, 'voucher_id', r.voucher_id, 'campaign_id', r.campaign_id, 'source', NULL,
                          'reason', NULL, 'type', 'POINTS_EXPIRATION', 'details', r.details, 'related_transaction_id', NULL, 'created_at', loyalty_iso(now()))) AS data
    FROM run r
    JOIN customers cu ON cu.id = r.holder_id
    JOIN campaigns ca ON ca.id = r.campaign_id
    ORDER BY r.voucher_id OFFSET 0) s
)
SELECT (SELECT count(*) FROM due)::int AS buckets, (SELECT count(*) FROM run)::int AS cards, (SELECT coalesce(sum(points), 0) FROM run)::bigint AS points,
       (SELECT count(*) FROM pick) > $5 OR EXISTS (SELECT 1 FROM pick GROUP BY voucher_id HAVING count(*) >= $4) AS more;

-- points/buckets/expiry.repository.ts: ExpiryRepository.setAsideCards
SELECT id, project_id, code, expiry_error, expiry_set_aside_at FROM vouchers WHERE expiry_error IS NOT NULL AND ($1::text IS NULL OR project_id = $1) ORDER BY id LIMIT $2;

-- points/earning/earning-rule.repository.ts: EARNING_NOW (prepared earning_rules_now)
SELECT r.id, r.project_id, r.campaign_id, r.event, r.loyalty, r.pending_points, r.expiration_rules, r.banner, r.active, r.start_date, r.expiration_date,
       r.metadata, r.created_at, r.updated_at, c.auto_join
FROM earning_rules r JOIN campaigns c ON c.id = r.campaign_id
WHERE r.project_id = $1 AND r.event = 'order.paid' AND r.active
  AND (r.start_date IS NULL OR r.start_date <= now()) AND (r.expiration_date IS NULL OR r.expiration_date >= now())
  AND c.deleted_at IS NULL AND c.active AND (c.start_date IS NULL OR c.start_date <= now()) AND (c.expiration_date IS NULL OR c.expiration_date >= now())
ORDER BY r.created_at, r.id;

-- points/earning/earning-rule.repository.ts: EarningRuleRepository.insertWithinCaps
SELECT pg_advisory_xact_lock(hashtextextended('earning_rules:' || $1, 0));

-- points/earning/earning-rule.repository.ts: EarningRuleRepository.insertWithinCaps #2
SELECT count(*) FILTER (WHERE c.id = $2)::int AS campaign, count(*)::int AS project
FROM campaigns c JOIN earning_rules r ON r.campaign_id = c.id
WHERE c.project_id = $1 AND c.deleted_at IS NULL;

-- points/ledger/ledger.repository.ts: ledgerInsertSql (per call)
INSERT INTO voucher_transactions (${LEDGER_COLUMNS})
${select};

-- points/ledger/ledger.repository.ts: INSERT (prepared ledger_insert)
INSERT INTO voucher_transactions (id, project_id, voucher_id, campaign_id, type, points, balance_after, order_id, pending_points_id, source_id, details, created_at)
SELECT id, project_id, voucher_id, campaign_id, type, points, balance_after, order_id, pending_points_id, source_id, details, $2
FROM ROWS FROM (json_to_recordset($1::json) AS (id text, project_id text, voucher_id text, campaign_id text, type text, points bigint,
     balance_after bigint, order_id text, pending_points_id text, source_id text, details json)) WITH ORDINALITY AS t(id, project_id, voucher_id, campaign_id,
     type, points, balance_after, order_id, pending_points_id, source_id, details, n)
ORDER BY n;

-- points/ledger/ledger.repository.ts: LedgerRepository.deleteOfCards
DELETE FROM voucher_transactions WHERE id IN (SELECT id FROM voucher_transactions WHERE voucher_id = ANY($1::text[]) LIMIT $2);

-- points/orders/order.repository.ts: CUSTOMER_TOTALS (prepared orders_customer_totals)
SELECT count(*) AS count, coalesce(sum(amount), 0) AS total,
       (array_agg(amount ORDER BY created_at DESC, id DESC))[1] AS last_amount, max(created_at) AS last_date
FROM orders WHERE customer_id = $2 AND project_id = $1 AND status IN ('PAID', 'FULFILLED');

-- points/orders/order.repository.ts: upsertOrdersSql (per call)
INSERT INTO orders (id, project_id, source_id, status, amount${others.map((c) => `, ${c}`).join('')})
SELECT o.id, $1, o.source_id, o.status, o.amount${others.map((c) => `, o.${c}`).join('')}
FROM jsonb_to_recordset($2::jsonb) AS o(id text, source_id text, status text, amount bigint, customer_id text, items jsonb, metadata jsonb)
ORDER BY o.source_id
ON CONFLICT (project_id, source_id) WHERE source_id IS NOT NULL DO UPDATE SET ${[...columns.map((c) => `${c} = EXCLUDED.${c}`), 'updated_at = now()'].join(', ')}
RETURNING ${ORDER_COLUMNS};

-- points/orders/order.repository.ts: insertOrderSql (per call)
INSERT INTO orders (id, project_id, source_id, status, amount${others.map((c) => `, ${c}`).join('')})
VALUES ($1, $2, $3, $4, $5${others.map((_, i) => `, $${i + 6}`).join('')})
${update} RETURNING ${ORDER_COLUMNS};

-- points/orders/order.repository.ts: CLAIM (prepared orders_claim)
INSERT INTO order_earnings (order_id, earning_rule_id, project_id, voucher_id, points)
SELECT c.order_id, c.rule, $1, c.card, c.points FROM unnest($2::text[], $3::text[], $4::text[], $5::int[]) AS c(order_id, rule, card, points)
ON CONFLICT (order_id, earning_rule_id) DO NOTHING RETURNING order_id, earning_rule_id;

-- points/orders/order.repository.ts: DISCOUNT (prepared orders_discount)
UPDATE orders SET discount_amount = greatest(discount_amount + $3, 0), updated_at = now() WHERE id = $1 AND project_id = $2 RETURNING id, project_id, source_id, status, amount, discount_amount, customer_id, items, metadata, created_at, updated_at;

-- points/orders/order.repository.ts: OrderRepository.save (per call)
UPDATE orders SET ${[...set, 'updated_at = now()'].join(', ')} WHERE id = $1 AND project_id = $2 RETURNING ${ORDER_COLUMNS};

-- points/pending/activation.repository.ts: ACTIVATE, ACTIVATE_STATEMENT (prepared pending_activate)
WITH upd AS (
  UPDATE loyalty_pending_points p SET status = 'ACTIVATED', updated_at = now(), settled_at = clock_timestamp()
  WHERE p.id = ANY($1::text[]) AND p.status = 'PENDING' AND p.voucher_id = ANY($5::text[])
  RETURNING p.*
), agg AS (
  SELECT voucher_id, sum(points)::bigint AS points FROM upd GROUP BY voucher_id
), cards AS (
  UPDATE vouchers v SET points = v.points + d.points, balance = v.balance + d.points - d.removed - d.expired - d.redeemed,
     pending_points = v.pending_points + d.pending, subtracted_points = v.subtracted_points + d.removed, expired_points = v.expired_points + d.expired,
     redeemed_points = v.redeemed_points + d.redeemed, redeemed_quantity = v.redeemed_quantity + d.redemptions, added_points = v.added_points + d.added,
     pending_activated_points = v.pending_activated_points + d.activated, pending_canceled_points = v.pending_canceled_points + d.canceled,
     updated_at = now()
   FROM (SELECT voucher_id AS id, (points)::bigint AS points, (-points)::bigint AS pending, (0)::bigint AS removed, (0)::bigint AS added, (0)::bigint AS canceled, (points)::bigint AS activated, (0)::bigint AS expired, (0)::bigint AS redeemed, (0)::bigint AS redemptions FROM agg) d
   WHERE v.id = d.id
  RETURNING v.*
), dates AS MATERIALIZED (
  SELECT k.campaign_id, k.earning_rule_id, e.expires_at, loyalty_points_expire_after(e.expires_at, pr.time_zone) AS expire_after
  FROM (SELECT DISTINCT project_id, campaign_id, earning_rule_id FROM upd) k
  JOIN projects pr ON pr.id = k.project_id
  JOIN campaigns ca ON ca.id = k.campaign_id
  LEFT JOIN earning_rules er ON er.id = k.earning_rule_id
  CROSS JOIN LATERAL (SELECT loyalty_points_expiry_date(coalesce(er.expiration_rules, ca.voucher->'loyalty_card'->'expiration_rules'), (now() AT TIME ZONE pr.time_zone)::date) AS expires_at) e
), joined AS (
  SELECT ROW(u.*)::loyalty_pending_points AS entry, ROW(c.*)::vouchers AS card, loyalty_pending_points_json(ROW(u.*)::loyalty_pending_points) AS entry_json,
         coalesce(sum(u.points) OVER (PARTITION BY u.voucher_id ORDER BY u.id DESC ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)::bigint AS later,
         d.expires_at AS bucket_day, min(d.expires_at) OVER (PARTITION BY u.voucher_id ORDER BY u.id ROWS UNBOUNDED PRECEDING) AS new_day
  FROM upd u JOIN cards c ON c.id = u.voucher_id
  LEFT JOIN dates d ON d.campaign_id = u.campaign_id AND d.earning_rule_id = u.earning_rule_id
), run AS (
  SELECT entry, card, entry_json, (entry).id, (entry).project_id, (entry).voucher_id, (entry).campaign_id, (entry).customer_id, (entry).order_id, (entry).points,
         (card).points - later AS total, (card).balance - later AS balance, (card).pending_points + later AS pending,
         least((card).next_expiration_date, new_day) AS next_day, new_day,
         sum(CASE WHEN bucket_day = new_day THEN (entry).points ELSE 0 END) OVER (PARTITION BY (entry).voucher_id, new_day ORDER BY (entry).id ROWS UNBOUNDED PRECEDING)::bigint AS new_day_points,
         loyalty_time_id('vtx_') AS transaction_id,
         json_build_object(
           'balance', json_build_object('type', 'loyalty_card', 'total', (card).points - later, 'object', 'balance', 'points', (entry).points, 'balance', (card).balance - later,
                            'related_object', json_build_object('id', (entry).voucher_id, 'type', 'voucher')),
           'order', (entry).details->'order', 'event', json_build_object('id', (entry).details->'event'->>'id', 'type', (entry).details->'event'->>'type'),
           'earning_rule', (entry).details->'earning_rule', 'pending_points', entry_json) AS transaction_details
  FROM joined
), tx AS (
  INSERT INTO voucher_transactions (id, project_id, voucher_id, campaign_id, type, points, balance_after, order_id, pending_points_id, source_id, details, created_at)
       SELECT transaction_id, project_id, voucher_id, campaign_id, 'PENDING_POINTS_ACTIVATION', points, balance, order_id, id, NULL, transaction_details, now()
  FROM run ORDER BY voucher_id, id
), bk AS (
  INSERT INTO loyalty_points_buckets AS b (id, project_id, voucher_id, campaign_id, total_points, remaining, expires_at, expire_after)
   SELECT 'lopb_' || left(md5(random()::text || clock_timestamp()::text || min(u.id)), 18), u.project_id, u.voucher_id, u.campaign_id, sum(u.points), sum(u.points),
         d.expires_at, max(d.expire_after)
  FROM upd u JOIN dates d ON d.campaign_id = u.campaign_id AND d.earning_rule_id = u.earning_rule_id
  GROUP BY u.project_id, u.voucher_id, u.campaign_id, d.expires_at
   ON CONFLICT (voucher_id, (coalesce(expires_at, 'infinity'::date))) WHERE status = 'ACTIVE'
   DO UPDATE SET total_points = b.total_points + EXCLUDED.total_points, remaining = b.remaining + EXCLUDED.remaining,
  expire_after = EXCLUDED.expire_after, updated_at = now()
  RETURNING voucher_id, expires_at
), ev AS (
  INSERT INTO events (id, project_id, type, entity_id, group_id, event_source, data)
    SELECT loyalty_time_id('evcus_'), s.project_id, s.type, s.entity_id, s.group_id, s.event_source,
           CASE WHEN octet_length(s.data::text) <= $6::int THEN s.data ELSE loyalty_event_fit(s.data, $6::int) END
    FROM (
    SELECT r.project_id, 'customer.voucher.loyalty_card.pending_points.activated'::text AS type, r.customer_id AS entity_id, $3::text AS group_id,
           $4::jsonb AS event_source,
           json_build_object(
             'customer', loyalty_customer_json(cu),
             'campaign', loyalty_campaign_json(ca),
             'voucher', loyalty_voucher_json(r.card, ca.name, r.total, r.balance, r.pending, r.next_day,
                                             CASE WHEN (r.card).next_expiration_date = r.next_day THEN (r.card).next_expiration_points ELSE 0 END
                                             + CASE WHEN r.new_day = r.next_day THEN r.new_day_points ELSE 0 END,
                                             (SELECT m.status = 'ACTIVE' FROM members m WHERE m.id = (r.card).member_id)),
             'balance', json_build_object('points', r.points, 'total', r.total, 'balance', r.balance, 'type', 'loyalty_card', 'object', 'balance',
                                          'related_object', json_build_object('type', 'voucher', 'id', r.voucher_id), 'operation_type', $2::text),
             'order', loyalty_order_json(o),
             'transaction', json_build_object('id', r.transaction_id, 'source_id', NULL, 'voucher_id', r.voucher_id, 'campaign_id', r.campaign_id, 'source', NULL,
                             'reason', NULL, 'type', 'PENDING_POINTS_ACTIVATION', 'details', r.transaction_details, 'related_transaction_id', NULL, 'created_at', loyalty_iso(now())),
             'pending_points', r.entry_json) AS data
    FROM run r
    JOIN customers cu ON cu.id = r.customer_id
    JOIN campaigns ca ON ca.id = r.campaign_id
    LEFT JOIN orders o ON o.id = r.order_id
    ORDER BY r.voucher_id, r.id OFFSET 0) s
)
SELECT r.id, r.voucher_id, r.points, r.total, r.balance, r.pending, d.dated
FROM run r LEFT JOIN (SELECT voucher_id, bool_or(expires_at IS NOT NULL) AS dated FROM bk GROUP BY voucher_id) d ON d.voucher_id = r.voucher_id
ORDER BY r.voucher_id, r.id;

-- points/pending/pending-events.repository.ts: RECORD (prepared pending_events_record)
INSERT INTO events (id, project_id, type, entity_id, group_id, event_source, data)
  SELECT loyalty_time_id('evcus_'), s.project_id, s.type, s.entity_id, s.group_id, s.event_source,
         CASE WHEN octet_length(s.data::text) <= $7::int THEN s.data ELSE loyalty_event_fit(s.data, $7::int) END
  FROM (
SELECT p.project_id, $3::text AS type, p.customer_id AS entity_id, ch.group_id, ch.source::jsonb AS event_source,
       json_build_object(
         'customer', (SELECT loyalty_customer_json(cu) FROM customers cu WHERE cu.id = p.customer_id),
         'campaign', loyalty_campaign_json(ca),
         'voucher', loyalty_voucher_json(v, ca.name, v.points, v.balance, v.pending_points - coalesce(sum(ch.change) OVER later, 0), v.next_expiration_date, v.next_expiration_points,
                                         (SELECT m.status = 'ACTIVE' FROM members m WHERE m.id = v.member_id)),
         'order', (SELECT loyalty_order_json(o) FROM orders o WHERE o.id = p.order_id),
         'voucher_pending_points_balance', json_build_object('points', ch.change, 'total', v.pending_points - coalesce(sum(ch.change) OVER later, 0),
                                                             'balance', v.pending_points - coalesce(sum(ch.change) OVER later, 0), 'object', 'balance',
                                                             'related_object', json_build_object('type', 'voucher', 'id', v.id), 'operation_type', $6::text),
         'pending_points', loyalty_pending_points_json(p)) AS data
FROM unnest($1::text[], $2::int[], $4::text[], $5::text[]) WITH ORDINALITY AS ch(id, change, group_id, source, n)
JOIN loyalty_pending_points p ON p.id = ch.id
JOIN vouchers v ON v.id = p.voucher_id
JOIN campaigns ca ON ca.id = p.campaign_id
WINDOW later AS (PARTITION BY p.voucher_id ORDER BY ch.n ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING)
ORDER BY ch.n OFFSET 0) s;

-- points/pending/pending-points.repository.ts: ACTIVATION_DAYS (prepared pending_points_activation_days)
SELECT voucher_id, to_char(activates_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, sum(points)::bigint AS points
FROM loyalty_pending_points WHERE voucher_id = ANY($2::text[]) AND status = 'PENDING' AND project_id = $1
GROUP BY 1, 2 ORDER BY 1, 2;

-- points/pending/pending-points.repository.ts: BY_ID
SELECT id, project_id, voucher_id, campaign_id, customer_id, order_id, earning_rule_id, points, status, activates_at,
details, activation_error, created_at, updated_at, settled_at FROM loyalty_pending_points WHERE id = $1 AND project_id = $2;

-- points/pending/pending-points.repository.ts: LOCK_PENDING
SELECT id, voucher_id FROM loyalty_pending_points WHERE id = $1 AND project_id = $2 AND status = 'PENDING' FOR UPDATE;

-- points/pending/pending-points.repository.ts: DUE_FOR_ACTIVATION
SELECT id, voucher_id FROM loyalty_pending_points WHERE status = 'PENDING' AND activation_error IS NULL AND activates_at <= now() AND NOT (id = ANY($1::text[]))
ORDER BY activates_at, voucher_id LIMIT $2 FOR UPDATE SKIP LOCKED;

-- points/pending/pending-points.repository.ts: DUE_UP_TO
SELECT count(*)::int AS n FROM (SELECT 1 FROM loyalty_pending_points WHERE status = 'PENDING' AND activation_error IS NULL AND activates_at <= now() LIMIT $1) due;

-- points/pending/pending-points.repository.ts: INSERT (prepared pending_insert)
INSERT INTO loyalty_pending_points (id, project_id, voucher_id, campaign_id, customer_id, order_id, earning_rule_id, points, activates_at, details)
     SELECT e.id, e.project_id, e.voucher_id, e.campaign_id, e.customer_id, e.order_id, e.earning_rule_id, e.points,
            now() + e.delay_ms * interval '1 millisecond', e.details
     FROM jsonb_to_recordset($1::jsonb) AS e(id text, project_id text, voucher_id text, campaign_id text, customer_id text, order_id text,
          earning_rule_id text, points int, delay_ms bigint, details jsonb)
     RETURNING id, project_id, voucher_id, campaign_id, customer_id, order_id, earning_rule_id, points, status, activates_at,
details, activation_error, created_at, updated_at, settled_at;

-- points/pending/pending-points.repository.ts: PendingPointsRepository.lockForActivation
SELECT id, voucher_id FROM loyalty_pending_points WHERE id = ANY($1::text[]) AND status = 'PENDING' AND activation_error IS NULL FOR UPDATE SKIP LOCKED;

-- points/pending/pending-points.repository.ts: PendingPointsRepository.setAside
UPDATE loyalty_pending_points p SET activation_error = f.error, updated_at = now()
FROM unnest($1::text[], $2::text[]) AS f(id, error) WHERE p.id = f.id AND p.status = 'PENDING';

-- points/pending/pending-points.repository.ts: PendingPointsRepository.cancel
UPDATE loyalty_pending_points SET status = 'CANCELED', updated_at = now(), settled_at = clock_timestamp()
         WHERE id = $1 AND project_id = $2 AND status = 'PENDING' RETURNING id, project_id, voucher_id, campaign_id, customer_id, order_id, earning_rule_id, points, status, activates_at,
details, activation_error, created_at, updated_at, settled_at;

-- points/pending/pending-points.repository.ts: PendingPointsRepository.cancel #2
UPDATE loyalty_pending_points SET status = 'CANCELED', updated_at = now(), settled_at = clock_timestamp()
         WHERE order_id = $1 AND status = 'PENDING' RETURNING id, project_id, voucher_id, campaign_id, customer_id, order_id, earning_rule_id, points, status, activates_at,
details, activation_error, created_at, updated_at, settled_at;

-- points/pending/pending-points.repository.ts: PendingPointsRepository.adjust
UPDATE loyalty_pending_points SET points = points + $3, updated_at = now()
     WHERE id = $1 AND project_id = $2 AND status = 'PENDING' AND points + $3 > 0 RETURNING id, project_id, voucher_id, campaign_id, customer_id, order_id, earning_rule_id, points, status, activates_at,
details, activation_error, created_at, updated_at, settled_at;

-- points/pending/pending-points.repository.ts: PendingPointsRepository.list (per call)
SELECT ${COLUMNS} FROM loyalty_pending_points WHERE ${where.join(' AND ')} ORDER BY id ${query.desc ? 'DESC' : 'ASC'} LIMIT $${params.push(query.limit)};

-- points/pending/pending-points.repository.ts: PendingPointsRepository.deleteOfCards
DELETE FROM loyalty_pending_points WHERE id IN (SELECT id FROM loyalty_pending_points WHERE voucher_id = ANY($1::text[]) LIMIT $2);

-- redemptions/redemption-events.repository.ts: RECORD (prepared redemption_events_record)
INSERT INTO events (id, project_id, type, entity_id, group_id, event_source, data)
  SELECT loyalty_time_id('evcus_'), s.project_id, s.type, s.entity_id, s.group_id, s.event_source,
         CASE WHEN octet_length(s.data::text) <= $2::int THEN s.data ELSE loyalty_event_fit(s.data, $2::int) END
  FROM (
SELECT v.project_id, e.type, v.holder_id AS entity_id, e.group_id, e.source AS event_source,
       (jsonb_build_object(
         'customer', loyalty_customer_json(cu),
         'holder', loyalty_customer_json(cu),
         'campaign', loyalty_campaign_json(ca),
         'voucher', loyalty_voucher_json(v, ca.name, v.points, coalesce(e.balance, v.balance), v.pending_points, v.next_expiration_date, v.next_expiration_points, (SELECT m.status = 'ACTIVE' FROM members m WHERE m.id = v.member_id)))
        || e.data)::json AS data
FROM ROWS FROM (jsonb_to_recordset($1::jsonb) AS (card_id text, balance bigint, type text, data jsonb, group_id text, source jsonb)) WITH ORDINALITY AS e(card_id, balance, type, data, group_id, source, n)
JOIN vouchers v ON v.id = e.card_id
JOIN customers cu ON cu.id = v.holder_id
JOIN campaigns ca ON ca.id = v.campaign_id
ORDER BY e.n OFFSET 0) s;

-- redemptions/redemption.repository.ts: INSERT (prepared redemptions_insert)
INSERT INTO redemptions (id, project_id, object, redemption_id, status, voucher_id, campaign_id, customer_id, reward_id, assignment_id, points, buckets,
                         target_card_id, target_points, order_id, tracking_id, reason, metadata, transaction_id, snapshot)
SELECT r.id, r.project_id, r.object, r.redemption_id, r.status, r.voucher_id, r.campaign_id, r.customer_id, r.reward_id, r.assignment_id, r.points, r.buckets,
       r.target_card_id, r.target_points, r.order_id, r.tracking_id, r.reason, r.metadata, r.transaction_id, r.snapshot
FROM ROWS FROM (jsonb_to_recordset($1::jsonb) AS (id text, project_id text, object text, redemption_id text, status text, voucher_id text, campaign_id text,
       customer_id text, reward_id text, assignment_id text, points bigint, buckets jsonb, target_card_id text, target_points bigint, order_id text,
       tracking_id text, reason text, metadata jsonb, transaction_id text, snapshot jsonb)) WITH ORDINALITY AS r
ORDER BY r.ordinality
RETURNING id, created_at;

-- redemptions/redemption.repository.ts: CARD_STATES (prepared redemptions_card_states)
SELECT id, code, campaign_id, holder_id, points::float8 AS points, balance::float8 AS balance, redeemed_points::float8 AS redeemed_points, redeemed_quantity, created_at, updated_at
FROM vouchers WHERE id = ANY($1::text[]);

-- redemptions/redemption.repository.ts: RedemptionRepository.markRolledBack
UPDATE redemptions SET status = 'ROLLED_BACK' WHERE project_id = $1 AND id = $2 AND status = 'SUCCEEDED';

-- redemptions/redemption.repository.ts: RedemptionRepository.list
SELECT r.id FROM redemptions r WHERE r.project_id = $1 AND ($2::text IS NULL OR r.campaign_id = $2) AND ($3::text IS NULL OR r.customer_id = $3)
AND ($4::text IS NULL OR r.order_id = $4) AND ($5::text IS NULL OR r.voucher_id = $5)
AND ($6::timestamptz IS NULL OR r.created_at < $6) AND ($7::timestamptz IS NULL OR r.created_at > $7) ORDER BY r.seq DESC LIMIT $8 OFFSET $9;

-- redemptions/redemption.repository.ts: RedemptionRepository.list #2
SELECT count(*)::int AS total FROM redemptions r WHERE r.project_id = $1 AND ($2::text IS NULL OR r.campaign_id = $2) AND ($3::text IS NULL OR r.customer_id = $3)
AND ($4::text IS NULL OR r.order_id = $4) AND ($5::text IS NULL OR r.voucher_id = $5)
AND ($6::timestamptz IS NULL OR r.created_at < $6) AND ($7::timestamptz IS NULL OR r.created_at > $7);

-- rewards/reward-assignment.repository.ts: OFFER (prepared reward_assignments_offer)
SELECT a.id, a.project_id, a.reward_id, a.campaign_id, a.points, a.created_at, a.updated_at FROM reward_assignments a JOIN campaigns c ON c.id = a.campaign_id AND c.deleted_at IS NULL WHERE a.project_id = $1 AND (a.reward_id, a.campaign_id) IN (SELECT * FROM unnest($2::text[], $3::text[]));

-- rewards/reward-assignment.repository.ts: RewardAssignmentRepository.holdCampaign
SELECT pg_advisory_xact_lock(hashtextextended('reward_assignments:' || $1, 0));

-- rewards/reward-assignment.repository.ts: RewardAssignmentRepository.holdCampaign #2
SELECT 1 FROM campaigns WHERE project_id = $1 AND id = $2 AND deleted_at IS NULL FOR KEY SHARE;

-- rewards/reward-assignment.repository.ts: RewardAssignmentRepository.insert
INSERT INTO reward_assignments (id, project_id, reward_id, campaign_id, points) VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (reward_id, campaign_id) DO NOTHING
RETURNING id, project_id, reward_id, campaign_id, points, created_at, updated_at;

-- rewards/reward-assignment.repository.ts: RewardAssignmentRepository.insert #2
SELECT id FROM reward_assignments WHERE reward_id = $1 AND campaign_id = $2;

-- rewards/reward-assignment.repository.ts: RewardAssignmentRepository.find
SELECT a.id, a.project_id, a.reward_id, a.campaign_id, a.points, a.created_at, a.updated_at FROM reward_assignments a JOIN campaigns c ON c.id = a.campaign_id AND c.deleted_at IS NULL
WHERE a.project_id = $1 AND a.id = $2 AND ($3::text IS NULL OR a.campaign_id = $3) AND ($4::text IS NULL OR a.reward_id = $4);

-- rewards/reward-assignment.repository.ts: RewardAssignmentRepository.list
SELECT a.id, a.project_id, a.reward_id, a.campaign_id, a.points, a.created_at, a.updated_at FROM reward_assignments a JOIN campaigns c ON c.id = a.campaign_id AND c.deleted_at IS NULL
WHERE a.project_id = $1 AND ($2::text IS NULL OR a.campaign_id = $2) AND ($3::text IS NULL OR a.reward_id = $3) AND ($4::text IS NULL OR a.id = $4) ORDER BY a.seq LIMIT $5 OFFSET $6;

-- rewards/reward-assignment.repository.ts: RewardAssignmentRepository.list #2
SELECT count(*)::int AS total FROM reward_assignments a JOIN campaigns c ON c.id = a.campaign_id AND c.deleted_at IS NULL
WHERE a.project_id = $1 AND ($2::text IS NULL OR a.campaign_id = $2) AND ($3::text IS NULL OR a.reward_id = $3) AND ($4::text IS NULL OR a.id = $4);

-- rewards/reward-assignment.repository.ts: RewardAssignmentRepository.update
UPDATE reward_assignments SET points = $3, updated_at = clock_timestamp() WHERE project_id = $1 AND id = $2
RETURNING id, project_id, reward_id, campaign_id, points, created_at, updated_at;

-- rewards/reward-assignment.repository.ts: RewardAssignmentRepository.delete
DELETE FROM reward_assignments WHERE project_id = $1 AND id = $2;

-- rewards/reward-assignment.repository.ts: RewardAssignmentRepository.inUse
SELECT a.id, count(*) OVER ()::int AS total FROM reward_assignments a JOIN campaigns c ON c.id = a.campaign_id AND c.deleted_at IS NULL
WHERE a.project_id = $1 AND a.reward_id = $2 ORDER BY a.seq LIMIT $3;

-- rewards/reward-assignment.repository.ts: RewardAssignmentRepository.deleteHidden
DELETE FROM reward_assignments a USING campaigns c WHERE a.project_id = $1 AND a.reward_id = $2 AND c.id = a.campaign_id AND c.deleted_at IS NOT NULL;

-- rewards/reward-assignment.repository.ts: RewardAssignmentRepository.offered
SELECT a.id, a.project_id, a.reward_id, a.campaign_id, a.points, a.created_at, a.updated_at, r.name AS r_name, r.type AS r_type, r.parameters AS r_parameters, r.stock AS r_stock, (CASE WHEN r.stock IS NULL THEN (SELECT count(*)::int FROM redemptions x WHERE x.project_id = r.project_id AND x.reward_id = r.id AND x.object = 'redemption' AND x.status = 'SUCCEEDED') ELSE r.redeemed END) AS r_redeemed,
            r.attributes AS r_attributes, r.metadata AS r_metadata, r.created_at AS r_created_at, r.updated_at AS r_updated_at

FROM reward_assignments a JOIN rewards r ON r.id = a.reward_id
WHERE a.project_id = $1 AND a.campaign_id = $2
  AND (NOT $4::boolean OR ((CASE WHEN r.type = 'COIN' THEN (r.parameters -> 'coin' ->> 'points_ratio')::bigint ELSE a.points END) <= (SELECT v.balance FROM vouchers v WHERE v.id = $3)
                           AND (r.stock IS NULL OR r.redeemed < r.stock))) ORDER BY a.seq LIMIT $5 OFFSET $6;

-- rewards/reward-assignment.repository.ts: RewardAssignmentRepository.offered #2
SELECT count(*)::int AS total
FROM reward_assignments a JOIN rewards r ON r.id = a.reward_id
WHERE a.project_id = $1 AND a.campaign_id = $2
  AND (NOT $4::boolean OR ((CASE WHEN r.type = 'COIN' THEN (r.parameters -> 'coin' ->> 'points_ratio')::bigint ELSE a.points END) <= (SELECT v.balance FROM vouchers v WHERE v.id = $3)
                           AND (r.stock IS NULL OR r.redeemed < r.stock)));

-- rewards/reward.repository.ts: FIND_TO_REDEEM (prepared rewards_find_to_redeem)
SELECT id, project_id, name, type, parameters, stock, redeemed, attributes, metadata, created_at, updated_at FROM rewards WHERE project_id = $1 AND id = ANY($2::text[]);

-- rewards/reward.repository.ts: TAKE_UNIT (prepared rewards_take_unit)
UPDATE rewards SET redeemed = redeemed + 1 WHERE project_id = $1 AND id = $2 AND (stock IS NULL OR redeemed < stock) RETURNING redeemed, stock;

-- rewards/reward.repository.ts: TAKE_UNITS (prepared rewards_take_units)
WITH held AS (SELECT id, redeemed FROM rewards WHERE project_id = $1 AND id = $2 FOR NO KEY UPDATE)
UPDATE rewards r SET redeemed = CASE WHEN r.stock IS NULL THEN r.redeemed + $3 ELSE least(r.stock, r.redeemed + $3) END
FROM held WHERE r.id = held.id RETURNING (r.redeemed - held.redeemed)::int AS taken;

-- rewards/reward.repository.ts: RETURN_UNITS (prepared rewards_return_units)
UPDATE rewards SET redeemed = CASE WHEN stock IS NULL THEN redeemed ELSE greatest(redeemed - $3, 0) END WHERE project_id = $1 AND id = $2;

-- rewards/reward.repository.ts: HOLD_UNLIMITED (prepared rewards_hold_unlimited)
SELECT stock FROM rewards WHERE project_id = $1 AND id = $2 FOR KEY SHARE;

-- rewards/reward.repository.ts: RETURN_UNIT (prepared rewards_return_unit)
UPDATE rewards SET redeemed = CASE WHEN stock IS NULL THEN redeemed ELSE greatest(redeemed - 1, 0) END WHERE project_id = $1 AND id = $2;

-- rewards/reward.repository.ts: LOCK_FOR_STOCK, RewardRepository.lockForDeletion
SELECT 1 FROM rewards WHERE project_id = $1 AND id = $2 FOR UPDATE;

-- rewards/reward.repository.ts: SET_STOCK
UPDATE rewards r SET stock = $3, redeemed = (CASE WHEN r.stock IS NULL THEN (SELECT count(*)::int FROM redemptions x WHERE x.project_id = r.project_id AND x.reward_id = r.id AND x.object = 'redemption' AND x.status = 'SUCCEEDED') ELSE r.redeemed END), updated_at = clock_timestamp()
WHERE r.project_id = $1 AND r.id = $2 AND (CASE WHEN r.stock IS NULL THEN (SELECT count(*)::int FROM redemptions x WHERE x.project_id = r.project_id AND x.reward_id = r.id AND x.object = 'redemption' AND x.status = 'SUCCEEDED') ELSE r.redeemed END) <= $3 RETURNING r.id;

-- rewards/reward.repository.ts: RewardRepository.countUnlimited
SELECT r.id, (CASE WHEN r.stock IS NULL THEN (SELECT count(*)::int FROM redemptions x WHERE x.project_id = r.project_id AND x.reward_id = r.id AND x.object = 'redemption' AND x.status = 'SUCCEEDED') ELSE r.redeemed END) AS redeemed FROM rewards r WHERE r.project_id = $1 AND r.id = ANY($2::text[]);

-- rewards/reward.repository.ts: RewardRepository.holdTypes
SELECT id, type FROM rewards WHERE project_id = $1 AND id = ANY($2::text[]) ORDER BY id FOR KEY SHARE;

-- rewards/reward.repository.ts: RewardRepository.delete
DELETE FROM rewards WHERE project_id = $1 AND id = $2;
