// The baseline of the redemptions benchmark (bench/redemptions.mjs, part c): POST
// /v1/loyalties/{campaignId}/members/{memberId}/redemption served by a plain `node:http` server and a `pg` pool,
// with none of the service's framework around it. For a MATERIAL reward redeemed with a card given by its code it
// sends the statements the API sends, in the same order and transaction (bench/redemptions-raw.sql.mjs: the
// service's own, imported from dist/), with the same ids, ledger details, row and events:
//
//   - the same application key check as the other baselines (bench/lib/raw-server.mjs);
//   - before the transaction: the card by code with its campaign (the campaign read only when it is not the one
//     the path names by id), the reward, its offer in the card's campaign, the
//     card's holder; the refusals the API makes there (the card's member or campaign not active, the price above
//     the balance, no unit left of a stock);
//   - in one transaction: the card locked (its point columns read by the lock), its balance checked, one update
//     of the card (its columns returned for the answer), the ledger row, the buckets drained soonest-expiring
//     first, the card's next expiration, the redemption's row, its three events (whose trigger writes the webhook outbox), the reward's row last (a unit
//     of a stock, or held FOR KEY SHARE without one), COMMIT;
//   - the redemption as JSON, in the API's shape (the card's v1 voucher object, the reward, the customer).
//
// It supports what the benchmark sends (a MATERIAL reward, no order, no Idempotency-Key); anything else is a 400.
// No logging, request ids, validation library or rate limit. Started by bench/redemptions.mjs with DATABASE_URL
// and PORT in the environment; prints "listening" when ready.
import pg from 'pg';
import { jsonBody, keyChecker, send, serve } from './lib/raw-server.mjs';
import { hexId } from '../dist/common/ids.js';
import { loadConfig } from '../dist/config/app-config.js';
import { DELTA_COLUMNS, REDEMPTION_SQL as SQL } from './redemptions-raw.sql.mjs';

const POOL_SIZE = 10;
const config = loadConfig();
const pool = new pg.Pool({ connectionString: config.databaseUrl, max: POOL_SIZE, application_name: 'loyalty-raw-baseline', keepAlive: true, query_timeout: 15_000 });
const authenticate = keyChecker(pool, config.appKeyCacheMs);
const ROUTE = /^\/v1\/loyalties\/([^/]+)\/members\/([^/]+)\/redemption$/;

const error = (code, key, message, details) => ({ code, key, message, ...(details ? { details } : {}) });
const refused = (key, message, details) => error(400, key, message, details);

const iso = (date) => (date ? date.toISOString() : undefined);
const present = (key, value) => (value === null || value === undefined ? {} : { [key]: value });

/** The card's v1 voucher object (the API's toLoyaltyMember) from the columns of the card's read (its member's, campaign's and category's prefixed m_, c_, cat_), with what the redemption changed. */
function voucherJson(c, state) {
  return {
    id: c.id,
    code: c.code,
    campaign: c.c_name,
    campaign_id: c.c_id,
    ...present('category', c.cat_name),
    ...present('category_id', c.cat_id),
    categories: c.cat_id ? [{ id: c.cat_id, name: c.cat_name, hierarchy: c.cat_hierarchy, created_at: iso(c.cat_created_at), object: 'category' }] : [],
    type: 'LOYALTY_CARD',
    discount: null,
    gift: null,
    loyalty_card: {
      points: state.points,
      balance: state.balance,
      pending_points: Number(c.pending_points),
      expired_points: Number(c.expired_points),
      subtracted_points: Number(c.subtracted_points),
      ...present('next_expiration_date', c.next_expiration_date),
      next_expiration_points: c.next_expiration_points === null ? null : Number(c.next_expiration_points),
    },
    ...present('start_date', iso(c.c_start_date)),
    ...present('expiration_date', iso(c.c_expiration_date)),
    ...present('validity_timeframe', c.c_validity_timeframe),
    ...present('validity_day_of_week', c.c_validity_day_of_week),
    active: c.m_status === 'ACTIVE',
    metadata: {},
    is_referral_code: false,
    created_at: iso(c.created_at),
    ...present('updated_at', iso(state.updated_at)),
    holder_id: c.holder_id,
    redemption: { redeemed_quantity: state.redeemed_quantity, redeemed_points: state.redeemed_points, object: 'list', url: `/v1/vouchers/${encodeURIComponent(c.code)}/redemption` },
    publish: { object: 'list', count: 1 },
    object: 'voucher',
  };
}

function customerJson(cu) {
  if (!cu) return null;
  return { id: cu.id, ...present('name', cu.name), ...present('email', cu.email), ...present('source_id', cu.source_id), metadata: cu.metadata, object: 'customer' };
}

function assignmentJson(a) {
  return { id: a.id, reward_id: a.reward_id, related_object_id: a.campaign_id, related_object_type: 'campaign', parameters: { loyalty: { points: a.points } }, created_at: iso(a.created_at), updated_at: iso(a.updated_at) ?? null, object: 'reward_assignment' };
}

async function handle(req, res) {
  const route = req.method === 'POST' ? ROUTE.exec(req.url) : null;
  if (!route) return send(res, 404, error(404, 'not_found', 'Resource not found'));
  const [campaignIdOrName, code] = [decodeURIComponent(route[1]), decodeURIComponent(route[2])];
  const { projectId, appId } = (await authenticate(req)) ?? {};
  if (!projectId) return send(res, 401, error(401, 'unauthorized', 'Unauthorized'));
  const body = await jsonBody(req);
  if (typeof body?.reward?.id !== 'string' || body.order !== undefined) return send(res, 400, error(400, 'invalid_payload', 'Invalid payload', 'the baseline takes {reward: {id}}'));

  // The card by its code (unique in a project), with its campaign; the campaign is read only when it is not the one named by id (as the API does).
  const [card] = (await pool.query(SQL.card, [projectId, [code]])).rows;
  if (card?.c_id !== campaignIdOrName) {
    const [campaign] = (await pool.query(SQL.campaign, [projectId, campaignIdOrName])).rows;
    if (!campaign) return send(res, 404, error(404, 'not_found', 'Resource not found', `Cannot find campaign with id ${campaignIdOrName}`));
    if (card?.campaign_id !== campaign.c_id) return send(res, 404, error(404, 'not_found', 'Resource not found', `Cannot find voucher with id ${code}`));
  }
  if (card.m_status !== 'ACTIVE' || !card.c_active) return send(res, 400, refused('voucher_disabled', 'voucher disabled'));
  const now = new Date();
  if (card.c_start_date && card.c_start_date > now) return send(res, 400, refused('voucher_not_active', 'voucher not active'));
  if (card.c_expiration_date && card.c_expiration_date < now) return send(res, 400, refused('voucher_expired', 'voucher expired'));
  const [reward] = (await pool.query(SQL.reward, [projectId, [body.reward.id]])).rows;
  if (!reward) return send(res, 404, error(404, 'not_found', 'Resource not found', `Cannot find reward with id ${body.reward.id}`));
  const [assignment] = (await pool.query(SQL.offer, [projectId, [reward.id], [card.campaign_id]])).rows;
  if (!assignment) return send(res, 404, error(404, 'not_found', 'Resource not found', `Cannot find reward_assignment of reward ${reward.id} in campaign ${card.campaign_id}`));
  if (reward.type !== 'MATERIAL') return send(res, 400, error(400, 'invalid_payload', 'Invalid payload', 'the baseline takes MATERIAL rewards'));
  const [customer] = card.holder_id ? (await pool.query(SQL.customer, [projectId, [card.holder_id]])).rows : [null];
  const points = assignment.points;
  const exceeded = (balance) => refused('loyalty_card_points_exceeded', 'loyalty card points exceeded', `There are not enough loyalty points on the card ${code}: ${points} needed, its balance is ${balance}.`);
  if (points > Number(card.balance)) return send(res, 400, exceeded(Number(card.balance)));
  const outOfStock = refused('quantity_exceeded', 'quantity exceeded', `Reward ${reward.id} has no unit left in stock.`);
  if (reward.stock !== null && reward.redeemed >= reward.stock) return send(res, 400, outOfStock);

  const id = hexId('r_');
  const cardId = card.id;
  const groupId = hexId('req_');
  const source = { channel: 'API', api_key: { app_id: appId } };
  const rewardJson = {
    id: reward.id,
    name: reward.name,
    type: reward.type,
    parameters: reward.parameters,
    created_at: iso(reward.created_at),
    updated_at: iso(reward.updated_at) ?? null,
    metadata: reward.metadata,
    object: 'reward',
    assignment_id: assignment.id,
    product: { id: reward.parameters.product.id, object: 'product' },
    ...(reward.parameters.product.sku_id ? { sku: { id: reward.parameters.product.sku_id, product_id: reward.parameters.product.id, object: 'sku' } } : {}),
  };
  const client = await pool.connect();
  let answer;
  try {
    await client.query('START TRANSACTION');
    // The lock reads the card's point columns: its balance is checked against them (nothing changed it since).
    const [current] = (await client.query(SQL.lock, [[cardId]])).rows;
    if (!current) throw Object.assign(new Error('gone'), { answer: [404, error(404, 'not_found', 'Resource not found')] });
    if (Number(current.balance) < points) throw Object.assign(new Error('exceeded'), { answer: [400, exceeded(Number(current.balance))] });
    // The reward's unit after the card, as the API's batch takes it (a reward without a stock held FOR KEY SHARE).
    let taken;
    if (reward.stock === null) {
      const [held] = (await client.query(SQL.holdUnlimited, [projectId, reward.id])).rows;
      taken = held && (held.stock === null || (await client.query(SQL.takeUnits, [projectId, reward.id, 1])).rows[0]?.taken > 0);
    } else {
      taken = (await client.query(SQL.takeUnits, [projectId, reward.id, 1])).rows[0]?.taken > 0;
    }
    if (!taken) throw Object.assign(new Error('out of stock'), { answer: [400, outOfStock] });
    const delta = { redeemed: points, redemptions: 1 };
    const [after] = (await client.query(SQL.apply, [[cardId], ...DELTA_COLUMNS.map((column) => [delta[column] ?? 0])])).rows;
    const at = new Date();
    const transactionId = hexId('vtx_');
    await client.query(SQL.ledger, [
      JSON.stringify([
        {
          id: transactionId,
          project_id: projectId,
          voucher_id: cardId,
          campaign_id: card.campaign_id,
          type: 'POINTS_REDEMPTION',
          points: -points,
          balance_after: Number(after.balance),
          order_id: null,
          pending_points_id: null,
          source_id: null,
          details: {
            balance: { type: 'loyalty_card', total: Number(after.points), object: 'balance', points: -points, balance: Number(after.balance), related_object: { id: cardId, type: 'voucher' } },
            redemption: { id },
            reward: { id: reward.id, name: reward.name },
          },
        },
      ]),
      at,
    ]);
    const drained = (await client.query(SQL.drain, [cardId, points])).rows
      .map((row) => ({ id: row.id, points: Number(row.taken), expiresAt: row.expires_at }))
      .sort((a, b) => (a.expiresAt ?? '9999-99-99').localeCompare(b.expiresAt ?? '9999-99-99'));
    await client.query(SQL.refreshNext, [[cardId]]);
    // The card as the answer shows it: the point columns as the card's update returned them.
    const state = { points: Number(after.points), balance: Number(after.balance), redeemed_points: Number(after.redeemed_points), redeemed_quantity: Number(after.redeemed_quantity), updated_at: after.updated_at };
    const snapshot = { customer: customerJson(customer), voucher: voucherJson(card, state), reward: rewardJson, order: null, channel: { channel_id: appId, channel_type: 'API' } };
    const [row] = (
      await client.query(SQL.redemption, [
        JSON.stringify([
          {
            id, project_id: projectId, object: 'redemption', redemption_id: null, status: 'SUCCEEDED', voucher_id: cardId, campaign_id: card.campaign_id,
            customer_id: customer?.id ?? null, reward_id: reward.id, assignment_id: assignment.id, points, buckets: drained, target_card_id: null,
            target_points: null, order_id: null, tracking_id: customer?.source_id ?? null, reason: null, metadata: null, transaction_id: transactionId, snapshot,
          },
        ]),
      ])
    ).rows;
    const date = row.created_at.toISOString();
    answer = {
      id,
      object: 'redemption',
      date,
      customer_id: customer?.id ?? null,
      tracking_id: customer?.source_id ?? null,
      metadata: null,
      amount: points,
      result: 'SUCCESS',
      status: 'SUCCEEDED',
      order: null,
      customer: snapshot.customer,
      related_object_type: 'voucher',
      related_object_id: cardId,
      voucher: snapshot.voucher,
      reward: rewardJson,
      loyalty_card: { points },
      channel: snapshot.channel,
      related_redemptions: { rollbacks: [], redemptions: [] },
    };
    if (card.holder_id) {
      const rewardRedemption = (state) => ({ id: `rewr_${id.slice(2)}`, state, created_at: date, updated_at: date, voucher_id: cardId, campaign_id: card.campaign_id, customer_id: answer.customer_id, reward_assignment_id: assignment.id, source_id: id, source_type: 'redemption' });
      const shared = { reward: rewardJson, reward_assignment: assignmentJson(assignment), source: { id, type: 'redemption' }, balance: null };
      const { order: _order, voucher: _voucher, related_object_type: _t, related_object_id: _i, loyalty_card: _l, related_redemptions: _r, ...simple } = answer;
      const event = (type, data) => ({ card_id: cardId, balance: state.balance, type, data, group_id: groupId, source });
      await client.query(SQL.events, [
        JSON.stringify([
          event('customer.reward_redemptions.created', { ...shared, reward_redemption: rewardRedemption('CREATED') }),
          event('customer.reward_redemptions.pending', { ...shared, reward_redemption: rewardRedemption('PENDING') }),
          event('redemption.succeeded', { order: null, redemption: { ...simple, metadata: {} }, created_at: date }),
        ]),
        config.events.payloadMaxBytes,
      ]);
    }
    await client.query('COMMIT');
  } catch (failure) {
    await client.query('ROLLBACK').catch(() => undefined);
    if (failure.answer) return send(res, ...failure.answer);
    throw failure;
  } finally {
    client.release();
  }
  send(res, 200, answer);
}

serve(handle, () => pool.end());
