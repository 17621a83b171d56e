// What the plain node:http + pg baselines (bench/member-list-raw-server.mjs, bench/orders-raw-server.mjs,
// bench/redemptions-raw-server.mjs)
// share: the application key check as the API does it (its statement imported from dist/), the JSON body and a
// JSON answer.
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { FIND_KEY } from '../../dist/auth/project.repository.js';

const sha256 = (text) => createHash('sha256').update(text, 'utf8').digest();

/**
 * The API's key check of a request's X-App-Id and X-App-Token (each present, at most 200 characters): one statement per app id, kept `cacheMs` (APP_KEY_CACHE_MS), then the token's SHA-256
 * compared in constant time (against a dummy hash for an unknown id). Resolves to { projectId, appId }, or null.
 */
export function keyChecker(pool, cacheMs) {
  const dummyHash = sha256(randomUUID());
  const keys = new Map();
  return async (req) => {
    const appId = req.headers['x-app-id'];
    const appToken = req.headers['x-app-token'];
    if (!appId || !appToken || appId.length > 200 || appToken.length > 200) return null;
    const now = Date.now();
    let key = keys.get(appId);
    if (!key || key.until <= now) {
      const [row] = (await pool.query(FIND_KEY, [appId])).rows;
      key = row ? { projectId: row.project_id, tokenSha256: row.token_sha256, until: now + cacheMs } : null;
      if (key && cacheMs > 0) keys.set(appId, key);
    }
    const matches = timingSafeEqual(sha256(appToken), key?.tokenSha256 ?? dummyHash);
    return key && matches ? { projectId: key.projectId, appId } : null;
  };
}

export function send(res, status, body) {
  const json = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) });
  res.end(json);
}

/** The request's JSON body (1 MB at most), or undefined when it is not JSON. */
export async function jsonBody(req) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > 1024 * 1024) return undefined;
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Serves `handle(req, res)` on 127.0.0.1:$PORT and prints "listening" (what the benchmarks wait for); a request
 * whose handling throws gets `refuse(failure, res)` if it takes it (returns true), else a 500 in the API's shape.
 * SIGTERM closes the server, then `close()` (the pool, the queue), then exits.
 */
export function serve(handle, close, refuse = () => false) {
  const server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
    handle(req, res).catch((failure) => {
      if (refuse(failure, res)) return;
      process.stderr.write(`${failure.stack ?? failure}\n`);
      if (!res.headersSent) send(res, 500, { code: 500, key: 'internal_server_error', message: 'Internal server error' });
    });
  });
  server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('listening\n'));
  process.once('SIGTERM', () =>
    server.close(() => {
      close().then(() => process.exit(0), () => process.exit(1));
    }),
  );
}
