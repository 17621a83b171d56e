// The member list page of the benchmark's baselines, GET /v2/loyalties/programs/{programId}/members, as the API
// does it: the same plan and SQL (planMemberList and memberPageQuery from dist/, the functions the API's service
// and repository call), the same cursors (HMAC-SHA256 with the installation's `cursor` secret, the same scope and
// payload, so a cursor either server issues works on the other) and the same JSON for a page. Shared by the plain
// node:http server (bench/member-list-raw-server.mjs) and the minimal NestJS one (bench/member-list-nest-server.mjs),
// so the two baselines differ only in what serves the request.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { planMemberList } from '../../dist/members/member-list-query.js';
import { memberPageQuery } from '../../dist/members/member-page.sql.js';

const CURSOR_PREFIX = 'lcrsmbr_';
const CURSOR_TTL_MS = 60 * 60 * 1000;
const MAC_BYTES = 16;
const DEFAULT_LIMIT = 10;

/** The error body of the API (docs/errors.md). */
export const error = (code, key, message, details) => ({ code, key, message, ...(details ? { details } : {}) });

/**
 * Reads the installation's cursor secret from `pool` and returns `page(projectId, programId, search)`: the
 * answer to one list request as `{ status, body }`, `search` being the query string without `?`. It supports
 * what the benchmark sends (limit, cursor, order); anything else is a 400. A bad `order` throws planMemberList's
 * 400 error (status 400, key, message, extra.details).
 */
export async function memberListPages(pool) {
  const [{ value: cursorKey }] = (await pool.query(`SELECT value FROM instance_secrets WHERE name = 'cursor'`)).rows;
  const mac = (body) => createHmac('sha256', cursorKey).update(body).digest().subarray(0, MAC_BYTES);

  function encodeCursor(scope, position) {
    const expiresAt = Date.now() + CURSOR_TTL_MS;
    const body = Buffer.from(JSON.stringify({ s: scope, p: position, e: expiresAt }), 'utf8');
    return { next: `${CURSOR_PREFIX}${body.toString('hex')}${mac(body).toString('hex')}`, expires_at: new Date(expiresAt).toISOString() };
  }

  function decodeCursor(cursor, scope) {
    const hex = cursor.startsWith(CURSOR_PREFIX) ? cursor.slice(CURSOR_PREFIX.length) : '';
    const raw = /^(?:[0-9a-f]{2})+$/.test(hex) ? Buffer.from(hex, 'hex') : Buffer.alloc(0);
    if (raw.length <= MAC_BYTES) return null;
    const body = raw.subarray(0, raw.length - MAC_BYTES);
    if (!timingSafeEqual(raw.subarray(raw.length - MAC_BYTES), mac(body))) return null;
    const payload = JSON.parse(body.toString('utf8'));
    return payload.s === scope && payload.e >= Date.now() ? payload.p : null;
  }

  const invalidQuery = (details) => ({ status: 400, body: error(400, 'invalid_query_params', 'Invalid query params', details) });

  return async function page(projectId, programId, search) {
    const query = new URLSearchParams(search);
    for (const name of query.keys()) {
      if (name !== 'limit' && name !== 'cursor' && name !== 'order') return invalidQuery(`${name} is not supported by the baseline`);
    }
    const limit = query.has('limit') ? Number(query.get('limit')) : DEFAULT_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) return invalidQuery('limit must be 1 to 100');
    const order = query.getAll('order');
    const plan = planMemberList(programId, order.length === 0 ? undefined : order.length === 1 ? order[0] : order, undefined);
    if (plan.sort[0].column === 'status') return invalidQuery('a status-led order is not supported by the baseline');
    const scope = `${projectId}|members|${plan.canonical}`;
    let after = null;
    if (query.has('cursor')) {
      after = decodeCursor(query.get('cursor'), scope);
      if (!after) return { status: 400, body: error(400, 'invalid_or_expired_cursor', 'Invalid or expired cursor') };
    }

    const { text, values } = memberPageQuery(projectId, programId, plan.sort, plan.filters, after, limit + 1, null);
    const { rows } = await pool.query(text, values);
    if (rows.length === 0) return { status: 404, body: error(404, 'not_found', 'Resource not found', `Cannot find program with id ${programId}`) };
    const members = rows.filter((row) => row.id !== null).slice(0, limit);
    const last = members.at(-1);
    const position = last && rows.length > limit ? plan.sort.map((key) => (key.column === 'created_at' ? last.created_at.toISOString() : last[key.column])) : null;
    return {
      status: 200,
      body: {
        data: members.map((row) => ({
          id: row.id,
          customer_id: row.customer_id,
          program_id: row.program_id,
          status: row.status,
          metadata: row.metadata,
          created_at: row.created_at.toISOString(),
          updated_at: row.updated_at?.toISOString() ?? null,
          object: 'member',
        })),
        cursor: position ? encodeCursor(scope, position) : null,
        object: 'list',
      },
    };
  };
}
