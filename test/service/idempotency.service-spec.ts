import { ApiError } from '../../src/common/errors/api-error.js';
import { hexId } from '../../src/common/ids.js';
import { type Tx, TransactionRunner } from '../../src/database/transaction-runner.js';
import { IdempotencyModule } from '../../src/idempotency/idempotency.module.js';
import { type IdempotentDone, type IdempotentRequest, IdempotencyService } from '../../src/idempotency/idempotency.service.js';
import { IdempotencySweep } from '../../src/idempotency/idempotency.sweep.js';
import { unique } from '../support/points.js';
import { useServices } from '../support/services.js';

const SCOPE = 'tests.idempotency';

interface Answer {
  ping: string;
  points: number;
}

/** A promise and the function that settles it: work that waits until the test lets it go on. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => undefined as void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('IdempotencyService on PostgreSQL (no HTTP)', () => {
  const services = useServices({ imports: [IdempotencyModule], providers: [IdempotencySweep] });
  const { db } = services;
  const idempotency = () => services.get(IdempotencyService);
  const transactions = () => services.get(TransactionRunner);

  let projectId: string;
  beforeAll(async () => {
    projectId = (await services.project('Idempotency test project')).id;
  });

  const request = (key: string | undefined, body: object, scope = SCOPE, project = projectId): IdempotentRequest => ({ projectId: project, scope, key, fingerprint: { memberId: 'lmbr_1', body } });

  /**
   * The business write of a test request: one row of `diagnostic_pings` (a table any project may write), and
   * the answer stored in the same transaction. `runs` counts the executions.
   */
  function business(note: string, points: number, runs: { n: number }) {
    return async (done: IdempotentDone<Answer>): Promise<Answer> => {
      runs.n += 1;
      return transactions().run(async (tx) => {
        const answer = await insertPing(tx, note, points);
        await done(tx, answer);
        return answer;
      });
    };
  }

  async function insertPing(tx: Tx, note: string, points: number): Promise<Answer> {
    const ping = hexId('ping_');
    await tx.query(`INSERT INTO diagnostic_pings (id, project_id, status, note) VALUES ($1, $2, 'DONE', $3)`, [ping, projectId, note]);
    return { ping, points };
  }

  const pings = (note: string) => db.count('SELECT 1 FROM diagnostic_pings WHERE project_id = $1 AND note = $2', [projectId, note]);
  const row = async (key: string, scope = SCOPE) =>
    (await db.query<{ status: string; response_status: number | null; response_body: unknown; ttl_ms: number }>(
      `SELECT status, response_status, response_body, (extract(epoch FROM expires_at - created_at) * 1000)::bigint::int AS ttl_ms
       FROM idempotency_keys WHERE project_id = $1 AND scope = $2 AND key = $3`,
      [projectId, scope, key],
    ))[0];

  it('replays the first answer to the same key and request, without running the work again; keeps the key IDEMPOTENCY_TTL_MS', async () => {
    const key = unique('replay');
    const runs = { n: 0 };
    const first = await idempotency().run(request(key, { points: 10 }), business(key, 10, runs));
    const again = await idempotency().run(request(key, { points: 10 }), business(key, 10, runs));
    expect(again).toEqual(first);
    expect(runs.n).toBe(1);
    expect(await pings(key)).toBe(1);
    expect(await row(key)).toEqual({ status: 'DONE', response_status: 200, response_body: first, ttl_ms: 86_400_000 });
  });

  it('sees the same request whatever the order of its keys; another scope or project is another key', async () => {
    const key = unique('scoped');
    const runs = { n: 0 };
    await idempotency().run({ projectId, scope: SCOPE, key, fingerprint: { a: 1, b: { c: 2, d: 3 } } }, business(key, 1, runs));
    await idempotency().run({ projectId, scope: SCOPE, key, fingerprint: { b: { d: 3, c: 2 }, a: 1 } }, business(key, 1, runs));
    expect(runs.n).toBe(1);
    await idempotency().run({ projectId, scope: `${SCOPE}.other`, key, fingerprint: { a: 1, b: { c: 2, d: 3 } } }, business(key, 1, runs));
    const other = (await services.project('Idempotency other project')).id;
    await idempotency().run({ projectId: other, scope: SCOPE, key, fingerprint: { a: 1, b: { c: 2, d: 3 } } }, business(key, 1, runs));
    expect(runs.n).toBe(3);
  });

  it('refuses the same key with another request: 422 idempotency_key_reused, nothing run', async () => {
    const key = unique('reused');
    const runs = { n: 0 };
    await idempotency().run(request(key, { points: 10 }), business(key, 10, runs));
    const refused = idempotency().run(request(key, { points: 11 }), business(key, 11, runs));
    await expect(refused).rejects.toBeInstanceOf(ApiError);
    await expect(refused).rejects.toMatchObject({ status: 422, key: 'idempotency_key_reused', message: 'Idempotency key reused' });
    await expect(refused).rejects.toMatchObject({ extra: { details: expect.stringContaining(`'${key}' was already used with another request`) } });
    expect(runs.n).toBe(1);
    expect(await pings(key)).toBe(1);
  });

  it('answers 409 idempotency_request_in_progress while the first request runs (422 for another request), then replays it', async () => {
    const key = unique('in-flight');
    const runs = { n: 0 };
    const entered = gate();
    const release = gate();
    const first = idempotency().run(request(key, { points: 5 }), async (done) => {
      entered.open();
      await release.opened;
      return business(key, 5, runs)(done);
    });
    await entered.opened;
    await expect(idempotency().run(request(key, { points: 5 }), business(key, 5, runs))).rejects.toMatchObject({ status: 409, key: 'idempotency_request_in_progress' });
    await expect(idempotency().run(request(key, { points: 6 }), business(key, 6, runs))).rejects.toMatchObject({ status: 422, key: 'idempotency_key_reused' });
    expect(runs.n).toBe(0);
    release.open();
    const answer = await first;
    expect(await idempotency().run(request(key, { points: 5 }), business(key, 5, runs))).toEqual(answer);
    expect(runs.n).toBe(1);
  });

  it('runs one of 20 parallel identical requests: the others get 409 or the replay, nothing else', async () => {
    const key = unique('race');
    const runs = { n: 0 };
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => idempotency().run(request(key, { points: 3 }), business(key, 3, runs))));
    expect(runs.n).toBe(1);
    expect(await pings(key)).toBe(1);
    const answers = results.filter((r): r is PromiseFulfilledResult<Answer> => r.status === 'fulfilled').map((r) => r.value);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as ApiError);
    expect(answers.length).toBeGreaterThanOrEqual(1);
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(refused.map((e) => `${e.status} ${e.key}`).filter((e) => e !== '409 idempotency_request_in_progress')).toEqual([]);
    // Once it is done, every retry gets the answer.
    expect(await idempotency().run(request(key, { points: 3 }), business(key, 3, runs))).toEqual(answers[0]);
  });

  it('stores a 4xx ApiError and throws it again; a 409, a 5xx or another error stores nothing, so a retry runs', async () => {
    const key = unique('client-error');
    let runs = 0;
    const notFound = async (): Promise<Answer> => {
      runs += 1;
      throw ApiError.notFound('member', 'lmbr_0123456789abcdef01');
    };
    const first = await idempotency().run(request(key, {}), notFound).catch((e: unknown) => e);
    const again = await idempotency().run(request(key, {}), notFound).catch((e: unknown) => e);
    expect(runs).toBe(1);
    expect(again).toBeInstanceOf(ApiError);
    expect(again).toMatchObject({ status: 404, key: 'not_found', message: 'Resource not found', extra: (first as ApiError).extra });
    expect((again as ApiError).toBody('v-1')).toEqual((first as ApiError).toBody('v-1'));
    expect(await row(key)).toMatchObject({ status: 'DONE', response_status: 404 });

    for (const failure of [new Error('a bug'), ApiError.databaseBusy('pool'), ApiError.duplicate('campaign', 'name', 'x'), new ApiError(429, 'too_many_requests', 'Too many requests')]) {
      const other = unique('not-stored');
      const retry = { n: 0 };
      await expect(
        idempotency().run(request(other, {}), async () => {
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await row(other)).toBeUndefined();
      await idempotency().run(request(other, {}), business(other, 1, retry));
      expect({ failure: failure.message, runs: retry.n }).toEqual({ failure: failure.message, runs: 1 });
    }
  });

  it('stores nothing when the transaction that completed the key rolls back: the retry runs', async () => {
    const key = unique('rollback');
    const runs = { n: 0 };
    const failing = async (done: IdempotentDone<Answer>): Promise<Answer> => {
      const rolledBack = await transactions()
        .run(async (tx) => {
          await done(tx, await insertPing(tx, key, 1));
          throw new Error('the business transaction fails after done');
        })
        .catch((e: unknown) => e);
      // Before run releases the claim: the answer went with the transaction.
      expect(await row(key)).toMatchObject({ status: 'IN_FLIGHT', response_status: null, response_body: null });
      expect(await pings(key)).toBe(0);
      throw rolledBack;
    };
    await expect(idempotency().run(request(key, {}), failing)).rejects.toThrow('the business transaction fails after done');
    const answer = await idempotency().run(request(key, {}), business(key, 2, runs));
    expect(runs.n).toBe(1);
    expect(answer.points).toBe(2);
    expect(await pings(key)).toBe(1);
  });

  it('completes once when the transaction runner runs the transaction again after a deadlock', async () => {
    const key = unique('retried');
    let attempts = 0;
    const answer = await idempotency().run(request(key, {}), (done) =>
      transactions().run(async (tx) => {
        attempts += 1;
        const result = await insertPing(tx, key, 4);
        await done(tx, result);
        if (attempts === 1) throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
        return result;
      }),
    );
    expect(attempts).toBe(2);
    expect(await pings(key)).toBe(1);
    expect(await row(key)).toMatchObject({ status: 'DONE', response_body: answer });
    expect(await idempotency().run(request(key, {}), () => Promise.reject(new Error('not run again')))).toEqual(answer);
  });

  it('stores the answer of work that wrote nothing (it did not call done)', async () => {
    const key = unique('no-write');
    let runs = 0;
    const work = async () => {
      runs += 1;
      return { ping: 'none', points: 0 };
    };
    await idempotency().run(request(key, {}), work);
    expect(await idempotency().run(request(key, {}), work)).toEqual({ ping: 'none', points: 0 });
    expect(runs).toBe(1);
  });

  it('deletes expired keys in the sweep (in batches); an expired key runs again, even before the sweep', async () => {
    const keys = Array.from({ length: 5 }, (_, i) => unique(`expired-${i}`));
    const runs = { n: 0 };
    for (const key of keys) await idempotency().run(request(key, {}), business(key, 1, runs));
    const expire = (some: string[]) => db.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE project_id = $1 AND key = ANY($2)`, [projectId, some]);
    const left = () => db.count('SELECT 1 FROM idempotency_keys WHERE project_id = $1 AND key = ANY($2)', [projectId, keys]);

    // Expired and not yet swept: the key is forgotten, the request runs.
    await expire([keys[0]]);
    await idempotency().run(request(keys[0], { other: true }), business(keys[0], 2, runs));
    expect(runs.n).toBe(6);
    expect(await row(keys[0])).toMatchObject({ status: 'DONE', ttl_ms: 86_400_000 });

    await expire(keys.slice(1, 4));
    expect(await idempotency().deleteExpired(2)).toBeGreaterThanOrEqual(3);
    expect(await left()).toBe(2);
    await expire([keys[4]]);
    expect(await services.get(IdempotencySweep).run()).toBeGreaterThanOrEqual(1);
    expect(await left()).toBe(1);
    await idempotency().run(request(keys[4], {}), business(keys[4], 1, runs));
    expect(runs.n).toBe(7);
  });

  it('lets a retry take over a claim older than the lease; the first request, if it still ends, commits nothing', async () => {
    const key = unique('lease');
    const runs = { n: 0 };
    const entered = gate();
    const release = gate();
    const stale = idempotency().run(request(key, { points: 1 }), async (done) => {
      entered.open();
      await release.opened;
      return business(`${key}-stale`, 1, runs)(done);
    });
    await entered.opened;
    await db.query(`UPDATE idempotency_keys SET locked_at = now() - interval '61 seconds' WHERE project_id = $1 AND key = $2`, [projectId, key]);
    // Another request with the key is still refused: the dead claim is the same request's to take over.
    await expect(idempotency().run(request(key, { points: 2 }), business(key, 2, runs))).rejects.toMatchObject({ status: 422 });
    const answer = await idempotency().run(request(key, { points: 1 }), business(key, 1, runs));
    expect(runs.n).toBe(1);

    release.open();
    await expect(stale).rejects.toMatchObject({ status: 409, key: 'idempotency_request_in_progress' });
    expect(await pings(`${key}-stale`)).toBe(0);
    expect(await pings(key)).toBe(1);
    expect(await idempotency().run(request(key, { points: 1 }), business(key, 1, runs))).toEqual(answer);
    expect(runs.n).toBe(2);
  });

  it('refuses a malformed key (400 invalid_payload) and runs every request without one', async () => {
    for (const key of ['', 'x'.repeat(256), 'clé', 'tab\there']) {
      await expect(idempotency().run(request(key, {}), () => Promise.reject(new Error('not run')))).rejects.toMatchObject({ status: 400, key: 'invalid_payload', extra: { details: expect.stringMatching(/^Idempotency-Key header must be 1 to 255 printable ASCII characters/) } });
    }
    const runs = { n: 0 };
    const note = unique('no-key');
    await idempotency().run(request(undefined, {}), business(note, 1, runs));
    await idempotency().run(request(undefined, {}), business(note, 1, runs));
    expect(runs.n).toBe(2);
    expect(await pings(note)).toBe(2);
    expect(await idempotency().run(request('x'.repeat(255), {}), business(unique('long'), 1, runs))).toMatchObject({ points: 1 });
  });
});
