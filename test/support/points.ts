import type { NestExpressApplication } from '@nestjs/platform-express';
import pg from 'pg';
import { type TestProject, createFinishedCampaign, http, testConfig } from './harness.js';

let seq = 0;
export const unique = (base: string) => `${base}-${Date.now().toString(36)}-${(seq += 1)}`;

/** The microsecond a time-ordered id (`timeId`, `loyalty_time_id`: the ledger's and the events') was made; it fails on any other shape. */
export function idMicros(id: string, prefix: 'vtx_' | 'evcus_'): number {
  expect(id).toMatch(new RegExp(`^${prefix}[0-9a-f]{22}$`));
  return parseInt(id.slice(prefix.length, prefix.length + 13), 16);
}

export interface PointsCampaign {
  id: string;
  name: string;
  program_id: string;
}

export interface RuleSpec {
  points?: number;
  every?: number;
  days?: number;
}

/** A loyalty campaign with earning rules: FIXED `points`, or PROPORTIONAL `every`→`points`, pending `days`. */
export async function pointsCampaign(app: NestExpressApplication, who: TestProject, rules: RuleSpec[], extra: object = {}): Promise<{ campaign: PointsCampaign; ruleIds: string[] }> {
  const campaign = await createFinishedCampaign<PointsCampaign>(app, who, { name: unique('Points campaign'), ...extra });
  const res = await http(app)
    .post(`/v1/loyalties/${campaign.id}/earning-rules`)
    .set(who.headers)
    .send(
      rules.map((rule) => ({
        loyalty: rule.every ? { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT', order: { amount: { every: rule.every, points: rule.points ?? 1 } } } : { type: 'FIXED', points: rule.points ?? 10 },
        ...(rule.days ? { pending_points: { period_type: 'DAY', period_value: rule.days } } : {}),
      })),
    );
  if (res.status !== 200) throw new Error(`earning rules: ${res.status} ${JSON.stringify(res.body)}`);
  return { campaign, ruleIds: (res.body as { id: string }[]).map((rule) => rule.id) };
}

/** Enrols a customer by source id; the card code. */
export async function enrol(app: NestExpressApplication, who: TestProject, campaign: PointsCampaign, customer: string): Promise<string> {
  const res = await http(app)
    .post(`/v2/loyalties/programs/${campaign.program_id}/members`)
    .set(who.headers)
    .send({ customer_identification: { type: 'customer_source_id', customer_source_id: customer } });
  if (res.status !== 200) throw new Error(`enrolment: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.cards[0].card.code as string;
}

export function payOrder(app: NestExpressApplication, who: TestProject, body: { source_id?: string; customer?: string; amount?: number; status?: string }) {
  const { customer, ...rest } = body;
  return http(app)
    .post('/v1/orders')
    .set(who.headers)
    .send({ status: 'PAID', amount: 1000, ...rest, ...(customer ? { customer: { source_id: customer } } : {}) });
}

/** Direct reads for invariants the API does not show in one place. */
export class PointsDb {
  private readonly client: pg.Client;

  /** On the run's database, or on the one `connectionString` names. */
  constructor(connectionString = testConfig().databaseUrl) {
    this.client = new pg.Client({ connectionString });
  }

  async connect(): Promise<void> {
    await this.client.connect();
  }

  end(): Promise<void> {
    return this.client.end();
  }

  async query<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.client.query<T>(sql, params)).rows;
  }

  async card(code: string): Promise<{ id: string; points: number; balance: number; pending_points: number }> {
    const [card] = await this.query<{ id: string; points: number; balance: number; pending_points: number }>('SELECT id, points::float8 AS points, balance::float8 AS balance, pending_points::float8 AS pending_points FROM vouchers WHERE code = $1', [code]);
    return card;
  }

  async entries(where: { orderId?: string; cardCode?: string }): Promise<{ id: string; status: string; points: number; activates_at: Date; settled_at: Date | null; created_at: Date }[]> {
    if (where.orderId) return this.query('SELECT id, status, points, activates_at, settled_at, created_at FROM loyalty_pending_points WHERE order_id = $1 ORDER BY id', [where.orderId]);
    return this.query('SELECT p.id, p.status, p.points, p.activates_at, p.settled_at, p.created_at FROM loyalty_pending_points p JOIN vouchers v ON v.id = p.voucher_id WHERE v.code = $1 ORDER BY p.id', [where.cardCode]);
  }

  async count(sql: string, params: unknown[] = []): Promise<number> {
    const [row] = await this.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${sql}) q`, params);
    return row.n;
  }

  /**
   * The ledger invariants over every card of the run: balance = Σ ledger points = Σ remaining of ACTIVE
   * buckets, points = Σ positive ledger points but refunds', pending_points = Σ PENDING entries, and the lifetime counts
   * (`lifetimeViolations`). Returns the cards that break one.
   */
  async brokenCards(): Promise<unknown[]> {
    const ledger = await this.query(
      `SELECT v.id, v.balance, v.points, v.pending_points, coalesce(t.sum, 0) AS ledger, coalesce(t.added, 0) AS added, coalesce(p.sum, 0) AS pending,
              coalesce(b.sum, 0) AS buckets
       FROM vouchers v
       LEFT JOIN (SELECT voucher_id, sum(points)::bigint AS sum, (sum(points) FILTER (WHERE points > 0 AND type <> 'POINTS_REFUND'))::bigint AS added FROM voucher_transactions GROUP BY voucher_id) t ON t.voucher_id = v.id
       LEFT JOIN (SELECT voucher_id, sum(points)::int AS sum FROM loyalty_pending_points WHERE status = 'PENDING' GROUP BY voucher_id) p ON p.voucher_id = v.id
       LEFT JOIN (SELECT voucher_id, sum(remaining)::bigint AS sum FROM loyalty_points_buckets WHERE status = 'ACTIVE' GROUP BY voucher_id) b ON b.voucher_id = v.id
       WHERE v.balance <> coalesce(t.sum, 0) OR v.points <> coalesce(t.added, 0) OR v.pending_points <> coalesce(p.sum, 0) OR v.balance <> coalesce(b.sum, 0)`,
    );
    return [...ledger, ...(await this.lifetimeViolations())];
  }

  /**
   * The cards (of a project, or of the run) whose lifetime counts (the v2 card's `lifetime_bucket`) disagree
   * with the ledger and the entries: initial_points + added_points = Σ POINTS_ADDITION, pending activated and
   * canceled = Σ of the entries in that status.
   */
  async lifetimeViolations(projectId?: string): Promise<unknown[]> {
    return this.query(
      `SELECT v.code, v.initial_points + v.added_points AS added, coalesce(t.additions, 0) AS additions, v.pending_activated_points AS activated,
              coalesce(p.activated, 0) AS entries_activated, v.pending_canceled_points AS canceled, coalesce(p.canceled, 0) AS entries_canceled
       FROM vouchers v
       LEFT JOIN (SELECT voucher_id, sum(points)::bigint AS additions FROM voucher_transactions WHERE type = 'POINTS_ADDITION' GROUP BY voucher_id) t ON t.voucher_id = v.id
       LEFT JOIN (SELECT voucher_id, (sum(points) FILTER (WHERE status = 'ACTIVATED'))::bigint AS activated, (sum(points) FILTER (WHERE status = 'CANCELED'))::bigint AS canceled
                  FROM loyalty_pending_points GROUP BY voucher_id) p ON p.voucher_id = v.id
       WHERE ($1::text IS NULL OR v.project_id = $1)
         AND (v.initial_points + v.added_points <> coalesce(t.additions, 0) OR v.pending_activated_points <> coalesce(p.activated, 0)
              OR v.pending_canceled_points <> coalesce(p.canceled, 0))`,
      [projectId ?? null],
    );
  }
}

/**
 * `count` due ACTIVE buckets of `pointsEach` points on a card, one per past day (a card has at most one ACTIVE
 * bucket per day: `firstDay` days ago, the day before, …), as if the sweep had been away while they came due;
 * the card's columns and one POINTS_ADDITION ledger row follow, so the card's invariants hold before the expiry.
 */
export async function addDueBuckets(db: Pick<PointsDb, 'query'>, cardId: string, count: number, firstDay = 1, pointsEach = 1): Promise<void> {
  await db.query(
    `WITH b AS (
       INSERT INTO loyalty_points_buckets (id, project_id, voucher_id, campaign_id, total_points, remaining, expires_at, expire_after, created_at)
       SELECT 'lopb_' || left(md5(random()::text || v.id || g), 18), v.project_id, v.id, v.campaign_id, $4, $4, current_date - g, now() - make_interval(secs => g),
              now() - make_interval(days => g)
       FROM vouchers v, generate_series($3::int, $3::int + $2::int - 1) g WHERE v.id = $1
       RETURNING voucher_id, remaining
     ), c AS (
       UPDATE vouchers v SET points = v.points + s.n, balance = v.balance + s.n, added_points = v.added_points + s.n
       FROM (SELECT voucher_id, sum(remaining)::bigint AS n FROM b GROUP BY voucher_id) s WHERE v.id = s.voucher_id
       RETURNING v.id, v.project_id, v.campaign_id, v.balance, s.n
     )
     INSERT INTO voucher_transactions (id, project_id, voucher_id, campaign_id, type, points, balance_after, details)
     SELECT 'vtx_' || left(md5(random()::text || id), 18), project_id, id, campaign_id, 'POINTS_ADDITION', n, balance, '{"reason": "test: due buckets"}' FROM c`,
    [cardId, count, firstDay, pointsEach],
  );
  await db.query(
    `UPDATE vouchers v SET next_expiration_date = n.d, next_expiration_points = n.p
     FROM (SELECT expires_at AS d, sum(remaining)::bigint AS p FROM loyalty_points_buckets WHERE voucher_id = $1 AND status = 'ACTIVE' AND remaining > 0 AND expires_at IS NOT NULL
           GROUP BY expires_at ORDER BY expires_at LIMIT 1) n WHERE v.id = $1`,
    [cardId],
  );
}

/** The answers of a race, counted by status and error key (`{ '200': 38, '500 internal_server_error': 2 }`), one body kept per error key. */
export class Answers {
  readonly histogram: Record<string, number> = {};
  private readonly samples: Record<string, unknown> = {};

  add(res: { status: number; body: unknown }): string {
    const body = res.body as { key?: string } | undefined;
    const key = res.status >= 300 ? `${res.status} ${body?.key ?? ''}`.trim() : String(res.status);
    this.histogram[key] = (this.histogram[key] ?? 0) + 1;
    if (res.status >= 300) this.samples[key] ??= res.body;
    return key;
  }

  /** The histogram, and a body for each answer outside `allowed` (none expected). */
  report(allowed: string[]): { histogram: Record<string, number>; unexpected: Record<string, unknown> } {
    return { histogram: this.histogram, unexpected: Object.fromEntries(Object.entries(this.samples).filter(([key]) => !allowed.includes(key))) };
  }
}

/** Runs the tasks `concurrency` at a time (each a parallel client), in order; their results in order. */
export async function inParallel<T>(tasks: (() => Promise<T>)[], concurrency: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, tasks.length) }, async () => {
      while (next < tasks.length) {
        const i = next++;
        results[i] = await tasks[i]();
      }
    }),
  );
  return results;
}

const PENDING_EVENT = 'customer.voucher.loyalty_card.pending_points.';

/**
 * The bucket invariants of a project's cards (empty when sound): balance = Σ remaining of ACTIVE buckets
 * (`offsets` as for projectViolations), balance = points − expired_points − subtracted_points − redeemed_points, no
 * bucket holds less than 0 or more than it was given, every credit went to exactly one bucket (Σ total_points of
 * all the card's buckets = Σ positive ledger points but refunds', which give back to a bucket what a redemption took), at most one ACTIVE bucket per day (and one never-expiring),
 * and the card's next expiration is its soonest dated bucket day with points (and their sum).
 */
export async function bucketViolations(db: PointsDb, projectId: string, offsets: Record<string, { balance: number; points: number }> = {}): Promise<unknown[]> {
  const cards = await db.query<{ id: string; code: string; balance: string; points: string; expired: string; subtracted: string; redeemed: string; buckets: string; bad: number; credited: string; ledger_credits: string; shared_days: number; next_ok: boolean }>(
    `SELECT v.id, v.code, v.balance::bigint, v.points::bigint, v.expired_points::bigint AS expired, v.subtracted_points::bigint AS subtracted, v.redeemed_points::bigint AS redeemed,
            coalesce((SELECT sum(b.remaining) FROM loyalty_points_buckets b WHERE b.voucher_id = v.id AND b.status = 'ACTIVE'), 0)::bigint AS buckets,
            (SELECT count(*)::int FROM loyalty_points_buckets b WHERE b.voucher_id = v.id AND (b.remaining < 0 OR b.remaining > b.total_points)) AS bad,
            coalesce((SELECT sum(b.total_points) FROM loyalty_points_buckets b WHERE b.voucher_id = v.id), 0)::bigint AS credited,
            coalesce((SELECT sum(t.points) FROM voucher_transactions t WHERE t.voucher_id = v.id AND t.points > 0 AND t.type <> 'POINTS_REFUND'), 0)::bigint AS ledger_credits,
            (SELECT count(*) - count(DISTINCT coalesce(b.expires_at, 'infinity'::date)) FROM loyalty_points_buckets b WHERE b.voucher_id = v.id AND b.status = 'ACTIVE')::int AS shared_days,
            v.next_expiration_date IS NOT DISTINCT FROM n.d AND v.next_expiration_points = coalesce(n.p, 0) AS next_ok
     FROM vouchers v
     LEFT JOIN LATERAL (SELECT b.expires_at AS d, sum(b.remaining) AS p FROM loyalty_points_buckets b
                        WHERE b.voucher_id = v.id AND b.status = 'ACTIVE' AND b.remaining > 0 AND b.expires_at IS NOT NULL
                        GROUP BY b.expires_at ORDER BY b.expires_at LIMIT 1) n ON true
     WHERE v.project_id = $1`,
    [projectId],
  );
  const broken: unknown[] = [];
  for (const card of cards) {
    const offset = offsets[card.id] ?? { balance: 0, points: 0 };
    const balance = Number(card.balance) - offset.balance;
    const points = Number(card.points) - offset.points;
    const credited = Number(card.credited) === Number(card.ledger_credits);
    if (balance !== Number(card.buckets) || balance !== points - Number(card.expired) - Number(card.subtracted) - Number(card.redeemed) || card.bad > 0 || !credited || card.shared_days > 0 || !card.next_ok) {
      broken.push({
        card: card.code,
        balance,
        buckets: Number(card.buckets),
        points,
        expired: Number(card.expired),
        subtracted: Number(card.subtracted),
        redeemed: Number(card.redeemed),
        badBuckets: card.bad,
        credited: { buckets: Number(card.credited), ledger: Number(card.ledger_credits) },
        sharedDays: card.shared_days,
        nextExpiration: card.next_ok,
      });
    }
  }
  return broken;
}

/**
 * Every ledger invariant of a project's cards, entries and earnings, as a list of what breaks (empty when
 * sound): balance = Σ ledger, points = Σ positive ledger, pending_points = Σ PENDING entries, the buckets
 * (`bucketViolations`) and the lifetime counts (`lifetimeViolations`) (`offsets`:
 * what a test added to a card's columns directly, by card id); one order_earnings row per (order, rule)
 * with one entry (pending rule) or one POINTS_ACCRUAL row (accrual rule), and nothing without one; per
 * entry one `added` event, and one `activated` event and ledger row if ACTIVATED, one `canceled` if CANCELED.
 */
export async function projectViolations(db: PointsDb, projectId: string, offsets: Record<string, { balance: number; points: number }> = {}): Promise<unknown[]> {
  const broken: unknown[] = [];
  const cards = await db.query<{ id: string; code: string; balance: string; points: string; pending_points: string; ledger: string; earned: string; pending: string }>(
    `SELECT v.id, v.code, v.balance::bigint, v.points::bigint, v.pending_points::bigint,
            coalesce((SELECT sum(t.points) FROM voucher_transactions t WHERE t.voucher_id = v.id), 0)::bigint AS ledger,
            coalesce((SELECT sum(t.points) FROM voucher_transactions t WHERE t.voucher_id = v.id AND t.points > 0 AND t.type <> 'POINTS_REFUND'), 0)::bigint AS earned,
            coalesce((SELECT sum(p.points) FROM loyalty_pending_points p WHERE p.voucher_id = v.id AND p.status = 'PENDING'), 0)::bigint AS pending
     FROM vouchers v WHERE v.project_id = $1`,
    [projectId],
  );
  broken.push(...(await bucketViolations(db, projectId, offsets)));
  broken.push(...(await db.lifetimeViolations(projectId)));
  for (const card of cards) {
    const offset = offsets[card.id] ?? { balance: 0, points: 0 };
    const [balance, points, pending] = [Number(card.balance) - offset.balance, Number(card.points) - offset.points, Number(card.pending_points)];
    if (balance !== Number(card.ledger) || points !== Number(card.earned) || pending !== Number(card.pending)) broken.push({ card: card.code, balance, points, pending, ledger: Number(card.ledger), earned: Number(card.earned), entries: Number(card.pending) });
  }
  const entries = await db.query<{ id: string; status: string; added: number; activated: number; canceled: number; ledger: number }>(
    `SELECT p.id, p.status,
            (SELECT count(*)::int FROM events e WHERE e.project_id = $1 AND e.type = $2 || 'added' AND e.data->'pending_points'->>'id' = p.id) AS added,
            (SELECT count(*)::int FROM events e WHERE e.project_id = $1 AND e.type = $2 || 'activated' AND e.data->'pending_points'->>'id' = p.id) AS activated,
            (SELECT count(*)::int FROM events e WHERE e.project_id = $1 AND e.type = $2 || 'canceled' AND e.data->'pending_points'->>'id' = p.id) AS canceled,
            (SELECT count(*)::int FROM voucher_transactions t WHERE t.pending_points_id = p.id) AS ledger
     FROM loyalty_pending_points p WHERE p.project_id = $1`,
    [projectId, PENDING_EVENT],
  );
  for (const e of entries) {
    const want = { added: 1, activated: e.status === 'ACTIVATED' ? 1 : 0, canceled: e.status === 'CANCELED' ? 1 : 0, ledger: e.status === 'ACTIVATED' ? 1 : 0 };
    if (e.added !== want.added || e.activated !== want.activated || e.canceled !== want.canceled || e.ledger !== want.ledger) broken.push({ entry: e.id, ...e, want });
  }
  const [events] = await db.query<{ added: number; activated: number; canceled: number }>(
    `SELECT count(*) FILTER (WHERE type = $2 || 'added')::int AS added, count(*) FILTER (WHERE type = $2 || 'activated')::int AS activated,
            count(*) FILTER (WHERE type = $2 || 'canceled')::int AS canceled
     FROM events WHERE project_id = $1 AND type LIKE $2 || '%'`,
    [projectId, PENDING_EVENT],
  );
  const byStatus = (status: string) => entries.filter((e) => e.status === status).length;
  const counted = { added: entries.length, activated: byStatus('ACTIVATED'), canceled: byStatus('CANCELED') };
  if (events.added !== counted.added || events.activated !== counted.activated || events.canceled !== counted.canceled) broken.push({ events, entries: counted });
  const earnings = await db.query<{ order_id: string; earning_rule_id: string; pending_rule: boolean; entries: number; accruals: number }>(
    `SELECT oe.order_id, oe.earning_rule_id, r.pending_points IS NOT NULL AS pending_rule,
            (SELECT count(*)::int FROM loyalty_pending_points p WHERE p.order_id = oe.order_id AND p.earning_rule_id = oe.earning_rule_id) AS entries,
            (SELECT count(*)::int FROM voucher_transactions t WHERE t.order_id = oe.order_id AND t.type = 'POINTS_ACCRUAL' AND t.details->'earning_rule'->>'id' = oe.earning_rule_id) AS accruals
     FROM order_earnings oe JOIN earning_rules r ON r.id = oe.earning_rule_id WHERE oe.project_id = $1`,
    [projectId],
  );
  broken.push(...earnings.filter((e) => e.entries !== (e.pending_rule ? 1 : 0) || e.accruals !== (e.pending_rule ? 0 : 1)));
  broken.push(
    ...(await db.query(
      `SELECT 'entry without its order_earnings row' AS problem, p.id FROM loyalty_pending_points p
       WHERE p.project_id = $1 AND NOT EXISTS (SELECT 1 FROM order_earnings oe WHERE oe.order_id = p.order_id AND oe.earning_rule_id = p.earning_rule_id)
       UNION ALL
       SELECT 'accrual without its order_earnings row', t.id FROM voucher_transactions t
       WHERE t.project_id = $1 AND t.type = 'POINTS_ACCRUAL'
         AND NOT EXISTS (SELECT 1 FROM order_earnings oe WHERE oe.order_id = t.order_id AND oe.earning_rule_id = t.details->'earning_rule'->>'id')`,
      [projectId],
    )),
  );
  return broken;
}
