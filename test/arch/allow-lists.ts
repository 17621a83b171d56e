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
 * the buckets, points/pending for the pending entries). The statements that change a card's points in the
 * database (an activation batch, an expiry chunk: card, ledger row and buckets in one statement) embed the
 * owners' SQL for those writes (TABLE_PIECES), so the text of every write is its owner's; the trigger of a
 * card made with initial points writes all three itself; docs/architecture.md ("Who writes the point
 * tables") says why.
 */
export const TABLE_WRITERS: Record<string, string[]> = {
  vouchers: [
    'src/cards/card.repository.ts', // the point columns (apply, cardDeltasSql, nextExpirationSql), expiry set aside/released, deletion of a campaign's cards
    'src/cards/card-issue.repository.ts', // generation, publication, creation at enrolment
    'src/members/member-seed.repository.ts', // `cli.js seed`: bulk members for benchmarks
    'src/database/functions/vouchers_initial_points_ledger.sql', // trigger: a card made with initial points
  ],
  voucher_transactions: [
    'src/points/ledger/ledger.repository.ts', // insert, ledgerInsertSql; a forced campaign deletion's batches
    'src/database/functions/vouchers_initial_points_ledger.sql',
  ],
  loyalty_points_buckets: [
    'src/points/buckets/bucket.repository.ts', // credit, bucketCreditSql, drain, restore, reschedule; deletion's batches
    'src/points/buckets/expiry.repository.ts', // the expiry statement: its buckets EXPIRED
    'src/database/functions/vouchers_initial_points_ledger.sql',
  ],
  loyalty_pending_points: [
    'src/points/pending/pending-points.repository.ts',
    'src/points/pending/activation.repository.ts',
  ],
  // The rewards tables (issue 38): one writer each. A redemption takes a stock unit through RewardRepository.
  rewards: ['src/rewards/reward.repository.ts'],
  reward_assignments: ['src/rewards/reward-assignment.repository.ts'],
  // Redemptions and their rollbacks (issue 38): one writer.
  redemptions: ['src/redemptions/redemption.repository.ts'],
};

/**
 * The owners' SQL that statements of other files embed (or run) to write a point table, by exported name and
 * owner file, with the files that import it (src/ only; bench/ sends the service's statements too). A new
 * importer is a visible change of this list, as a new writer is of TABLE_WRITERS.
 */
export const TABLE_PIECES: { name: string; owner: string; table: string; importers: string[] }[] = [
  { name: 'cardDeltasSql', owner: 'src/cards/card.repository.ts', table: 'vouchers', importers: ['src/points/pending/activation.repository.ts', 'src/points/buckets/expiry.repository.ts'] },
  { name: 'nextExpirationSql', owner: 'src/cards/card.repository.ts', table: 'vouchers', importers: ['src/points/buckets/bucket.repository.ts'] },
  // A statement of the buckets' (a card's next expiration from its buckets, through the cards' nextExpirationSql).
  { name: 'REFRESH_NEXT', owner: 'src/points/buckets/bucket.repository.ts', table: 'vouchers', importers: ['src/points/pending/activation.repository.ts'] },
  { name: 'ledgerInsertSql', owner: 'src/points/ledger/ledger.repository.ts', table: 'voucher_transactions', importers: ['src/points/pending/activation.repository.ts', 'src/points/buckets/expiry.repository.ts'] },
  { name: 'bucketCreditSql', owner: 'src/points/buckets/bucket.repository.ts', table: 'loyalty_points_buckets', importers: ['src/points/pending/activation.repository.ts'] },
];

/** Where a new writer of each table should go instead (the failure message says it). */
export const TABLE_OWNERS: Record<string, string> = {
  vouchers: 'cards/ (CardRepository: `lock` → LockedCards, `apply`, `cardDeltasSql`; CardIssueRepository); for a point movement, points/ledger (PointsPosting.post)',
  voucher_transactions: 'points/ledger (PointsPosting.post for a point movement; LedgerRepository, `ledgerInsertSql`)',
  loyalty_points_buckets: 'points/buckets (BucketRepository, `bucketCreditSql`); for a point movement, points/ledger (PointsPosting.post)',
  loyalty_pending_points: 'points/pending (PendingPointsRepository)',
  rewards: 'rewards/ (RewardRepository: takeUnit, takeUnits, returnUnit, returnUnits for redemptions\' stock units)',
  reward_assignments: 'rewards/ (RewardAssignmentRepository)',
  redemptions: 'redemptions/ (RedemptionRepository)',
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
