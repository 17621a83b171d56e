/**
 * OpenAPI-driven fuzz test. Every path × method of openapi/openapi.json (read at run time, so routes
 * added later are covered without touching this file) gets wrong body types, missing/unknown/__proto__
 * fields, NUL and lone-surrogate strings, huge, deep and wide values, malformed path and query values
 * and bad credentials. Each answer must be < 500, a status the operation documents, and (for errors)
 * the docs/errors.md body. Failures are collected per operation and reported grouped, not one by one.
 *
 * Deterministic: a fixed seed (FUZZ_SEED to try another) drives every random choice. Bounded: a few
 * thousand requests, 8 in flight. Only the path-parameter fixture map below knows about routes.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { type Answer, type Failure, excerpt, msByKind, pool, problemsOf, rawExchange, send, slowest, summarize } from '../support/fuzz-client.js';
import { type FuzzCase, authCases, assertFuzzable, bodyCases, fillPath, headerCases, manyKeysBody, pathCases, queryCases } from '../support/fuzz-mutations.js';
import { type Operation, Rng, loadOpenApi, objectSchemaOf, operationsOf, resolve, sample, stringForPattern } from '../support/fuzz-schema.js';
import { useStack } from '../support/fixture.js';
import { createFinishedCampaign } from '../support/harness.js';

const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed);
const CONCURRENCY = Number(process.env.FUZZ_CONCURRENCY ?? 8);
const SLOW_MS = 5_000; // no answer may take longer
const MANY_KEYS_MS = 2_000; // the 119,000-key body must be answered within this
const STALL_MS = 1_000; // nor block the event loop (so /health meanwhile) longer than this

const doc = loadOpenApi();
const errorSchema = doc.components.schemas.ErrorResponseDto ?? doc.components.schemas.ErrorResponse;
const ERROR_KEYS = resolve(doc, errorSchema).properties?.key?.enum ?? [];
// Destructive operations go last (deepest resource first), so the others hit live fixtures.
const operations: Operation[] = operationsOf(doc).sort(
  (a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE') || (a.method === 'DELETE' ? b.path.length - a.path.length : 0),
);

describe(`OpenAPI fuzz (openapi/openapi.json, seed ${SEED})`, () => {
  const rng = new Rng(SEED);
  const started = Date.now();
  let sent = 0;
  const stack = useStack({
    listen: true,
    worker: true, // generates the campaign's cards
    // The second project sends the raw requests: the flood before them may have emptied the first's rate
    // limit, and a 429 would hide the parser's answer these requests are about.
    projects: ['Fuzz project', 'Fuzz raw requests'],
    beforeClose: () => {
      const costly = [...msByKind].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([kind, ms]) => `${kind} ${(ms / 1000).toFixed(1)} s`);
      console.log(
        `fuzz: ${sent} requests in ${((Date.now() - started) / 1000).toFixed(1)} s; slowest ${Math.round(slowest.ms)} ms: ${slowest.request}\n` +
          `summed answer times of the costliest kinds: ${costly.join(', ')}`,
      );
    },
  });
  let port: number;
  let fixtures: Record<string, string>;
  let manyKeysTooSlow: string | undefined;

  beforeAll(async () => {
    port = (stack.app.getHttpServer().address() as { port: number }).port;
    const campaign = await createFinishedCampaign<{ id: string; program_id: string }>(stack.app, stack.a, { name: 'Fuzz campaign', vouchers_count: 3 });
    const member = await stack
      .http()
      .post(`/v2/loyalties/programs/${campaign.program_id}/members`)
      .set(stack.a.headers)
      .send({ customer_identification: { type: 'customer_source_id', customer_source_id: 'fuzz-member' } });
    const ping = await stack.http().post('/v1/diagnostics/pings').set(stack.a.headers).send({ note: 'fuzz' });
    if (member.status !== 200 || ping.status !== 200) throw new Error(`fixtures: enrolment ${member.status}, ping ${ping.status}`);
    fixtures = {
      campaignId: campaign.id,
      programId: campaign.program_id,
      memberId: member.body.id, // v2 routes: the lmbr_ id
      cardCode: member.body.cards[0].card.code, // v1 routes call the card code memberId
      customerId: member.body.customer_id,
      pingId: ping.body.id,
    };
  }, 60_000);

  /** Real ids for the operation's path parameters; a random valid-looking id for names not known here. */
  function idsFor(op: Operation): { ids: Record<string, string>; allKnown: boolean } {
    const known: Record<string, string> = { ...fixtures, memberId: op.path.startsWith('/v1/') ? fixtures.cardCode : fixtures.memberId };
    const ids: Record<string, string> = {};
    let allKnown = true;
    for (const [, name] of op.path.matchAll(/\{([^}]+)\}/g)) {
      allKnown &&= name in known;
      ids[name] = encodeURIComponent(known[name] ?? unknownId(op, name));
    }
    return { ids, allKnown };
  }
  function unknownId(op: Operation, name: string): string {
    const pattern = op.op.parameters?.find((p) => p.name === name)?.schema?.pattern;
    return (pattern && stringForPattern(pattern, rng)) || `fz_${rng.token(16)}`;
  }

  function missesFixture(answer: Answer, ids: Record<string, string>): boolean {
    if (answer.status !== 404) return false;
    let body: { resource_id?: string; details?: string };
    try {
      body = JSON.parse(answer.text) as typeof body;
    } catch {
      return false;
    }
    return Object.values(ids).some((id) => decodeURIComponent(id) === body.resource_id) || /route/.test(body.details ?? '');
  }
  const auth = () => ({ appId: stack.a.app_id, token: stack.a.app_token });
  const failureOf = (op: string, c: FuzzCase, answer: Answer, problems: string[]): Failure => ({
    operation: op,
    kind: c.kind,
    what: c.what,
    request: `${c.method} ${c.path.length > 140 ? `${c.path.slice(0, 120)}… (${c.path.length} chars)` : c.path}`,
    status: answer.status,
    problems,
    excerpt: answer.error ?? excerpt(answer.text),
  });

  it('finds operations and the error keys in openapi.json', () => {
    expect(operations.length).toBeGreaterThan(0);
    expect(ERROR_KEYS.length).toBeGreaterThan(0);
  });

  describe.each(operations.map((op) => [op.label, op] as const))('%s', (_label, op) => {
    it('answers every mutated request below 500, with a documented status and the error shape', async () => {
      assertFuzzable(op);
      const sentBefore = sent;
      const { ids, allKnown } = idsFor(op);
      const realPath = fillPath(op.path, ids);
      const cases = [
        ...pathCases(op, ids, (name) => unknownId(op, name)),
        ...queryCases(doc, op, rng, realPath),
        ...(op.op.requestBody ? bodyCases(doc, op, rng, realPath) : []),
        ...authCases(op, realPath),
        ...headerCases(doc, op, rng, realPath),
      ];
      const failures: Failure[] = [];
      const check = (c: FuzzCase, answer: Answer, extra: string[] = []) => {
        const problems = [...problemsOf(answer, ERROR_KEYS, op.op.responses), ...extra];
        if (problems.length) failures.push(failureOf(op.label, c, answer, problems));
      };
      await pool(cases, CONCURRENCY, async (c) => check(c, await send(port, c, auth())));
      sent += cases.length;

      if (op.op.requestBody) {
        // 119,000 top-level keys, valid JSON under the 1 MiB limit: must be answered quickly, and must
        // not stall the event loop for the other clients meanwhile.
        const text = manyKeysBody();
        const many: FuzzCase = { kind: 'body:many-keys', what: '119,000 top-level keys', method: op.method, path: realPath, body: () => text, auth: 'valid' };
        if (manyKeysTooSlow) {
          // Each such request would block the process as long again: report instead of waiting.
          failures.push(failureOf(op.label, many, { status: 0, headers: {}, text: '', ms: 0 }, [`not sent: ${manyKeysTooSlow}`]));
        } else {
          // The API runs in this process, so a /health probe sent from here would be stalled along
          // with the server and could not see a stall; the event-loop delay is what it would measure.
          const loop = monitorEventLoopDelay({ resolution: 10 });
          loop.enable();
          const answer = await send(port, many, auth(), true);
          loop.disable();
          const stalledMs = Math.round(loop.max / 1e6);
          check(many, answer, [
            ...(answer.ms > MANY_KEYS_MS ? [`answered in ${Math.round(answer.ms)} ms (> ${MANY_KEYS_MS})`] : []),
            ...(stalledMs > STALL_MS ? [`event loop blocked ${stalledMs} ms (> ${STALL_MS}): GET /health and every other client waited that long`] : []),
          ]);
          if (answer.ms > MANY_KEYS_MS) manyKeysTooSlow = `${op.label} took ${Math.round(answer.ms)} ms for it`;
          sent += 1;
        }
      }

      // The unmutated request with real ids. If it says one of those ids (or the route) does not exist,
      // the fixture map does not fit this route and the mutations above never reached the resource.
      // (Not for DELETE: its mutated requests with real ids have deleted the resource by now.)
      const bodySchema = op.op.requestBody?.content?.['application/json']?.schema;
      const baseline: FuzzCase = { kind: 'baseline', what: 'valid sample, real ids', method: op.method, path: realPath, auth: 'valid' };
      if (bodySchema) baseline.body = () => JSON.stringify(sample(doc, objectSchemaOf(doc, bodySchema) ?? bodySchema, rng));
      const answer = await send(port, baseline, auth());
      check(baseline, answer, allKnown && op.method !== 'DELETE' && missesFixture(answer, ids) ? ['404 for a real id: the fixture map does not fit this route'] : []);
      sent += 1;

      if (failures.length) throw new Error(`${op.label}: ${sent - sentBefore} requests\n${summarize(failures)}`);
    }, 120_000);
  });

  /** What Node's HTTP parser and Express's body parser reject before any route: no OpenAPI status applies. */
  it('answers requests rejected before routing (parser, header limit, encodings) with the error shape', async () => {
    const target = operations.find((op) => op.op.requestBody && !op.path.includes('{'));
    if (!target) throw new Error('no operation with a request body and no path parameters to aim the raw requests at');
    const headers = `Host: localhost\r\nX-App-Id: ${stack.b.app_id}\r\nX-App-Token: ${stack.b.app_token}\r\nConnection: close\r\n`;
    const post = (extraHeaders: string, body: string | Buffer) =>
      Buffer.concat([Buffer.from(`${target.method} ${target.path} HTTP/1.1\r\n${headers}${extraHeaders}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n`), Buffer.from(body)]);
    const raw: [what: string, expected: number, payload: string | Buffer][] = [
      ['malformed request line (space in the target)', 400, `GET /v1/loyalties?a=1 2 HTTP/1.1\r\n${headers}\r\n`],
      ['not HTTP at all', 400, 'HELLO\r\n\r\n'],
      ['header section over the limit (20 kB header)', 431, `GET /v1/loyalties HTTP/1.1\r\n${headers}X-Fuzz: ${'a'.repeat(20_000)}\r\n\r\n`],
      ['invalid header name', 400, `GET /v1/loyalties HTTP/1.1\r\n${headers}X Fuzz: 1\r\n\r\n`],
      ['malformed chunked body', 400, `${target.method} ${target.path} HTTP/1.1\r\n${headers}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`],
      ['Content-Encoding: gzip with garbage', 400, post('Content-Type: application/json\r\nContent-Encoding: gzip\r\n', 'certainly not gzip')],
      ['unsupported Content-Encoding', 415, post('Content-Type: application/json\r\nContent-Encoding: x-fuzz\r\n', '{}')],
      ['unsupported charset', 415, post('Content-Type: application/json; charset=klingon\r\n', '{}')],
      ['malformed JSON', 400, post('Content-Type: application/json\r\n', '{"a":')],
    ];
    const failures: Failure[] = [];
    for (const [what, expected, payload] of raw) {
      const started = performance.now();
      const answer = await rawExchange(port, payload);
      const asAnswer: Answer = { status: answer.status, headers: answer.headers, text: answer.text, ms: performance.now() - started };
      const problems = [...(answer.status === expected ? [] : [`expected ${expected}`]), ...problemsOf(asAnswer, ERROR_KEYS)];
      const request = (typeof payload === 'string' ? payload : payload.toString('latin1')).replace(stack.a.app_token, '…');
      if (problems.length) failures.push({ operation: 'raw socket', kind: what, what, request: excerpt(request, 120), status: answer.status, problems, excerpt: excerpt(answer.raw || '(no answer)') });
    }
    sent += raw.length;
    if (failures.length) throw new Error(summarize(failures));
  }, 60_000);

  it('is still healthy afterwards, nothing was slow, and Object.prototype was not polluted', async () => {
    const health = await stack.http().get('/health');
    expect(health.status).toBe(200);
    // The __proto__ / constructor.prototype payloads carried {polluted: 'yes'}; the API shares this process.
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    if (slowest.ms > SLOW_MS) throw new Error(`an answer took ${Math.round(slowest.ms)} ms (> ${SLOW_MS}): ${slowest.request}`);
  });
});
