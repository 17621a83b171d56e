import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { DatabaseKitModule } from '../../src/database/database-kit.module.js';
import { EventPayloadRepository } from '../../src/events/delivery/worker/event-payload.repository.js';
import { WebhookDeliveryService } from '../../src/events/delivery/worker/webhook-delivery.service.js';
import { WorkerDeliveryRepository } from '../../src/events/delivery/worker/worker-delivery.repository.js';
import { UpdateDistributionDto } from '../../src/events/distributions/dto/distribution.dto.js';
import { DistributionsService } from '../../src/events/distributions/distributions.service.js';
import { EventsModule } from '../../src/events/events.module.js';
import { WebhookSecretService } from '../../src/events/secrets/webhook-secret.service.js';
import { Receiver } from '../support/receiver.js';
import { ACTIVATED, dueDeliveryOf } from '../support/deliveries.js';
import { type Services, body, useServices } from '../support/services.js';

/**
 * One attempt of a delivery by the worker's service, without the worker: the delivery row (as the relay
 * makes it) is claimed, its envelope signed and sent to a local HTTP server, and the attempt recorded.
 */
describe('WebhookDeliveryService: a delivery sent to a local receiver (no worker, no HTTP API)', () => {
  const services = useServices({ imports: [DatabaseKitModule, EventsModule], providers: [WebhookDeliveryService, WorkerDeliveryRepository, EventPayloadRepository], config: { WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32', WEBHOOK_TIMEOUT_MS: '2000' } });
  const { db } = services;
  const receiver = new Receiver();
  beforeAll(() => receiver.start());
  afterAll(() => receiver.stop());

  const dueDelivery = (path: string) => dueDeliveryOf(services, receiver.url(path));
  const deliveryRow = (id: string) => db.query<{ status: string; attempts_count: number; next_attempt_at: Date | null; delivered_at: Date | null; lease_until: Date | null }>('SELECT status, attempts_count, next_attempt_at, delivered_at, lease_until FROM webhook_deliveries WHERE id = $1', [id]);
  const attempts = (id: string) => db.query<{ status_code: number | null; error: string | null }>('SELECT status_code, error FROM webhook_attempts WHERE delivery_id = $1 ORDER BY id', [id]);

  it('answered 200: sent once, signed with the project secret, SUCCEEDED with its attempt recorded', async () => {
    const { project, distributionId, deliveryId, eventId } = await dueDelivery('/ok');
    const outcome = await services.get(WebhookDeliveryService).attempt(deliveryId, distributionId, project.id);
    expect(outcome).toEqual({ again: null });

    const [request] = receiver.on('/ok');
    expect(receiver.on('/ok')).toHaveLength(1);
    expect(request.headers).toMatchObject({ 'content-type': 'application/json', 'webhook-id': deliveryId, 'webhook-timestamp': expect.stringMatching(/^\d+$/) });
    const { secret } = await services.get(WebhookSecretService).get(project);
    expect(request.headers['x-voucherify-signature']).toBe(createHmac('sha256', secret).update(request.body).digest('hex'));
    expect(() => new Webhook(secret).verify(request.body, request.headers as Record<string, string>)).not.toThrow();
    expect(JSON.parse(request.body)).toMatchObject({ id: deliveryId, project_id: project.id, type: ACTIVATED, event: { id: eventId, type: ACTIVATED }, source: { id: distributionId, object: 'distribution' } });

    expect(await deliveryRow(deliveryId)).toEqual([{ status: 'SUCCEEDED', attempts_count: 1, next_attempt_at: null, delivered_at: expect.any(Date), lease_until: null }]);
    expect(await attempts(deliveryId)).toEqual([{ status_code: 200, error: null }]);
    // Settled: asked again, nothing is sent.
    expect(await services.get(WebhookDeliveryService).attempt(deliveryId, distributionId, project.id)).toEqual({ again: null });
    expect(receiver.on('/ok')).toHaveLength(1);
  });

  it('answered 500: the attempt is recorded and the delivery stays PENDING with its next attempt scheduled', async () => {
    const { project, distributionId, deliveryId } = await dueDelivery('/fails');
    receiver.script('/fails', 500);
    const outcome = await services.get(WebhookDeliveryService).attempt(deliveryId, distributionId, project.id);
    expect(outcome.again).toBeInstanceOf(Date);
    expect(receiver.on('/fails')).toHaveLength(1);
    const [row] = await deliveryRow(deliveryId);
    expect(row).toMatchObject({ status: 'PENDING', attempts_count: 1, delivered_at: null, lease_until: null });
    expect(row.next_attempt_at?.getTime()).toBe(outcome.again?.getTime());
    expect(await attempts(deliveryId)).toEqual([{ status_code: 500, error: 'answered 500' }]);
    // Paused, so that no worker of a later suite retries it against this receiver once it is stopped.
    await services.get(DistributionsService).update(project, distributionId, await body(UpdateDistributionDto, { status: 'PAUSED' }));
    expect(await deliveryRow(deliveryId)).toEqual([expect.objectContaining({ status: 'PENDING', next_attempt_at: null })]);
  });
});

/** The latest state of a delivery: its status, counts and the error of its last attempt. */
async function deliveryState(services: Services, id: string) {
  const [row] = await services.db.query<{ status: string; attempts_count: number; load_failures: number; error: string | null }>(
    `SELECT d.status, d.attempts_count, d.load_failures, (SELECT a.error FROM webhook_attempts a WHERE a.delivery_id = d.id ORDER BY a.id DESC LIMIT 1) AS error
     FROM webhook_deliveries d WHERE d.id = $1`,
    [id],
  );
  return row;
}

/**
 * Issue 36: a job's attempt reads its event's payload apart from its claim, within the worker's byte budget
 * (1 MiB here). An event larger than the budget is never read: the attempt fails at once, recorded, on the
 * retry schedule.
 */
describe('WebhookDeliveryService: an event larger than the byte budget', () => {
  const services = useServices({
    imports: [DatabaseKitModule, EventsModule],
    providers: [WebhookDeliveryService, WorkerDeliveryRepository, EventPayloadRepository],
    config: { WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32', WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_DISPATCH_MAX_BYTES: '1048576' },
  });
  const receiver = new Receiver();
  beforeAll(() => receiver.start());
  afterAll(() => receiver.stop());

  it('fails at once: the attempt is recorded and the next one is on the schedule; nothing is sent', async () => {
    const { project, distributionId, deliveryId } = await dueDeliveryOf(services, receiver.url('/too-large'), 2 * 1024 * 1024);
    const outcome = await services.get(WebhookDeliveryService).attempt(deliveryId, distributionId, project.id);
    expect(outcome.again).toBeInstanceOf(Date);
    expect(await deliveryState(services, deliveryId)).toEqual({
      status: 'PENDING',
      attempts_count: 1,
      load_failures: 0,
      error: expect.stringMatching(/^could not send: the event's payload \(\d+ bytes\) is larger than WEBHOOK_DISPATCH_MAX_BYTES \(1048576\)$/),
    });
    expect(receiver.on('/too-large')).toHaveLength(0);
  });
});

/**
 * Issue 36: an event within the budget that cannot be read within the statement timeout (a 36 MB payload,
 * a 150 ms timeout): the job's attempt gives the delivery back twice, counted in `load_failures`, and the
 * third records a failed attempt, so that the retry schedule goes on.
 */
describe('WebhookDeliveryService: an event that cannot be read within the statement timeout', () => {
  const services = useServices({
    imports: [DatabaseKitModule, EventsModule],
    providers: [WebhookDeliveryService, WorkerDeliveryRepository, EventPayloadRepository],
    config: { WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32', WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_DISPATCH_MAX_BYTES: String(64 * 1024 * 1024), DATABASE_QUERY_TIMEOUT_MS: '150' },
  });
  const receiver = new Receiver();
  beforeAll(() => receiver.start());
  afterAll(() => receiver.stop());

  it('is given back twice, then its attempt is recorded as failed', async () => {
    const { project, distributionId, deliveryId } = await dueDeliveryOf(services, receiver.url('/unreadable'), 36 * 1024 * 1024);
    const service = services.get(WebhookDeliveryService);
    for (const failures of [1, 2]) {
      const { again } = await service.attempt(deliveryId, distributionId, project.id);
      expect(await deliveryState(services, deliveryId)).toMatchObject({ status: 'PENDING', attempts_count: 0, load_failures: failures });
      // Given back: claimable again a second later.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, (again?.getTime() ?? 0) - Date.now()) + 50));
    }
    expect((await service.attempt(deliveryId, distributionId, project.id)).again).toBeInstanceOf(Date);
    expect(await deliveryState(services, deliveryId)).toEqual({
      status: 'PENDING',
      attempts_count: 1,
      load_failures: 0,
      error: expect.stringMatching(/^could not load the event \(3 tries\): canceling statement due to statement timeout/),
    });
    expect(receiver.on('/unreadable')).toHaveLength(0);
  }, 30_000);
});
