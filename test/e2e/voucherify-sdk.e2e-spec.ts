import type { AddressInfo } from 'node:net';
import type { NestExpressApplication } from '@nestjs/platform-express';
// The SDK ships a UMD bundle as its Node entry: Node's ESM loader exposes it as one default export.
import voucherify from '@voucherify/sdk';
import { type TestProject, createProject, startApi, startWorker, waitFor } from '../support/harness.js';

/** The official client (@voucherify/sdk 2.9.0, as a migrating user has it) against a real server. */
describe('official Voucherify JS SDK (@voucherify/sdk 2.9.0)', () => {
  let app: NestExpressApplication;
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let project: TestProject;
  let client: ReturnType<typeof voucherify.VoucherifyServerSide>;
  let apiUrl: string;

  beforeAll(async () => {
    app = await startApi();
    worker = await startWorker();
    await app.listen(0, '127.0.0.1');
    project = await createProject(app);
    apiUrl = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    client = voucherify.VoucherifyServerSide({ applicationId: project.app_id, secretKey: project.app_token, apiUrl });
  });
  afterAll(async () => {
    await worker.close();
    await app.close();
  });

  it('create, get (by id and by name), update, list and delete a loyalty campaign', async () => {
    const created = await client.loyalties.create({
      name: 'SDK Loyalty Campaign',
      vouchers_count: 20,
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 10 }, code_config: { pattern: 'L-CARD-#######' } },
      metadata: { source: 'sdk' },
    } as Parameters<typeof client.loyalties.create>[0]);
    expect(created).toMatchObject({ object: 'campaign', name: 'SDK Loyalty Campaign', campaign_type: 'LOYALTY_PROGRAM', join_once: true });
    expect(created.id).toMatch(/^camp_/);

    const byName = await client.loyalties.get('SDK Loyalty Campaign');
    expect(byName.id).toBe(created.id);
    const done = await waitFor(async () => {
      const got = await client.loyalties.get(created.id);
      return got.vouchers_generation_status === 'DONE' ? got : undefined;
    });
    expect(done.vouchers_count).toBe(20);

    const updated = await client.loyalties.update({ id: created.id, description: 'updated through the SDK', metadata: { extra: true } } as Parameters<typeof client.loyalties.update>[0]);
    expect(updated).toMatchObject({ id: created.id, description: 'updated through the SDK', metadata: { source: 'sdk', extra: true } });

    const list = await client.loyalties.list({ limit: 10, page: 1 });
    expect(list).toMatchObject({ object: 'list', data_ref: 'campaigns', total: 1 });
    expect(list.campaigns?.map((c) => c.id)).toEqual([created.id]);

    await client.loyalties.delete(created.id);
    const afterDelete = await client.loyalties.get(created.id).catch((error: unknown) => error);
    expect(afterDelete).toMatchObject({ code: 404, key: 'not_found', details: `Cannot find campaign with id ${created.id}`, resource_type: 'campaign' });
  });

  it('errors reach the SDK with code and key from the body', async () => {
    await client.loyalties.create({ name: 'Twice' } as Parameters<typeof client.loyalties.create>[0]);
    const duplicate = await client.loyalties.create({ name: 'Twice' } as Parameters<typeof client.loyalties.create>[0]).catch((error: unknown) => error);
    expect(duplicate).toBeInstanceOf(Error);
    expect(duplicate).toMatchObject({ code: 409, key: 'duplicate_found', message: 'Duplicated resource found', resource_type: 'campaign' });

    const invalid = await client.loyalties.create({ name: 'Bad', type: 'STANDALONE' } as unknown as Parameters<typeof client.loyalties.create>[0]).catch((error: unknown) => error);
    expect(invalid).toMatchObject({ code: 400, key: 'invalid_payload', details: expect.stringMatching(/STANDALONE/) });

    const missing = await client.loyalties.update({ id: 'No such campaign', description: 'x' } as Parameters<typeof client.loyalties.update>[0]).catch((error: unknown) => error);
    expect(missing).toMatchObject({ code: 404, key: 'not_found', details: 'Cannot find campaign with id No such campaign' });

    const wrongKey = voucherify.VoucherifyServerSide({ applicationId: project.app_id, secretKey: 'wrong', apiUrl });
    expect(await wrongKey.loyalties.list().catch((error: unknown) => error)).toMatchObject({ code: 401, key: 'unauthorized', message: 'Unauthorized' });
  });
});
