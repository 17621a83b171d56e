// Part (c) of bench/redemptions.mjs: part (a)'s load on the API and on bench/redemptions-raw-server.mjs (node:http +
// pg, the API's statements in the same transaction), windows A B B A, as bench/orders.mjs part (c).
import { drain, interleavedOrders, postLoad } from './orders-load.mjs';
import { call } from './api.mjs';
import { checkData, redemptions } from './redemptions-setup.mjs';

/** The statement shapes one side sends that the other does not (each as its first 120 characters). */
function statementDifferences(api, raw) {
  const texts = (sample) => new Set((sample.shapes ?? []).map((shape) => shape.text));
  const [a, b] = [texts(api), texts(raw)];
  return [...[...a].filter((t) => !b.has(t)).map((t) => `API only: ${t.slice(0, 120)}`), ...[...b].filter((t) => !a.has(t)).map((t) => `baseline only: ${t.slice(0, 120)}`)];
}

/**
 * (c) Part (a)'s load on the API and on bench/redemptions-raw-server.mjs (node:http + pg, the API's statements in
 * the same transaction), windows A B B A on the same cards, reward and worker, as bench/orders.mjs part (c).
 * `bench`: the benchmark's process handling (assertAlive, startRaw, statementSample, stopChild) and its options
 * (warmup, duration, connections).
 */
export async function rawBaseline(bench, db, api, worker, headers, { spread, rawCodes, rawSampleCode, spreadReward, sample: apiSample }) {
  const { assertAlive, startRaw, statementSample, stopChild, warmup: WARMUP, duration: DURATION, connections: CONNECTIONS } = bench;
  assertAlive('before the baseline');
  const { child: raw, base: rawBase } = await startRaw();
  try {
    const next = redemptions(spread.id, rawCodes, spreadReward);
    // Both answer one redemption with the same keys (a redemption, its card, its reward).
    const keys = (answer) => JSON.stringify([Object.keys(answer).sort(), Object.keys(answer.voucher).sort(), Object.keys(answer.reward).sort()]);
    const one = (base) => {
      const { path, body } = next();
      return call(base, headers, 'POST', path, JSON.parse(body));
    };
    const [fromApi, fromRaw] = await Promise.all([one(api.base), one(rawBase)]);
    if (keys(fromApi) !== keys(fromRaw)) throw new Error(`the API and the baseline answer differently:\n${JSON.stringify(fromApi)}\n${JSON.stringify(fromRaw)}`);
    const sample = await statementSample(db, headers, redemptions(spread.id, [rawSampleCode], spreadReward), startRaw);
    const differences = statementDifferences(apiSample, sample);
    // The API has served parts (a) and (b) by now; give the baseline the same chance, and both a warm-up.
    await postLoad({ base: rawBase, path: '/', headers, seconds: Math.max(WARMUP, 2 * DURATION), connections: CONNECTIONS, next });
    await postLoad({ base: api.base, path: '/', headers, seconds: WARMUP, connections: CONNECTIONS, next });
    await drain(db);
    assertAlive("after the baseline's warm-up");
    const { a, b } = await interleavedOrders(
      db,
      { a: { base: api.base, processes: { api: api.child.pid, worker: worker.pid } }, b: { base: rawBase, processes: { raw: raw.pid, worker: worker.pid } } },
      { path: '/', headers, seconds: DURATION, connections: CONNECTIONS, next },
    );
    await drain(db);
    const data = await checkData(db, api, headers, spread.id, spreadReward);
    const side = ({ orders_per_s: perSecond, cpu_ms_per_order: cpu, database_per_order: perRedemption, windows, ...rest }) => ({
      ...rest,
      redemptions_per_s: perSecond,
      cpu_ms_per_redemption: cpu,
      database_per_redemption: perRedemption,
      windows: windows.map((w) => ({ redemptions_per_s: w.orders_per_s, p50_ms: w.p50_ms, p99_ms: w.p99_ms, status_codes: w.status_codes })),
    });
    return {
      method: "part (a)'s load on cards of its own, windows A B B A (A = the API, B = bench/redemptions-raw-server.mjs), figures = means of each side's two windows",
      statement_sample: sample,
      same_statements: { api: apiSample.statements_per_order ?? null, baseline: sample.statements_per_order ?? null, differences },
      api: side(a),
      baseline: side(b),
      throughput_ratio: Number((a.orders_per_s / b.orders_per_s).toFixed(3)),
      p99_ratio: Number((a.p99_ms / b.p99_ms).toFixed(3)),
      data,
    };
  } finally {
    await stopChild(raw);
  }
}

export function printRaw(r, sampleRedemptions) {
  console.log(`  (c) the API against a plain node:http + pg server sending its statements (part a's load, windows A B B A)`);
  for (const [label, side] of [['API', r.api], ['baseline', r.baseline]]) {
    console.log(
      `    ${label.padEnd(8)} ${side.redemptions_per_s.toFixed(0).padStart(5)} redemptions/s (windows ${side.windows.map((w) => w.redemptions_per_s.toFixed(0)).join(', ')}), p50 ${side.p50_ms} ms, p99 ${side.p99_ms} ms, ` +
        `statuses ${JSON.stringify(side.status_codes)}; CPU ms per redemption ${Object.entries(side.cpu_ms_per_redemption).map(([k, v]) => `${k} ${v}`).join(', ')}; ` +
        `per redemption ${Object.entries(side.database_per_redemption).map(([k, v]) => `${k} ${v}`).join(', ')}`,
    );
  }
  console.log(`    statements per redemption (log samples of ${sampleRedemptions}): API ${r.same_statements.api}, baseline ${r.same_statements.baseline}${r.same_statements.differences.length ? `; DIFFERENT:\n      ${r.same_statements.differences.join('\n      ')}` : ', the same statements'}`);
  console.log(`    API / baseline: throughput ${r.throughput_ratio}, p99 ${r.p99_ratio}; data ${JSON.stringify(r.data)}`);
}
