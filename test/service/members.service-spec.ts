import { CustomerRepository } from '../../src/customers/customer.repository.js';
import { MemberCardRepository } from '../../src/members/member-card.repository.js';
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

describe('the fixed reads of a redemption (MemberCardRepository.findByCode, CustomerRepository.findById)', () => {
  const services = useServices({ imports: [MembersModule] });
  const { db } = services;

  // Their statements replaced TypeORM's query builder and findOneBy (bench/README.md, "Redemptions"): what they
  // hydrate must stay what TypeORM hydrates, compared here with the reads TypeORM still builds.
  it('reads a card by code as TypeORM reads it by id (same classes and values), with a category and without, with its optional columns set', async () => {
    const { project, campaignId, card, customer } = await builders(services).member({ initialPoints: 7 });
    const cards = services.get(MemberCardRepository);
    expect(await cards.findByCode(project.id, card.code)).toStrictEqual(await cards.findById(project.id, card.id));

    const categoryId = unique('cat');
    await db.query('INSERT INTO categories (id, project_id, name, hierarchy) VALUES ($1, $2, $3, 2)', [categoryId, project.id, unique('category')]);
    await db.query(
      `UPDATE campaigns SET category_id = $2, description = 'd', start_date = now() - interval '1 day', expiration_date = now() + interval '1 day',
         validity_day_of_week = '{1,3}', validity_timeframe = '{"duration": "PT1H", "interval": "P1D"}', loyalty_tiers_expiration = NULL, updated_at = now() WHERE id = $1`,
      [campaignId, categoryId],
    );
    await db.query(`UPDATE vouchers SET next_expiration_date = '2027-01-31', next_expiration_points = 5, updated_at = now(), expiry_set_aside_at = now(), expiry_error = 'e' WHERE id = $1`, [card.id]);
    await db.query(`UPDATE members SET metadata = '{"a": 1}', updated_at = now() WHERE id = (SELECT member_id FROM vouchers WHERE id = $1)`, [card.id]);
    const read = await cards.findByCode(project.id, card.code);
    expect(read).toStrictEqual(await cards.findById(project.id, card.id));
    expect(read).toMatchObject({ nextExpirationDate: '2027-01-31', nextExpirationPoints: 5, campaign: { category: { id: categoryId, hierarchy: 2 }, validityDayOfWeek: [1, 3] } });
    expect(await cards.findByCode(project.id, 'no-such-code')).toBeNull();

    const customers = services.get(CustomerRepository);
    const holder = (read as NonNullable<typeof read>).holderId as string;
    expect(await customers.findById(project.id, holder)).toStrictEqual(await customers.findByIdOrSourceId(project.id, holder));
    expect(await customers.findById(project.id, holder)).toMatchObject({ sourceId: customer });
    expect(await customers.findById('another-project', holder)).toBeNull();
  });
});
