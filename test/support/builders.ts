import type { ProjectContext } from '../../src/auth/auth.service.js';
import { BalanceService } from '../../src/points/balance/balance.service.js';
import { BalanceChangeDto } from '../../src/points/balance/dto/balance.dto.js';
import { type RuleSpec, addDueBuckets, unique } from './points.js';
import { enrolCustomer, payOrder, pointsProgram } from './service-points.js';
import { type Services, body } from './services.js';

/**
 * Data builders of the service tier: the few rows most service specs start from (a program, a member with
 * its card, a paid order, a bucket), made through the services the API's controllers call, so a spec names
 * only what differs. Defaults: a new project per program, no rules, no initial points, the campaign's
 * expiration rules unset, a unique customer, a 1000 order.
 *
 *   const build = builders(services);
 *   const member = await build.member({ initialPoints: 10, expiration: build.monthly });
 *   await build.paidOrder(member, { amount: 2500 });
 *   const bucket = await build.bucket(member, { points: 4, expires: await build.day(10) });
 *
 * The feature modules they need: MembersModule (program, member; PointsModule imports it), PointsModule
 * for paidOrder and bucket.
 */
export interface ProgramSpec {
  /** The project it belongs to; a new project by default. */
  project?: ProjectContext;
  /** Its earning rules (FIXED `points`, PROPORTIONAL with `every`, pending with `days`). */
  rules?: RuleSpec[];
  /** The points each new card starts with. */
  initialPoints?: number;
  /** The campaign's `expiration_rules` (`build.monthly`: a month). */
  expiration?: object;
}

export interface BuiltProgram {
  project: ProjectContext;
  campaignId: string;
  programId: string;
}

export interface BuiltMember extends BuiltProgram {
  /** The customer's source id. */
  customer: string;
  /** The member's card. */
  card: { id: string; code: string };
}

export interface BuiltBucket {
  id: string;
  /** Its last day (`YYYY-MM-DD`), null when it never expires. */
  day: string | null;
  total: number;
  remaining: number;
  status: string;
}

export function builders(services: Services) {
  const { db } = services;

  /** `days` from today in UTC (every new project's zone), as `YYYY-MM-DD`. */
  const day = async (days: number): Promise<string> => (await db.query<{ day: string }>(`SELECT to_char((now() AT TIME ZONE 'UTC')::date + $1::int, 'YYYY-MM-DD') AS day`, [days]))[0].day;

  const program = async (spec: ProgramSpec = {}): Promise<BuiltProgram> => {
    const project = spec.project ?? (await services.project());
    const { campaignId, programId } = await pointsProgram(services, project, spec.rules ?? [], spec.initialPoints ?? 0, spec.expiration);
    return { project, campaignId, programId };
  };

  /** A member of `of` (a program built before) or of a new program built from the spec; a unique customer unless named. */
  const member = async (of: BuiltProgram | ProgramSpec = {}, customer = unique('member')): Promise<BuiltMember> => {
    const built = 'programId' in of ? of : await program(of);
    const { cards } = await enrolCustomer(services, built.project, built.programId, customer);
    return { ...built, customer, card: { id: cards[0].id, code: cards[0].code } };
  };

  /** A PAID order of the member (POST /v1/orders through OrdersService): 1000 and a unique source id by default. */
  const paidOrder = async (of: BuiltMember, order: { amount?: number; sourceId?: string } = {}) =>
    payOrder(services, of.project, { source_id: order.sourceId ?? unique('order'), customer: of.customer, amount: order.amount });

  /**
   * Points on the member's card in the bucket of `expires` (`YYYY-MM-DD`, or null: never), added through the
   * balance endpoint's service (the posting path); the bucket of that day as it is after the addition.
   */
  const bucket = async (of: BuiltMember, spec: { points: number; expires: string | null }): Promise<BuiltBucket> => {
    const plain = spec.expires === null ? { points: spec.points, expiration_type: 'NON_EXPIRING' } : { points: spec.points, expiration_type: 'CUSTOM_DATE', expiration_date: spec.expires };
    await services.get(BalanceService).change(of.project, null, of.card.code, await body(BalanceChangeDto, plain), undefined);
    const [row] = await db.query<BuiltBucket>(
      `SELECT id, to_char(expires_at, 'YYYY-MM-DD') AS day, total_points::int AS total, remaining::int AS remaining, status FROM loyalty_points_buckets
       WHERE voucher_id = $1 AND status = 'ACTIVE' AND expires_at IS NOT DISTINCT FROM $2::date`,
      [of.card.id, spec.expires],
    );
    return row;
  };

  /** `count` buckets already due on the member's card (written directly, as if their days had passed): see addDueBuckets. */
  const dueBuckets = (of: BuiltMember, count: number, firstDay = 1, pointsEach = 1) => addDueBuckets(db, of.card.id, count, firstDay, pointsEach);

  /** The campaign expiration rules "a month", the usual `expiration` of a program. */
  const monthly = { period_type: 'MONTH', period_value: 1 } as const;

  return { program, member, paidOrder, bucket, dueBuckets, day, monthly };
}
