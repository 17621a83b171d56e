import type { ProjectContext } from '../../src/auth/auth.service.js';
import { CreateLoyaltyCampaignDto } from '../../src/campaigns/dto/create-loyalty-campaign.dto.js';
import { CampaignsService } from '../../src/campaigns/campaigns.service.js';
import { CreateMemberDto } from '../../src/members/dto/member.dto.js';
import { MembersService } from '../../src/members/members.service.js';
import { CreateEarningRuleDto } from '../../src/points/earning/dto/earning-rule.dto.js';
import { EarningRulesService } from '../../src/points/earning/earning-rules.service.js';
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
