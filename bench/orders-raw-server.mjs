// The baseline of the paid orders benchmark (bench/orders.mjs, part c): POST /v1/orders served by a plain
// `node:http` server and a `pg` pool, with none of the service's framework around it. For a PAID order by
// source id with a customer by source id it sends the statements the API sends, in the same order and
// transaction (bench/orders-raw.sql.mjs: the service's own, imported from dist/), with the same ids and payloads:
//
//   - the same application key check as bench/member-list-raw-server.mjs (one statement, cached for
//     APP_KEY_CACHE_MS, SHA-256 of the token compared in constant time);
//   - before the transaction: the customer by source id, the earning rules with their campaigns, the
//     customer's cards in those campaigns;
//   - in one transaction: the order's upsert (its row returned), the cards locked in id order, the claims, the
//     pending entries, one update of the cards, the accruals' ledger rows with the API's details and their point
//     buckets (and the cards' next expiration when a bucket is dated), one `added` event per entry (whose
//     trigger writes the webhook outbox), COMMIT;
//   - after the commit, one delayed activation job per due-moment cohort not yet scheduled by this process, on
//     the service's BullMQ queue, as the API schedules them (its cohorts and memory of them, from dist/);
//   - the API's JSON for the order.
//
// It supports what the benchmark sends (status PAID, amount, customer by source_id, FIXED rules, no
// auto-join); anything else is a 400. No logging, request ids, validation library or rate limit. Started by
// bench/orders.mjs with DATABASE_URL, REDIS_URL, QUEUE_PREFIX and PORT in the environment; prints
// "listening" when ready.
import { Queue } from 'bullmq';
import pg from 'pg';
import { jsonBody, keyChecker, send, serve } from './lib/raw-server.mjs';
import { base62Id, hexId } from '../dist/common/ids.js';
import { loadConfig } from '../dist/config/app-config.js';
import { DEFAULT_JOB_OPTIONS, JOB_OPTIONS, JobName, QueueName } from '../dist/queue/queue.definitions.js';
import { redisOptions } from '../dist/queue/redis-options.js';
import { DELTA_COLUMNS, ORDER_SQL } from './orders-raw.sql.mjs';
import { cohortsOf, RecentCohorts } from '../dist/points/pending/activation-cohorts.js';

const POOL_SIZE = 10;
const config = loadConfig();
const KEY_CACHE_MS = config.appKeyCacheMs;
const ADDED = 'customer.voucher.loyalty_card.pending_points.added';

const pool = new pg.Pool({ connectionString: config.databaseUrl, max: POOL_SIZE, application_name: 'loyalty-raw-baseline', keepAlive: true, query_timeout: 15_000 });
/** The due-moment cohorts this server scheduled, as the API remembers its own (PendingPointsService.schedule). */
const cohorts = new RecentCohorts();
const activations = new Queue(QueueName.PendingPoints, { connection: redisOptions(config.redisUrl, false), prefix: config.queuePrefix, defaultJobOptions: DEFAULT_JOB_OPTIONS });
const authenticate = keyChecker(pool, KEY_CACHE_MS);


const error = (code, key, message, details) => ({ code, key, message, ...(details ? { details } : {}) });
const invalid = (details) => error(400, 'invalid_payload', 'Invalid payload', details);

async function handle(req, res) {
  if (req.method !== 'POST' || req.url !== '/v1/orders') return send(res, 404, error(404, 'not_found', 'Resource not found'));
  const { projectId, appId } = (await authenticate(req)) ?? {};
  if (!projectId) return send(res, 401, error(401, 'unauthorized', 'Unauthorized'));

  const body = await jsonBody(req);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return send(res, 400, invalid('the body must be a JSON object'));
  const { source_id: sourceId, status, amount, customer } = body;
  if (typeof sourceId !== 'string' || !/\S/.test(sourceId) || sourceId.length > 255) return send(res, 400, invalid('the baseline takes a source_id'));
  if (status !== 'PAID') return send(res, 400, invalid('the baseline takes status PAID'));
  if (!Number.isSafeInteger(amount) || amount < 0) return send(res, 400, invalid('amount must be a whole number, 0 or more'));
  if (typeof customer?.source_id !== 'string' || customer.source_id === '' || Object.keys(customer).length !== 1) return send(res, 400, invalid('the baseline takes customer {source_id}'));

  // A customer made concurrently is not seen by the upsert's snapshot: read again, as CustomerRepository does.
  const [known] = (await pool.query(ORDER_SQL.customer, [projectId, [customer.source_id], [base62Id('cust_', 24)]])).rows;
  const customerId = (known ?? (await pool.query(ORDER_SQL.customerAgain, [projectId, customer.source_id])).rows[0]).id;

  // The plan: every rule whose campaign has a card of the customer's (FIXED points only).
  const rules = (await pool.query(ORDER_SQL.rules, [projectId])).rows;
  let plan = [];
  if (rules.length) {
    const campaignIds = [...new Set(rules.map((rule) => rule.campaign_id))];
    const cards = new Map((await pool.query(ORDER_SQL.cards, [projectId, [customerId], campaignIds])).rows.map((row) => [row.campaign_id, row.id]));
    for (const rule of rules) {
      if (rule.loyalty.type !== 'FIXED') return send(res, 400, invalid('the baseline takes FIXED earning rules only'));
      if (!cards.has(rule.campaign_id)) continue;
      plan.push({ rule, cardId: cards.get(rule.campaign_id), points: rule.loyalty.points });
    }
    plan = plan.filter((e) => e.points > 0);
  }

  const groupId = hexId('v-');
  const source = { channel: 'API', api_key: { app_id: appId } };
  const client = await pool.connect();
  let order;
  let entries = [];
  try {
    await client.query('START TRANSACTION');
    [order] = (await client.query(ORDER_SQL.upsertOrder, [hexId('ord_'), projectId, sourceId, status, amount, customerId])).rows;
    const orderId = order.id;
    if (plan.length) {
      await client.query(ORDER_SQL.lockCards, [[...new Set(plan.map((e) => e.cardId))].sort()]);
      const won = new Set(
        (await client.query(ORDER_SQL.claim, [projectId, plan.map(() => orderId), plan.map((e) => e.rule.id), plan.map((e) => e.cardId), plan.map((e) => e.points)])).rows.map((row) => row.earning_rule_id),
      );
      const claimed = plan.filter((e) => won.has(e.rule.id));
      const paid = {
        event: { id: hexId('evcus_'), type: 'customer.order.paid', group_id: groupId, entity_id: customerId, created_at: new Date().toISOString(), category: 'ACTION', event_source: source },
        order: { id: orderId, source_id: sourceId },
      };
      const accruals = claimed.filter((e) => e.rule.pending_points === null);
      const held = claimed.filter((e) => e.rule.pending_points !== null);
      if (held.length) {
        entries = (
          await client.query(ORDER_SQL.pending, [
            JSON.stringify(
              held.map((e) => ({
                id: hexId('lopp_'),
                project_id: projectId,
                voucher_id: e.cardId,
                campaign_id: e.rule.campaign_id,
                customer_id: customerId,
                order_id: orderId,
                earning_rule_id: e.rule.id,
                points: e.points,
                delay_ms: (e.rule.pending_points.period_value ?? 0) * config.pendingPointsDayMs,
                details: { ...paid, earning_rule: { id: e.rule.id, source: { banner: e.rule.banner ?? '' } } },
              })),
            ),
          ])
        ).rows;
      }
      const after = await applyCards(client, [
        ...accruals.map((e) => ({ cardId: e.cardId, points: e.points, pending: 0 })),
        ...entries.map((entry) => ({ cardId: entry.voucher_id, points: 0, pending: entry.points })),
      ]);
      if (accruals.length) {
        // Several accruals on one card: each ledger row shows the balance right after it.
        const later = new Map();
        const balances = [];
        for (let i = accruals.length - 1; i >= 0; i -= 1) {
          const e = accruals[i];
          const card = after.get(e.cardId);
          const moved = later.get(e.cardId) ?? 0;
          later.set(e.cardId, moved + e.points);
          balances[i] = { points: Number(card.points) - moved, balance: Number(card.balance) - moved };
        }
        await client.query(ORDER_SQL.ledger, [
          JSON.stringify(
            accruals.map((e, i) => ({
              id: hexId('vtx_'),
              project_id: projectId,
              voucher_id: e.cardId,
              campaign_id: e.rule.campaign_id,
              type: 'POINTS_ACCRUAL',
              points: e.points,
              balance_after: balances[i].balance,
              order_id: orderId,
              pending_points_id: null,
              source_id: null,
              details: {
                balance: { type: 'loyalty_card', total: balances[i].points, object: 'balance', points: e.points, balance: balances[i].balance, related_object: { id: e.cardId, type: 'voucher' } },
                order: paid.order,
                event: { id: paid.event.id, type: paid.event.type },
                earning_rule: { id: e.rule.id, source: { banner: e.rule.banner ?? '' } },
              },
            })),
          ),
          new Date(),
        ]);
        const credited = await client.query(ORDER_SQL.buckets, [
          JSON.stringify(
            accruals.map((e) => ({
              id: hexId('lopb_'),
              project_id: projectId,
              voucher_id: e.cardId,
              campaign_id: e.rule.campaign_id,
              points: e.points,
              date: null,
              never: false,
              earning_rule_id: e.rule.id,
            })),
          ),
        ]);
        const dated = [...new Set(credited.rows.filter((row) => row.dated).map((row) => row.voucher_id))];
        if (dated.length) await client.query(ORDER_SQL.refreshNext, [dated]);
      }
      if (entries.length) {
        await client.query(ORDER_SQL.pendingEvents, [entries.map((entry) => entry.id), entries.map((entry) => entry.points), ADDED, entries.map(() => groupId), entries.map(() => JSON.stringify(source)), 'AUTOMATIC', config.events.payloadMaxBytes]);
      }
    }
    await client.query('COMMIT');
  } catch (failure) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw failure;
  } finally {
    client.release();
  }
  const due = cohorts.unscheduled(cohortsOf(entries.map((entry) => ({ projectId: entry.project_id, activatesAt: entry.activates_at }))));
  if (due.length) {
    const now = Date.now();
    await activations
      .addBulk(due.map((cohort) => ({ name: JobName.ActivateDuePendingPoints, data: { projectId: cohort.projectId, dueAt: cohort.dueAt }, opts: { ...JOB_OPTIONS[JobName.ActivateDuePendingPoints], jobId: cohort.jobId, delay: Math.max(0, cohort.dueAt - now) } })))
      .catch((failure) => (cohorts.failed(due), process.stderr.write(`could not schedule: ${failure}\n`)));
  }
  send(res, 200, {
    id: order.id,
    source_id: order.source_id,
    status: order.status,
    amount: Number(order.amount),
    discount_amount: Number(order.discount_amount),
    total_discount_amount: Number(order.discount_amount),
    total_amount: Math.max(0, Number(order.amount) - Number(order.discount_amount)),
    items: order.items,
    metadata: order.metadata,
    customer_id: order.customer_id,
    customer: order.customer_id ? { id: order.customer_id, object: 'customer' } : null,
    referrer_id: null,
    created_at: order.created_at.toISOString(),
    updated_at: order.updated_at?.toISOString() ?? null,
    object: 'order',
  });
}

/** The cards' point columns, already locked by the transaction (CardRepository.apply). */
async function applyCards(client, deltas) {
  const byCard = new Map();
  for (const delta of deltas) {
    const sum = byCard.get(delta.cardId) ?? { points: 0, pending: 0 };
    byCard.set(delta.cardId, { points: sum.points + delta.points, pending: sum.pending + delta.pending });
  }
  const ids = [...byCard.keys()].sort();
  const { rows } = await client.query(ORDER_SQL.applyCards, [ids, ...DELTA_COLUMNS.map((column) => ids.map((id) => byCard.get(id)[column] ?? 0))]);
  return new Map(rows.map((row) => [row.id, row]));
}

serve(handle, () => Promise.all([pool.end(), activations.close()]));
