/**
 * Sending the fuzz test's requests and judging the answers. Requests go through node:http (not
 * supertest, whose URL handling would normalise `..` or re-encode `%00`) so the bytes sent are exactly
 * the ones generated; a few go through node:net for what Node itself rejects.
 */
import { Agent, type IncomingHttpHeaders, request } from 'node:http';
import { connect } from 'node:net';
import type { FuzzCase } from './fuzz-mutations.js';

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  ms: number;
  /** Set when no HTTP answer came (connection reset, timeout). */
  error?: string;
}

export interface Failure {
  operation: string;
  kind: string;
  what: string;
  request: string;
  status: number;
  problems: string[];
  excerpt: string;
}

const REQUEST_TIMEOUT_MS = 30_000; // well above the 5 s limit, so a slow answer is measured, not cut
const agent = new Agent({ keepAlive: true, maxSockets: 16 });

/** The slowest answer of the run, checked at the end, and the time spent per kind of mutation. */
export const slowest = { ms: 0, request: '' };
export const msByKind = new Map<string, number>();

/** `fresh`: a new connection, for requests timed on their own (a kept-alive one may be reset meanwhile). */
export function send(port: number, c: FuzzCase, auth: { appId: string; token: string }, fresh = false): Promise<Answer> {
  const body = c.body?.();
  const headers: Record<string, string | number> = {};
  if (c.auth !== 'none') Object.assign(headers, { 'X-App-Id': auth.appId, 'X-App-Token': c.auth === 'valid' ? auth.token : 'wrong-token' });
  if (body !== undefined) Object.assign(headers, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  if (c.headers) Object.assign(headers, c.headers);
  const started = performance.now();
  return new Promise((resolve) => {
    const done = (answer: Omit<Answer, 'ms'>) => {
      const ms = performance.now() - started;
      msByKind.set(c.kind, (msByKind.get(c.kind) ?? 0) + ms);
      if (ms > slowest.ms) Object.assign(slowest, { ms, request: `${c.method} ${c.path.slice(0, 120)} (${c.kind}: ${c.what})` });
      resolve({ ...answer, ms });
    };
    const req = request({ host: '127.0.0.1', port, method: c.method, path: c.path, headers, agent: fresh ? false : agent, timeout: REQUEST_TIMEOUT_MS }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (error) => done({ status: 0, headers: {}, text: '', error: String(error) }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    req.on('error', (error) => done({ status: 0, headers: {}, text: '', error: String(error) }));
    req.end(body);
  });
}

/** Runs `work` over `items`, `concurrency` at a time. */
export async function pool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[(next += 1) - 1]);
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
}

const ERROR_FIELDS = new Set(['code', 'key', 'message', 'details', 'request_id', 'resource_id', 'resource_type']);
const REQUEST_ID = /^v-[0-9a-f]{18}$/;

/**
 * What is wrong with an answer: a 5xx, a status the operation does not document (`documented`
 * undefined skips that check), or an error body not of the docs/errors.md shape.
 */
export function problemsOf(answer: Answer, errorKeys: readonly unknown[], documented?: Record<string, unknown>): string[] {
  if (answer.error) return [`no answer: ${answer.error}`];
  const { status } = answer;
  const problems: string[] = [];
  if (status >= 500) problems.push(`server error ${status}`);
  if (documented && !(String(status) in documented || `${String(status)[0]}XX` in documented || 'default' in documented)) {
    problems.push(`status ${status} not documented (documented: ${Object.keys(documented).join(', ')})`);
  }
  const headerId = answer.headers['x-request-id'];
  if (typeof headerId !== 'string' || !REQUEST_ID.test(headerId)) problems.push(`X-Request-Id header ${JSON.stringify(headerId)} is not v- + 18 hex`);
  if (status < 400) return problems;

  if (!/^application\/json\b/.test(answer.headers['content-type'] ?? '')) problems.push(`content-type ${JSON.stringify(answer.headers['content-type'])} is not JSON`);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(answer.text) as Record<string, unknown>;
  } catch {
    return [...problems, 'error body is not JSON'];
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [...problems, 'error body is not a JSON object'];
  if (status === 401) {
    if (JSON.stringify(body) !== '{"code":401,"key":"unauthorized","message":"Unauthorized"}') problems.push('401 body is not exactly {code,key,message}');
    return problems;
  }
  if (body.code !== status) problems.push(`code ${JSON.stringify(body.code)} ≠ status ${status}`);
  if (!errorKeys.includes(body.key)) problems.push(`key ${JSON.stringify(body.key)} is not an ErrorResponse key`);
  if (typeof body.message !== 'string' || !body.message) problems.push('message is not a non-empty string');
  if (typeof body.details !== 'string' || !body.details) problems.push('details is not a non-empty string');
  if (body.request_id !== headerId) problems.push(`request_id ${JSON.stringify(body.request_id)} ≠ X-Request-Id header`);
  for (const field of ['resource_id', 'resource_type']) {
    if (field in body && typeof body[field] !== 'string') problems.push(`${field} is not a string`);
  }
  const extra = Object.keys(body).filter((k) => !ERROR_FIELDS.has(k));
  if (extra.length) problems.push(`unexpected fields ${extra.join(', ')}`);
  return problems;
}

export function excerpt(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max)}…` : flat || '(empty body)';
}

/** Failures grouped by operation × kind: counts, and the first examples of each group. */
export function summarize(failures: Failure[], examplesPerGroup = 3): string {
  const groups = new Map<string, Failure[]>();
  for (const f of failures) groups.set(`${f.operation}  ${f.kind}`, [...(groups.get(`${f.operation}  ${f.kind}`) ?? []), f]);
  const lines = [`${failures.length} failing request(s) in ${groups.size} group(s):`];
  for (const [group, list] of groups) {
    const problemCounts = new Map<string, number>();
    for (const f of list) for (const p of f.problems) problemCounts.set(p.replace(/\(documented: .*\)/, '').trim(), (problemCounts.get(p.replace(/\(documented: .*\)/, '').trim()) ?? 0) + 1);
    lines.push(`\n■ ${group}: ${list.length} — ${[...problemCounts].map(([p, n]) => `${p} ×${n}`).join('; ')}`);
    for (const f of list.slice(0, examplesPerGroup)) {
      lines.push(`    • ${f.what}\n      ${f.request}\n      → ${f.status} ${f.excerpt}`);
    }
  }
  return lines.join('\n');
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
  raw: string;
}

/** Writes `payload` to a fresh TCP connection and reads until the server closes it (or 5 s pass). */
export function rawExchange(port: number, payload: string | Buffer, timeoutMs = 5_000): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      socket.destroy();
      const raw = Buffer.concat(chunks).toString('latin1');
      const split = raw.indexOf('\r\n\r\n');
      const head = split < 0 ? raw : raw.slice(0, split);
      const [statusLine, ...headerLines] = head.split('\r\n');
      const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      let text = split < 0 ? '' : Buffer.from(raw.slice(split + 4), 'latin1').toString('utf8');
      if (headers['content-length']) text = text.slice(0, Number(headers['content-length']));
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0), headers, text, raw });
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', finish);
    socket.on('error', () => undefined); // a reset after the answer is normal here
    socket.write(payload);
  });
}
