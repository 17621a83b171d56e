// The member list benchmark's side-by-side comparisons, each in interleaved windows A B B A in one run:
// the API against the plain node:http + pg baseline (bench/member-list-raw-server.mjs), the API against a
// minimal NestJS server doing the same work (bench/member-list-nest-server.mjs), and the API with its rate
// limiter against one without.
import { interleaved, load } from './http-load.mjs';

/** Issue "Hot path": throughput ≥ 0.7 of the baseline, p99 ≤ 1.5 × its p99, API CPU ≤ 0.8 ms a request. */
export const RAW_TARGETS = { throughput_ratio_at_least: 0.7, p99_ratio_at_most: 1.5, api_cpu_ms_per_request_at_most: 0.8 };
/** Issue 40: throughput ≥ 0.9 of the minimal NestJS server's, on every page. */
export const NEST_TARGETS = { throughput_ratio_at_least: 0.9 };

/**
 * `ctx`: { db, api, base, headers, seconds, warmup, connections, startRaw }. `pages`: [{ key, name, path }].
 * First checks that both servers answer the same `data` for every page (and that a cursor of one works
 * on the other), then measures each page in windows A (the API) B (the baseline) B A.
 */
export async function rawBaseline(ctx, pages) {
  const results = await againstBaseline(ctx, pages, await ctx.startRaw());
  return { method: 'windows A B B A per page (A = the API as production runs it, limiter on at 1,000,000/s; B = bench/member-list-raw-server.mjs), figures = means of each side’s two windows', pages: results };
}

/** The same as rawBaseline against the minimal NestJS server (`ctx.startNest`), judged by NEST_TARGETS. */
export async function nestBaseline(ctx, pages) {
  const results = await againstBaseline(ctx, pages, await ctx.startNest());
  return { method: 'windows A B B A per page (A = the API as production runs it, limiter on at 1,000,000/s; B = bench/member-list-nest-server.mjs), figures = means of each side’s two windows', pages: results };
}

/** Checks that `raw` ({ child, base }) answers as the API does, warms it, then measures each page A B B A. */
async function againstBaseline(ctx, pages, raw) {
  for (const page of pages) {
    const [fromApi, fromRaw] = await Promise.all([getJson(ctx.base + page.path, ctx.headers), getJson(raw.base + page.path, ctx.headers)]);
    if (JSON.stringify(fromApi.data) !== JSON.stringify(fromRaw.data) || fromApi.data.length === 0) {
      throw new Error(`${page.name}: the API and the baseline answer different data:\n${JSON.stringify(fromApi.data).slice(0, 500)}\n${JSON.stringify(fromRaw.data).slice(0, 500)}`);
    }
    // Same signing key, scope and payload: the next page through the other server's cursor is the same.
    const after = (cursor) => `${page.path.replace(/&cursor=[^&]*/, '')}&cursor=${encodeURIComponent(cursor.next)}`;
    const [nextApi, nextRaw] = await Promise.all([getJson(ctx.base + after(fromRaw.cursor), ctx.headers), getJson(raw.base + after(fromApi.cursor), ctx.headers)]);
    if (JSON.stringify(nextApi.data) !== JSON.stringify(nextRaw.data)) throw new Error(`${page.name}: the next pages differ`);
  }
  // The API has served tens of thousands of requests by now; give the baseline's JIT the same chance.
  await load({ base: raw.base, path: pages[0].path, headers: ctx.headers, seconds: Math.max(ctx.warmup, 3 * ctx.seconds), connections: ctx.connections });
  const results = [];
  for (const page of pages) {
    if (ctx.warmup > 0) await load({ base: raw.base, path: page.path, headers: ctx.headers, seconds: ctx.warmup, connections: ctx.connections });
    const { a: api, b: baseline } = await interleaved(ctx.db, { a: { pid: ctx.api.pid, base: ctx.base }, b: { pid: raw.child.pid, base: raw.base } }, { path: page.path, headers: ctx.headers, seconds: ctx.seconds, connections: ctx.connections });
    if (api.non2xx || baseline.non2xx) throw new Error(`${page.name}: non-2xx answers (API ${api.non2xx}, baseline ${baseline.non2xx})`);
    results.push({
      key: page.key,
      page: page.name,
      path: page.path,
      api,
      baseline,
      throughput_ratio: Number((api.rps / baseline.rps).toFixed(3)),
      p99_ratio: Number((api.p99_ms / baseline.p99_ms).toFixed(3)),
    });
  }
  return results;
}

/**
 * Prints the comparison; true when every page meets RAW_TARGETS (`judged` false: figures only, as for the
 * write path, which the targets do not cover).
 */
export function printRawBaseline({ pages }, title = 'the API against the plain node:http + pg baseline (windows A B B A)', judged = true, targets = RAW_TARGETS) {
  console.log(`\n  ${title}:`);
  let pass = true;
  for (const r of pages) {
    const met =
      r.throughput_ratio >= targets.throughput_ratio_at_least &&
      (targets.p99_ratio_at_most === undefined || r.p99_ratio <= targets.p99_ratio_at_most) &&
      (targets.api_cpu_ms_per_request_at_most === undefined || r.api.server_cpu_ms_per_request <= targets.api_cpu_ms_per_request_at_most);
    const ok = met || !judged;
    pass &&= ok;
    console.log(
      `    ${r.page.padEnd(28)} API ${r.api.rps.toFixed(0).padStart(5)} req/s p50 ${r.api.p50_ms} p99 ${r.api.p99_ms} ms CPU ${r.api.server_cpu_ms_per_request} ms | ` +
        `baseline ${r.baseline.rps.toFixed(0).padStart(5)} req/s p50 ${r.baseline.p50_ms} p99 ${r.baseline.p99_ms} ms CPU ${r.baseline.server_cpu_ms_per_request} ms | ` +
        `throughput ${r.throughput_ratio} p99 ${r.p99_ratio}${judged ? ` ${ok ? 'PASS' : 'FAIL'}` : ''}`,
    );
  }
  return pass;
}

/**
 * The limiter's cost: the same page from this API (limiter on) and from a second one started with
 * RATE_LIMIT_PER_SECOND=0, in windows A B B A.
 */
export async function limiterCost(ctx, path) {
  const off = await ctx.startApi({ RATE_LIMIT_PER_SECOND: '0' });
  const offBase = `http://127.0.0.1:${off.port}`;
  const first = await fetch(offBase + path, { headers: ctx.headers });
  if (first.status !== 200 || first.headers.has('x-rate-limit-limit')) throw new Error(`the API without a limiter answered ${first.status} with rate limit headers: ${first.headers.get('x-rate-limit-limit')}`);
  // The API without a limiter has just started: its JIT has not seen the tens of thousands of requests the
  // other one served (at 2 s of warm-up it used a third more CPU per request). Warm it as long as three
  // measured windows first.
  await load({ base: offBase, path, headers: ctx.headers, seconds: Math.max(ctx.warmup, 3 * ctx.seconds), connections: ctx.connections });
  const { a: on, b: offFigures } = await interleaved(ctx.db, { a: { pid: ctx.api.pid, base: ctx.base }, b: { pid: off.child.pid, base: offBase } }, { path, headers: ctx.headers, seconds: ctx.seconds, connections: ctx.connections });
  if (on.non2xx || offFigures.non2xx) throw new Error(`rate limiter comparison: non-2xx answers (on ${on.non2xx}, off ${offFigures.non2xx})`);
  return { method: 'first page, windows A B B A (A = limiter on at 1,000,000/s, B = RATE_LIMIT_PER_SECOND=0)', on, off: offFigures, throughput_on_over_off: Number((on.rps / offFigures.rps).toFixed(3)) };
}

async function getJson(url, headers) {
  const response = await fetch(url, { headers });
  const body = await response.json();
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${JSON.stringify(body)}`);
  return body;
}
