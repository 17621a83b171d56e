import type { ProjectContext } from '../../src/auth/auth.service.js';
import { CampaignsService } from '../../src/campaigns/campaigns.service.js';
import { CreateLoyaltyCampaignDto } from '../../src/campaigns/dto/create-loyalty-campaign.dto.js';
import { CreateEarningRuleDto } from '../../src/points/earning/dto/earning-rule.dto.js';
import { EarningRulesService } from '../../src/points/earning/earning-rules.service.js';
import { PointsModule } from '../../src/points/points.module.js';
import { unique } from '../support/points.js';
import { body, useServices } from '../support/services.js';

/**
 * Issue 36, "work per order bounded": a paid order earns once per rule, so the rules a campaign and a project
 * may have are capped (EARNING_RULES_MAX_PER_CAMPAIGN, EARNING_RULES_MAX_PER_PROJECT): a create past either
 * is 409 `limit_exceeded` naming the limit, and creates nothing.
 */
describe('EarningRulesService: rules per campaign and per project are capped', () => {
  const services = useServices({ imports: [PointsModule], config: { EARNING_RULES_MAX_PER_CAMPAIGN: '3', EARNING_RULES_MAX_PER_PROJECT: '5' } });
  const { db } = services;

  async function campaign(project: ProjectContext): Promise<string> {
    const dto = await body(CreateLoyaltyCampaignDto, { name: unique('Capped campaign'), type: 'AUTO_UPDATE', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } });
    return (await services.get(CampaignsService).create(project, dto)).id;
  }
  async function create(project: ProjectContext, campaignId: string, count: number) {
    const dtos = await Promise.all(Array.from({ length: count }, () => body(CreateEarningRuleDto, { loyalty: { type: 'FIXED', points: 1 } })));
    return services.get(EarningRulesService).create(project, campaignId, dtos);
  }
  const rulesOf = (campaignId: string) => db.count('SELECT 1 FROM earning_rules WHERE campaign_id = $1', [campaignId]);

  it('refuses a rule past the campaign\'s cap, and a batch that would cross it, whole', async () => {
    const project = await services.project();
    const first = await campaign(project);
    expect(await create(project, first, 2)).toHaveLength(2);
    await expect(create(project, first, 2)).rejects.toMatchObject({
      status: 409,
      key: 'limit_exceeded',
      extra: { resourceType: 'earning_rules', details: 'A campaign may have at most 3 earning rules (EARNING_RULES_MAX_PER_CAMPAIGN); it has 2, and this request adds 2' },
    });
    expect(await rulesOf(first)).toBe(2);
    expect(await create(project, first, 1)).toHaveLength(1);
    await expect(create(project, first, 1)).rejects.toMatchObject({ status: 409, key: 'limit_exceeded', extra: { details: expect.stringContaining('A campaign may have at most 3 earning rules') } });
    expect(await rulesOf(first)).toBe(3);
  });

  it('refuses a rule past the project\'s cap, counting every live campaign; a deleted campaign\'s rules no longer count', async () => {
    const project = await services.project();
    const [one, two, three] = [await campaign(project), await campaign(project), await campaign(project)];
    await create(project, one, 3);
    await create(project, two, 2);
    await expect(create(project, three, 1)).rejects.toMatchObject({
      status: 409,
      key: 'limit_exceeded',
      extra: { resourceType: 'earning_rules', details: 'A project may have at most 5 earning rules (EARNING_RULES_MAX_PER_PROJECT); it has 5, and this request adds 1' },
    });
    expect(await rulesOf(three)).toBe(0);
    // Another project is not held back by this one's rules.
    const other = await services.project();
    expect(await create(other, await campaign(other), 3)).toHaveLength(3);
    // A campaign moved to the bin earns nothing: its rules leave the count.
    await services.get(CampaignsService).delete(project, one, false);
    expect(await create(project, three, 3)).toHaveLength(3);
  });
});
