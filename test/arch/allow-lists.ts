/**
 * The lists test/arch/architecture.spec.ts checks the house against. Each says what is true today; when
 * a change needs another entry, add it in the same commit, with the reason in the commit message: a
 * reviewer reads every diff of this file. The floors themselves are not here: the test reads them from
 * docs/architecture.md ("Layers").
 */

/**
 * Who writes the point tables: each file with SQL text that INSERTs INTO, UPDATEs, DELETEs FROM (or MERGEs,
 * TRUNCATEs, COPYs into) the table, or a TypeORM write through the table's entity. The test fails on a
 * writer missing here and on an entry that no longer writes.
 *
 * The aim is one owner per table (cards/ for `vouchers`, points/ledger for the ledger, points/buckets for
 * the buckets, points/pending for the pending entries). Today a step that changes a card's points writes
 * the card, its ledger row and its buckets in one statement of its own repository (activation, expiry),
 * and the trigger of a card made with initial points writes all three; docs/architecture.md ("Who writes
 * the point tables") says why.
 */
export const TABLE_WRITERS: Record<string, string[]> = {
  vouchers: [
    'src/cards/card.repository.ts', // the point columns of locked cards (apply), deletion of a campaign's cards
    'src/cards/card-issue.repository.ts', // generation, publication, creation at enrolment
    'src/members/member-seed.repository.ts', // `cli.js seed`: bulk members for benchmarks
    'src/points/buckets/bucket.repository.ts', // next_expiration_date / _points after a bucket change
    'src/points/buckets/expiry.repository.ts', // the expiry statement (buckets, ledger and card together); cards set aside, released
    'src/points/pending/activation.repository.ts', // the activation statement: entry, card, ledger, bucket together
    'src/database/functions/vouchers_initial_points_ledger.sql', // trigger: a card made with initial points
  ],
  voucher_transactions: [
    'src/points/ledger/ledger.repository.ts',
    'src/points/buckets/expiry.repository.ts',
    'src/points/pending/activation.repository.ts',
    'src/database/functions/vouchers_initial_points_ledger.sql',
  ],
  loyalty_points_buckets: [
    'src/points/buckets/bucket.repository.ts',
    'src/points/buckets/expiry.repository.ts',
    'src/points/pending/activation.repository.ts',
    'src/database/functions/vouchers_initial_points_ledger.sql',
  ],
  loyalty_pending_points: [
    'src/points/pending/pending-points.repository.ts',
    'src/points/pending/activation.repository.ts',
  ],
  // The rewards tables (issue 38): one writer each. A redemption takes a stock unit through RewardRepository.
  rewards: ['src/rewards/reward.repository.ts'],
  reward_assignments: ['src/rewards/reward-assignment.repository.ts'],
};

/** Where a new writer of each table should go instead (the failure message says it). */
export const TABLE_OWNERS: Record<string, string> = {
  vouchers: 'cards/ (CardRepository: `lock` → LockedCards, `apply`; CardIssueRepository)',
  voucher_transactions: 'points/ledger (LedgerRepository.insert)',
  loyalty_points_buckets: 'points/buckets (BucketRepository)',
  loyalty_pending_points: 'points/pending (PendingPointsRepository)',
  rewards: 'rewards/ (RewardRepository: takeUnit, returnUnit for a redemption\'s stock unit)',
  reward_assignments: 'rewards/ (RewardAssignmentRepository)',
};

/**
 * Not searched for writers: a migration changes the schema or fixes data once, with a test of its own;
 * queries.sql is the inventory of the statements of src/, a copy kept for review (test/e2e/sql-sources.e2e-spec.ts).
 */
export const WRITERS_NOT_SEARCHED = ['src/database/migrations/', 'src/database/queries.sql'];

/**
 * Where TypeORM, `pg` and SQL text may be, besides `*.repository.ts`: entities (the mapping), `*.sql.ts` (SQL
 * text that repositories run), the persistence kit and its composition.
 */
export const SQL_PLACES = [/\.repository\.ts$/, /\.entity\.ts$/, /\.sql\.ts$/, /^src\/database\//, /^src\/app\/database\//];

/** Files outside SQL_PLACES that touch TypeORM, `pg` or SQL all the same, each with its reason. */
export const SQL_ELSEWHERE: Record<string, string> = {
  'src/events/delivery/worker/webhook-relay.ts': 'LISTENs for committed events on a pg client of its own (createPgClient)',
  'src/events/recording/event-recording.ts': "eventsInsertSql: the INSERT into events that the repositories writing events embed in their statements; the one file of events/ features import",
};
