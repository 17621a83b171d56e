import { CardsModule } from '../../src/cards/cards.module.js';
import { DatabaseKitModule } from '../../src/database/database-kit.module.js';
import { PointsModule } from '../../src/points/points.module.js';
import { bucketViolations } from '../support/points.js';
import { aBucket, aMember, aPaidOrder, aProgram } from '../support/service-points.js';
import { useServices } from '../support/services.js';

/**
 * The service tier's data builders (test/support/service-points.ts): a program, a member, a paid order and a
 * bucket, each made through the services, leave the rows the API would (the card's invariants hold).
 */
describe('data builders of the service tier (services on PostgreSQL)', () => {
  const services = useServices({ imports: [PointsModule, CardsModule, DatabaseKitModule] });
  const { db } = services;

  it('a program, a member, a paid order and a bucket: the card holds their points, in one bucket per day', async () => {
    const program = await aProgram(services, { rules: [{ points: 5 }], initialPoints: 10 });
    const member = await aMember(services, program);
    expect(member.card.code).toEqual(expect.any(String));
    const order = await aPaidOrder(services, member, { amount: 2500 });
    expect(order).toMatchObject({ status: 'PAID', amount: 2500 });
    await aBucket(services, member, { points: 4, expiresOn: '2030-01-31' });
    await aBucket(services, member, { points: 2 });
    expect(await db.card(member.card.code)).toMatchObject({ points: 10 + 5 + 4 + 2, balance: 10 + 5 + 4 + 2 });
    const buckets = await db.query<{ day: string | null; remaining: number }>(
      `SELECT to_char(expires_at, 'YYYY-MM-DD') AS day, remaining::int AS remaining FROM loyalty_points_buckets WHERE voucher_id = $1 AND status = 'ACTIVE' ORDER BY expires_at NULLS FIRST`,
      [member.card.id],
    );
    expect(buckets).toEqual([{ day: null, remaining: 10 + 5 + 2 }, { day: '2030-01-31', remaining: 4 }]);
    expect(await bucketViolations(db, program.project.id)).toEqual([]);
    expect(await db.brokenCards()).toEqual([]);
  });
});
