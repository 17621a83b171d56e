import type { NestExpressApplication } from '@nestjs/platform-express';
import pg from 'pg';
import { type TestProject, createFinishedCampaign, http, testConfig } from './harness.js';

let seq = 0;
export const unique = (base: string) => `${base}-${Date.now().toString(36)}-${(seq += 1)}`;

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
  private readonly client = new pg.Client({ connectionString: testConfig().databaseUrl });

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
   * The ledger invariants over every card of the run: balance = Σ ledger points, points = Σ positive ledger
   * points, pending_points = Σ PENDING entries. Returns the cards that break one.
   */
  async brokenCards(): Promise<unknown[]> {
    return this.query(
      `SELECT v.id, v.balance, v.points, v.pending_points, coalesce(t.sum, 0) AS ledger, coalesce(p.sum, 0) AS pending
       FROM vouchers v
       LEFT JOIN (SELECT voucher_id, sum(points)::bigint AS sum FROM voucher_transactions GROUP BY voucher_id) t ON t.voucher_id = v.id
       LEFT JOIN (SELECT voucher_id, sum(points)::int AS sum FROM loyalty_pending_points WHERE status = 'PENDING' GROUP BY voucher_id) p ON p.voucher_id = v.id
       WHERE v.balance <> coalesce(t.sum, 0) OR v.points <> coalesce(t.sum, 0) OR v.pending_points <> coalesce(p.sum, 0)`,
    );
  }
}
