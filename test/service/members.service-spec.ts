import { MembersModule } from '../../src/members/members.module.js';
import { unique } from '../support/points.js';
import { builders } from '../support/builders.js';
import { enrolCustomer } from '../support/service-points.js';
import { useServices } from '../support/services.js';

describe('MembersService enrolment on PostgreSQL (no worker, no HTTP)', () => {
  const services = useServices({ imports: [MembersModule] });
  const { db } = services;

  it('enrols a customer: one member, a card made with the initial points, one ledger row of them and no event', async () => {
    const { project, campaignId, programId } = await builders(services).program({ initialPoints: 25 });
    const customer = unique('enrolled');
    const { member, cards } = await enrolCustomer(services, project, programId, customer);
    expect(member).toMatchObject({ status: 'ACTIVE', programId });
    expect(cards).toMatchObject([{ campaignId }]);
    const card = cards[0];

    expect(await db.count('SELECT 1 FROM members WHERE program_id = $1 AND customer_id = $2', [programId, member.customerId])).toBe(1);
    expect(await db.card(card.code)).toMatchObject({ id: card.id, balance: 25, points: 25, pending_points: 0 });
    const ledger = await db.query<{ type: string; points: number; balance_after: number }>('SELECT type, points::int AS points, balance_after::int AS balance_after FROM voucher_transactions WHERE voucher_id = $1', [card.id]);
    expect(ledger).toEqual([{ type: 'POINTS_ADDITION', points: 25, balance_after: 25 }]);
    expect(await db.count('SELECT 1 FROM events WHERE project_id = $1', [project.id])).toBe(0);
    expect(await db.count('SELECT 1 FROM vouchers WHERE campaign_id = $1', [campaignId])).toBe(1);
  });
});
