import type { ProjectContext } from '../../src/auth/auth.service.js';
import { CreateLoyaltyCampaignDto } from '../../src/campaigns/dto/create-loyalty-campaign.dto.js';
import { CampaignsService } from '../../src/campaigns/campaigns.service.js';
import { CreateMemberDto } from '../../src/members/dto/member.dto.js';
import { MembersService } from '../../src/members/members.service.js';
import { CreateEarningRuleDto } from '../../src/points/earning/dto/earning-rule.dto.js';
import { EarningRulesService } from '../../src/points/earning/earning-rules.service.js';
import { BalanceService } from '../../src/points/balance/balance.service.js';
import { BalanceChangeDto } from '../../src/points/balance/dto/balance.dto.js';
import { CreateOrderDto } from '../../src/points/orders/dto/order.dto.js';
import { OrdersService } from '../../src/points/orders/orders.service.js';
import { type RuleSpec, unique } from './points.js';
import { type Services, body } from './services.js';

/**
 * The points set-up of the service tests, through the services the API's controllers call: a campaign that
 * makes each member's card at enrolment (AUTO_UPDATE, so no card generation job is needed), with its initial
 * points and expiration rules if given, and its rules.
 */
export async function pointsProgram(
  services: Services,
  project: ProjectContext,
  rules: RuleSpec[],
  initialPoints = 0,
  expirationRules?: object,
): Promise<{ campaignId: string; programId: string }> {
  const loyaltyCard = { points: initialPoints, ...(expirationRules ? { expiration_rules: expirationRules } : {}) };
  const campaign = await services.get(CampaignsService).create(
    project,
    await body(CreateLoyaltyCampaignDto, { name: unique('Service campaign'), type: 'AUTO_UPDATE', voucher: { type: 'LOYALTY_CARD', loyalty_card: loyaltyCard } }),
  );
  if (rules.length) {
    const dtos = await Promise.all(
      rules.map((rule) =>
        body(CreateEarningRuleDto, {
          loyalty: rule.every ? { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT', order: { amount: { every: rule.every, points: rule.points ?? 1 } } } : { type: 'FIXED', points: rule.points ?? 10 },
          ...(rule.days ? { pending_points: { period_type: 'DAY', period_value: rule.days } } : {}),
        }),
      ),
    );
    await services.get(EarningRulesService).create(project, campaign.id, dtos);
  }
  return { campaignId: campaign.id, programId: campaign.program_id };
}

/** Enrols a customer (by source id) in the program; the member with its card. */
export async function enrolCustomer(services: Services, project: ProjectContext, programId: string, sourceId: string) {
  return services.get(MembersService).create(project, programId, await body(CreateMemberDto, { customer_identification: { type: 'customer_source_id', customer_source_id: sourceId } }));
}

/** POST /v1/orders of a PAID order for the customer, through OrdersService. */
export async function payOrder(services: Services, project: ProjectContext, order: { source_id: string; customer: string; amount?: number }) {
  return services.get(OrdersService).create(project, await body(CreateOrderDto, { status: 'PAID', amount: order.amount ?? 1000, source_id: order.source_id, customer: { source_id: order.customer } }));
}

/**
 * The data builders of the service tier: each makes one thing through the services the API's controllers
 * call (never by SQL, so the rows are what the service writes) and returns what the next builder needs.
 * A service or repository change gets a service spec (test/service/<feature>.service-spec.ts) built from
 * these by default; an e2e file is for what needs HTTP, a worker or a process.
 *
 *   const program = await aProgram(services, { rules: [{ points: 5 }] });
 *   const member = await aMember(services, program);
 *   await aPaidOrder(services, member, { amount: 2500 });
 *   await aBucket(services, member, { points: 4, expiresOn: '2030-01-31' });
 */
export interface ProgramBuilt {
  project: ProjectContext;
  campaignId: string;
  programId: string;
}

export interface MemberBuilt extends ProgramBuilt {
  /** The customer's source id. */
  customer: string;
  card: { id: string; code: string };
}

/** A project (unless given) and a loyalty program whose members get a card at enrolment, with its earning rules. */
export async function aProgram(
  services: Services,
  options: { project?: ProjectContext; rules?: RuleSpec[]; initialPoints?: number; expirationRules?: object } = {},
): Promise<ProgramBuilt> {
  const project = options.project ?? (await services.project());
  const { campaignId, programId } = await pointsProgram(services, project, options.rules ?? [], options.initialPoints ?? 0, options.expirationRules);
  return { project, campaignId, programId };
}

/** A member of the program (a new customer unless given) and its card. */
export async function aMember(services: Services, program: ProgramBuilt, customer = unique('member')): Promise<MemberBuilt> {
  const member = await enrolCustomer(services, program.project, program.programId, customer);
  const card = member.cards[0];
  return { ...program, customer, card: { id: card.id, code: card.code } };
}

/** A PAID order of the member (its earning rules apply); the order as OrdersService answers it. */
export async function aPaidOrder(services: Services, member: MemberBuilt, options: { amount?: number; sourceId?: string } = {}) {
  return payOrder(services, member.project, { source_id: options.sourceId ?? unique('order'), customer: member.customer, amount: options.amount });
}

/**
 * Points on the member's card that expire on `expiresOn` (YYYY-MM-DD: that day's bucket), or never (no date),
 * added as the balance endpoint adds them. Needs BalanceService among the module's providers (PointsModule).
 */
export async function aBucket(services: Services, member: MemberBuilt, options: { points: number; expiresOn?: string }) {
  const expiry = options.expiresOn ? { expiration_type: 'CUSTOM_DATE', expiration_date: options.expiresOn } : { expiration_type: 'NON_EXPIRING' };
  return services.get(BalanceService).change(member.project, null, member.card.code, await body(BalanceChangeDto, { points: options.points, ...expiry }), undefined);
}
