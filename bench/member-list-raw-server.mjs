// The baseline of the member list benchmark: GET /v2/loyalties/programs/{programId}/members served by a plain
// `node:http` server and a `pg` pool, with none of the service's framework around it. It does what the API
// does for that request, the same way, so the difference between the two is what the framework costs:
//
//   - the same application key check: `app_keys` joined to `projects` by app id (one statement, cached for
//     APP_KEY_CACHE_MS as the API caches it), then SHA-256 of the token compared in constant time;
//   - the same query plan, SQL text and bind values, on a pool of the same size (10), the same cursors and the
//     same JSON for a page (bench/lib/member-list-page.mjs, which the minimal NestJS baseline serves too).
//
// It supports what the benchmark sends (limit, cursor, order); anything else is a 400.
//
// And the write path, POST /v2/loyalties/programs/{programId}/members (enrolment by customer source id),
// with the statements the API sends for it, in the same order and transaction: the program with its campaign,
// the customer made or found, then in one transaction the member's insert, the search for a free card, the new
// card (an AUTO_UPDATE campaign), the card's and the member's reads, and the campaign's card count; after it,
// the card's next activation (bench/member-list-raw-enrol.sql.mjs: the service's statements from dist/, and
// TypeORM's three reads as logged). Ids and codes come from the API's own generators (dist/), and the answer
// has the API's shape.
//
// And the manual activation, POST /v1/loyalties/members/{code}/pending-points/{id}/activate, with the API's
// statements (bench/member-list-raw-activate.sql.mjs, from dist/, named as the API prepares them).
//
// No logging, no request ids, no rate limit. Started by bench/member-list.mjs with DATABASE_URL and PORT in
// the environment; prints "listening" when ready.
import pg from 'pg';
import { error, memberListPages } from './lib/member-list-page.mjs';
import { jsonBody, keyChecker, send, serve } from './lib/raw-server.mjs';
import { CodeGenerator } from '../dist/campaigns/code-config.js';
import { base62Id, hexId } from '../dist/common/ids.js';
import { loadConfig } from '../dist/config/app-config.js';
import { ACTIVATE_SQL } from './member-list-raw-activate.sql.mjs';
import { ENROL_SQL } from './member-list-raw-enrol.sql.mjs';

const POOL_SIZE = 10;
const KEY_CACHE_MS = Number(process.env.APP_KEY_CACHE_MS ?? 5000);
const PATH = /^\/v2\/loyalties\/programs\/([^/?]+)\/members$/;
const ACTIVATE_PATH = /^\/v1\/loyalties\/members\/([^/?]+)\/pending-points\/([^/?]+)\/activate$/;

const EVENT_MAX_BYTES = loadConfig().events.payloadMaxBytes;

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: POOL_SIZE, application_name: 'loyalty-raw-baseline', keepAlive: true, query_timeout: 15_000 });
const authenticate = keyChecker(pool, KEY_CACHE_MS);
const listPage = await memberListPages(pool);

async function handle(req, res) {
  const mark = req.url.indexOf('?');
  const pathname = mark < 0 ? req.url : req.url.slice(0, mark);
  const match = PATH.exec(pathname);
  const activation = req.method === 'POST' ? ACTIVATE_PATH.exec(pathname) : null;
  if (!activation && ((req.method !== 'GET' && req.method !== 'POST') || !match)) return send(res, 404, error(404, 'not_found', 'Resource not found'));
  const { projectId, appId } = (await authenticate(req)) ?? {};
  if (!projectId) return send(res, 401, error(401, 'unauthorized', 'Unauthorized'));

  if (activation) return activate(res, projectId, appId, decodeURIComponent(activation[1]), decodeURIComponent(activation[2]));
  const programId = decodeURIComponent(match[1]);
  if (req.method === 'POST') return enrol(req, res, projectId, programId);
  const { status, body } = await listPage(projectId, programId, mark < 0 ? '' : req.url.slice(mark + 1));
  send(res, status, body);
}

const invalid = (details) => error(400, 'invalid_payload', 'Invalid payload', details);

/** The API's program status: DELETED, or ACTIVE within its dates, INACTIVE otherwise. */
function programStatus(campaign, now = new Date()) {
  if (campaign.c_deleted_at) return 'DELETED';
  const started = !campaign.c_start_date || campaign.c_start_date <= now;
  const notExpired = !campaign.c_expiration_date || campaign.c_expiration_date >= now;
  return campaign.c_active && started && notExpired ? 'ACTIVE' : 'INACTIVE';
}

/** `v_…` → `lcrd_…`, `camp_…` → `lcdef_…`: the API's v2 ids (the suffix's characters as hex). */
const v2Id = (prefix, id) => prefix + Buffer.from(id.slice(id.indexOf('_') + 1), 'latin1').toString('hex');

/** The API's v2 card, from TypeORM's row of it and its next activation (a row of the next-activation statement, or none). */
function v2Card(c, next) {
  const n = (column) => Number(c[`LoyaltyCard_${column}`]);
  const added = n('initial_points') + n('added_points');
  return {
    id: v2Id('lcrd_', c.LoyaltyCard_id),
    card_definition_id: v2Id('lcdef_', c.LoyaltyCard_campaign_id),
    code: c.LoyaltyCard_code,
    campaign_id: c.LoyaltyCard_campaign_id,
    card_type: 'INDIVIDUAL',
    lifetime_bucket: {
      points: {
        total: n('points'),
        earned: n('points') - added,
        added,
        purchased: 0,
        purchased_reversed: 0,
        subtracted: n('subtracted_points'),
        expired: n('expired_points'),
        spent: 0,
        refunded: 0,
        returned: 0,
        locked: 0,
        unlocked: 0,
      },
      pending_points: { total: n('pending_activated_points') + n('pending_canceled_points') + n('pending_points'), activated: n('pending_activated_points'), canceled: n('pending_canceled_points') },
    },
    balance: { points: n('balance'), pending_points: n('pending_points') },
    next_expiration: c.LoyaltyCard_next_expiration_date ? { points: n('next_expiration_points'), date: c.LoyaltyCard_next_expiration_date } : null,
    next_activation: next ? { points: Number(next.points), type: 'PERIOD_BASED', date: next.day } : null,
    points_total: n('points'),
    object: 'card',
  };
}

async function enrol(req, res, projectId, programId) {
  const body = await jsonBody(req);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return send(res, 400, invalid('the body must be a JSON object'));
  const identification = body.customer_identification;
  if (identification?.type !== 'customer_source_id' || typeof identification.customer_source_id !== 'string' || identification.customer_source_id === '') {
    return send(res, 400, invalid('the baseline takes customer_identification {type: customer_source_id, customer_source_id}'));
  }
  const status = body.status ?? 'ACTIVE';
  const metadata = body.metadata ?? {};
  if (status !== 'ACTIVE' && status !== 'INACTIVE') return send(res, 400, invalid('status must be one of ACTIVE, INACTIVE'));
  if (typeof metadata !== 'object' || Array.isArray(metadata)) return send(res, 400, invalid('metadata must be an object'));

  const [program] = (await pool.query(ENROL_SQL.program, [projectId, programId])).rows;
  if (!program) return send(res, 404, error(404, 'not_found', 'Resource not found', `Cannot find program with id ${programId}`));
  if (programStatus(program) !== 'ACTIVE') return send(res, 423, error(423, 'non_active_program', 'Invalid program status', 'Cannot create member when program status is not ACTIVE'));
  const sourceId = identification.customer_source_id;
  const [made] = (await pool.query(ENROL_SQL.customer, [projectId, [sourceId], [base62Id('cust_', 24)]])).rows;
  const customerId = (made ?? (await pool.query(ENROL_SQL.customerAgain, [projectId, sourceId])).rows[0]).id;

  const memberId = hexId('lmbr_');
  const client = await pool.connect();
  let answer;
  try {
    await client.query('START TRANSACTION');
    const inserted = await client.query(ENROL_SQL.insertMember, [memberId, projectId, programId, customerId, status, metadata]);
    if (inserted.rows.length === 0) {
      await client.query('ROLLBACK');
      return send(res, 409, error(409, 'member_already_exists', 'Member already exists', `Customer '${customerId}' already is a member of program '${programId}'`));
    }
    let [card] = (await client.query(ENROL_SQL.freeCard, [memberId, customerId, program.c_id])).rows;
    let madeCard = false;
    if (!card && program.c_type === 'AUTO_UPDATE') {
      const codes = new CodeGenerator(program.c_voucher.code_config);
      const points = program.c_voucher.loyalty_card.points;
      for (let attempt = 0; attempt < 10 && !card; attempt += 1) {
        [card] = (await client.query(ENROL_SQL.newCard, [base62Id('v_', 32), projectId, program.c_id, codes.next(), points, memberId, customerId])).rows;
      }
      madeCard = Boolean(card);
    }
    if (!card) {
      await client.query('ROLLBACK');
      return send(res, 400, error(400, 'no_free_card', 'No free card', 'the campaign has no card to give'));
    }
    const [c] = (await client.query(ENROL_SQL.card, [card.id])).rows;
    const [m] = (await client.query(ENROL_SQL.member, [memberId])).rows;
    if (madeCard) await client.query(ENROL_SQL.countCard, [program.c_id]);
    await client.query('COMMIT');
    // After the commit, as the API reads it; on this connection, which the request still holds.
    const [next] = (await client.query(ENROL_SQL.nextActivations, [projectId, [c.LoyaltyCard_id]])).rows;
    answer = {
      id: m.Member_id,
      customer_id: m.Member_customer_id,
      program_id: m.Member_program_id,
      status: m.Member_status,
      metadata: m.Member_metadata,
      created_at: m.Member_created_at.toISOString(),
      updated_at: m.Member_updated_at?.toISOString() ?? null,
      object: 'member',
      cards: [
        {
          member_role: 'OWNER',
          created_at: (c.LoyaltyCard_published_at ?? c.LoyaltyCard_created_at).toISOString(),
          card: v2Card(c, next),
          object: 'member_card',
        },
      ],
    };
  } catch (failure) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw failure;
  } finally {
    client.release();
  }
  send(res, 200, answer);
}

/** The manual activation of one PENDING entry of the card with this code, as the API does it. */
async function activate(res, projectId, appId, code, entryId) {
  const [card] = (await pool.query(ACTIVATE_SQL.card, [projectId, code, null])).rows;
  if (!card) return send(res, 404, error(404, 'not_found', 'Resource not found', `Cannot find voucher with id ${code}`));
  const [entry] = (await pool.query(ACTIVATE_SQL.entry, [entryId, projectId])).rows;
  if (!entry || entry.voucher_id !== card.id) return send(res, 404, error(404, 'not_found', 'Resource not found', `Cannot find pending_points with id ${entryId}`));
  const client = await pool.connect();
  let done;
  try {
    await client.query('START TRANSACTION');
    await client.query(ACTIVATE_SQL.lockCards, [[card.id]]);
    const [locked] = (await client.query(ACTIVATE_SQL.lockPending, [entryId, projectId])).rows;
    if (locked && locked.voucher_id === card.id) {
      [done] = (await client.query(ACTIVATE_SQL.activate, [[locked.id], 'MANUAL', hexId('v-'), JSON.stringify({ channel: 'API', api_key: { app_id: appId } }), [card.id], EVENT_MAX_BYTES])).rows;
      if (done?.dated) await client.query(ACTIVATE_SQL.refreshNext, [[card.id]]);
    }
    await client.query('COMMIT');
  } catch (failure) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw failure;
  } finally {
    client.release();
  }
  if (!done) return send(res, 400, error(400, 'invalid_pending_points_state', 'Invalid pending points state', `Pending points ${entryId} cannot be activated`));
  send(res, 200, { points: done.points, total: Number(done.total), balance: Number(done.balance), type: 'loyalty_card', object: 'balance', related_object: { type: 'voucher', id: card.id }, operation_type: 'MANUAL' });
}

// planMemberList refuses a bad `order` with the service's 400 error.
serve(handle, () => pool.end(), (failure, res) => failure.status === 400 && (send(res, 400, error(400, failure.key, failure.message, failure.extra?.details)), true));
