// A benchmark's database made large (issue 40, "cost that does not grow with the data"): what a big program leaves
// behind, beside the benchmark's own rows (bench/orders-large.mjs, bench/pending-points.mjs with BENCH_LARGE_CARDS).
import { run } from './processes.mjs';

const FILL_CHUNK = 100_000;
const secs = (from, to) => Number(((to - from) / 1000).toFixed(1));

/**
 * The CLI's seed (a project of its own, an AUTO_UPDATE campaign, `cards` customers, members and cards), then
 * `ledger` / `cards` ledger rows on each card (an even number: `ledger` must be a multiple of 2 × `cards`),
 * additions and removals of 10 points in turn over the past days, so that each card's rows sum to its balance
 * (0) and its counters match (the cards' CHECK holds), FILL_CHUNK cards a statement; then `VACUUM (ANALYZE)`.
 * `db`: a client of the database `env` names. Returns the times taken and the database's size.
 */
export async function fillLargeDatabase({ db, env, cards, ledger }) {
  const pairs = ledger / cards / 2;
  if (!Number.isInteger(pairs)) throw new Error(`the ledger rows (${ledger}) must be a multiple of 2 × the cards (${cards})`);
  const started = performance.now();
  const seed = JSON.parse((await run(process.execPath, ['dist/cli.js', 'seed', '--members', String(cards)], env)).trim().split('\n').at(-1));
  const seeded = performance.now();
  for (let after = ''; ; ) {
    const { rows } = await db.query(
      `WITH c AS (SELECT id, project_id, campaign_id FROM vouchers WHERE campaign_id = $1 AND id > $2 ORDER BY id LIMIT $3),
       tx AS (
         INSERT INTO voucher_transactions (id, project_id, voucher_id, campaign_id, type, points, balance_after, details, created_at)
         SELECT 'vtx_' || left(md5(c.id || g), 18), c.project_id, c.id, c.campaign_id,
                CASE WHEN g % 2 = 1 THEN 'POINTS_ADDITION' ELSE 'POINTS_REMOVAL' END, CASE WHEN g % 2 = 1 THEN 10 ELSE -10 END, CASE WHEN g % 2 = 1 THEN 10 ELSE 0 END,
                json_build_object('balance', json_build_object('type', 'loyalty_card', 'total', CASE WHEN g % 2 = 1 THEN 10 ELSE 0 END, 'object', 'balance',
                  'points', CASE WHEN g % 2 = 1 THEN 10 ELSE -10 END, 'balance', CASE WHEN g % 2 = 1 THEN 10 ELSE 0 END, 'operation_type', 'MANUAL',
                  'related_object', json_build_object('id', c.id, 'type', 'voucher')), 'reason', 'bench'),
                now() - ($4 * 2 - g) * interval '1 day'
         FROM c CROSS JOIN generate_series(1, $4 * 2) g
       ), upd AS (
         UPDATE vouchers v SET points = v.points + 10 * $4, added_points = v.added_points + 10 * $4, subtracted_points = v.subtracted_points + 10 * $4 FROM c WHERE v.id = c.id
       )
       SELECT max(id) AS last, count(*)::int AS n FROM c`,
      [seed.campaign_id, after, FILL_CHUNK, pairs],
    );
    if (!rows[0].n) break;
    after = rows[0].last;
  }
  const ledgered = performance.now();
  await db.query('VACUUM (ANALYZE)');
  const [size] = (
    await db.query(
      `SELECT pg_database_size(current_database()) AS bytes, (SELECT count(*) FROM vouchers)::int AS cards, (SELECT count(*) FROM voucher_transactions)::int AS ledger_rows, (SELECT count(*) FROM customers)::int AS customers`,
    )
  ).rows;
  return { seed_s: secs(started, seeded), ledger_s: secs(seeded, ledgered), vacuum_s: secs(ledgered, performance.now()), database_gib: Number((size.bytes / 2 ** 30).toFixed(2)), cards: size.cards, ledger_rows: size.ledger_rows, customers: size.customers };
}
