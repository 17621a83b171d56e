// The write paths of the member list benchmark against the plain baseline (bench/member-list-raw-server.mjs),
// each in interleaved windows A (the API) B (the baseline) B A in one run: enrolment, and the manual
// activation of pending points. Figures only: the targets are the list's.
import { randomBytes } from 'node:crypto';
import { interleaved, load } from './http-load.mjs';

/**
 * The write path: POST /v2/loyalties/programs/{id}/members (a new customer by source id each time, so each
 * request enrols one and makes its card) on the API and on the baseline, in windows A B B A. Both first
 * enrol one customer and must answer the same shape (values apart from ids, codes and times). Each window
 * adds members to the program, so the list parts run before this one.
 */
export async function enrolBaseline(ctx, path) {
  const raw = await ctx.startRaw();
  const headers = { ...ctx.headers, 'content-type': 'application/json' };
  const body = (sourceId) => JSON.stringify({ customer_identification: { type: 'customer_source_id', customer_source_id: sourceId } });
  const tag = Date.now().toString(36);
  const [fromApi, fromRaw] = await Promise.all([postJson(ctx.base + path, headers, body(`check-api-${tag}`)), postJson(raw.base + path, headers, body(`check-raw-${tag}`))]);
  const shape = (member) =>
    JSON.stringify({
      ...member,
      id: member.id.slice(0, 5),
      customer_id: member.customer_id.slice(0, 5),
      created_at: typeof member.created_at,
      cards: member.cards.map((card) => ({ ...card, created_at: typeof card.created_at, card: { ...card.card, id: card.card.id.slice(0, 2), code: card.card.code.length } })),
    });
  if (shape(fromApi) !== shape(fromRaw)) throw new Error(`enrolment: the API and the baseline answer differently:\n${JSON.stringify(fromApi)}\n${JSON.stringify(fromRaw)}`);
  const run = { path, headers, method: 'POST', body: body('bench-[<id>]'), idReplacement: true, seconds: ctx.seconds, connections: ctx.connections };
  // Neither has enrolled anyone yet: the same warm-up for both.
  for (const base of [ctx.base, raw.base]) await load({ ...run, base, seconds: Math.max(ctx.warmup, 2 * ctx.seconds) });
  const { a: api, b: baseline } = await interleaved(ctx.db, { a: { pid: ctx.api.pid, base: ctx.base }, b: { pid: raw.child.pid, base: raw.base } }, run);
  if (api.non2xx || baseline.non2xx) throw new Error(`enrolment: non-2xx answers (API ${api.non2xx}, baseline ${baseline.non2xx})`);
  const result = { key: 'enrol', page: 'enrolment (POST …/members)', path, api, baseline, throughput_ratio: Number((api.rps / baseline.rps).toFixed(3)), p99_ratio: Number((api.p99_ms / baseline.p99_ms).toFixed(3)) };
  return { method: 'windows A B B A (A = the API, B = bench/member-list-raw-server.mjs), each request a new customer source id', pages: [result] };
}

/**
 * `count` PENDING entries (due in a day, so nothing activates them by itself), one per card of the seeded
 * campaign in turn, with their orders, as earning makes them; returns [card code, entry id] pairs in an
 * order where consecutive entries are on different cards. Set-up in bulk SQL of its own, not the service's
 * statements (which make one order's entries at a time): only the requests measured send those.
 */
export async function makePendingEntries(db, seeded, count) {
  const tag = randomBytes(6).toString('hex');
  const ruleId = `ern_bench${tag}`;
  await db.query(
    `INSERT INTO earning_rules (id, project_id, campaign_id, event, loyalty, pending_points) VALUES ($1, $2, $3, 'order.paid', '{"type":"FIXED","points":5}', '{"period_type":"DAY","period_value":1}')`,
    [ruleId, seeded.project_id, seeded.campaign_id],
  );
  const { rows } = await db.query(
    `WITH cards AS (SELECT id, code, holder_id, row_number() OVER (ORDER BY id) - 1 AS n FROM vouchers WHERE campaign_id = $2 AND holder_id IS NOT NULL),
     rows AS (SELECT g, 'ord_' || md5($5 || g)::text AS order_id, 'lopp_' || left(md5($5 || 'e' || g), 18) AS id, c.id AS card, c.code, c.holder_id
              FROM generate_series(0, $4 - 1) g JOIN cards c ON c.n = g % (SELECT count(*) FROM cards)),
     orders AS (INSERT INTO orders (id, project_id, source_id, status, amount, customer_id) SELECT order_id, $1, order_id, 'PAID', 1000, holder_id FROM rows),
     entries AS (
       INSERT INTO loyalty_pending_points (id, project_id, voucher_id, campaign_id, customer_id, order_id, earning_rule_id, points, activates_at, details)
       SELECT id, $1, card, $2, holder_id, order_id, $3, 5, now() + interval '1 day',
         jsonb_build_object('event', jsonb_build_object('id', 'evcus_' || left(md5(id), 18), 'type', 'customer.order.paid', 'group_id', 'v-bench', 'entity_id', holder_id,
           'created_at', now(), 'category', 'ACTION', 'event_source', jsonb_build_object('channel', 'API')),
           'earning_rule', jsonb_build_object('id', $3::text, 'source', jsonb_build_object('banner', 'bench')),
           'order', jsonb_build_object('id', order_id, 'source_id', order_id))
       FROM rows)
     SELECT code, id FROM rows ORDER BY g`,
    [seeded.project_id, seeded.campaign_id, ruleId, count, tag],
  );
  await db.query(
    `UPDATE vouchers v SET pending_points = v.pending_points + p.sum FROM
     (SELECT voucher_id, sum(points)::int AS sum FROM loyalty_pending_points WHERE earning_rule_id = $1 GROUP BY voucher_id) p WHERE v.id = p.voucher_id`,
    [ruleId],
  );
  await db.query('VACUUM (ANALYZE) loyalty_pending_points, orders, vouchers');
  return rows.map((row) => [row.code, row.id]);
}

/**
 * The manual activation, POST /v1/loyalties/members/{code}/pending-points/{id}/activate, each request a
 * different PENDING entry (`entries`, from makePendingEntries; both sides take from the same list, so none
 * is asked for twice). Both first activate one and must answer the same shape.
 */
export async function activationBaseline(ctx, entries) {
  const raw = await ctx.startRaw();
  let next = 0;
  const take = () => {
    // Out of entries: the same one again, which answers 400 and fails the run (more --members).
    const [code, id] = entries[Math.min(next, entries.length - 1)];
    next += 1;
    return `/v1/loyalties/members/${encodeURIComponent(code)}/pending-points/${id}/activate`;
  };
  const [fromApi, fromRaw] = await Promise.all([postJson(ctx.base + take(), ctx.headers), postJson(raw.base + take(), ctx.headers)]);
  const shape = (answer) => JSON.stringify({ ...answer, related_object: { ...answer.related_object, id: answer.related_object.id.slice(0, 2) } });
  if (shape(fromApi) !== shape(fromRaw)) throw new Error(`activation: the API and the baseline answer differently:\n${JSON.stringify(fromApi)}\n${JSON.stringify(fromRaw)}`);
  const run = { path: '/', headers: ctx.headers, method: 'POST', seconds: ctx.seconds, connections: ctx.connections, requests: [{ method: 'POST', setupRequest: (request) => ({ ...request, path: take() }) }] };
  for (const base of [ctx.base, raw.base]) await load({ ...run, base, seconds: Math.max(ctx.warmup, 2 * ctx.seconds) });
  const { a: api, b: baseline } = await interleaved(ctx.db, { a: { pid: ctx.api.pid, base: ctx.base }, b: { pid: raw.child.pid, base: raw.base } }, run);
  if (api.non2xx || baseline.non2xx) throw new Error(`activation: non-2xx answers (API ${api.non2xx}, baseline ${baseline.non2xx}; ${next} of ${entries.length} entries asked for)`);
  const result = { key: 'activate', page: 'manual activation (POST …/activate)', path: '/v1/loyalties/members/{code}/pending-points/{id}/activate', api, baseline, throughput_ratio: Number((api.rps / baseline.rps).toFixed(3)), p99_ratio: Number((api.p99_ms / baseline.p99_ms).toFixed(3)) };
  return { method: 'windows A B B A (A = the API, B = bench/member-list-raw-server.mjs), each request a different PENDING entry', pages: [result], entries_used: next };
}

async function postJson(url, headers, body) {
  const response = await fetch(url, { method: 'POST', headers, body });
  const answer = await response.json();
  if (response.status !== 200) throw new Error(`POST ${url} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}
