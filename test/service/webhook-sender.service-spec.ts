import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { ProjectContext } from '../../src/auth/auth.service.js';
import { DatabaseKitModule } from '../../src/database/database-kit.module.js';
import { WebhookDeliveryService } from '../../src/events/delivery/worker/webhook-delivery.service.js';
import { WorkerDeliveryRepository } from '../../src/events/delivery/worker/worker-delivery.repository.js';
import { CreateDistributionDto, UpdateDistributionDto } from '../../src/events/distributions/dto/distribution.dto.js';
import { DistributionsService } from '../../src/events/distributions/distributions.service.js';
import { EventsModule } from '../../src/events/events.module.js';
import { WebhookSecretService } from '../../src/events/secrets/webhook-secret.service.js';
import { unique } from '../support/points.js';
import { Receiver } from '../support/receiver.js';
import { sampleEventData } from '../support/sample-events.js';
import { body, useServices } from '../support/services.js';

const ACTIVATED = 'customer.voucher.loyalty_card.pending_points.activated' as const;

/**
 * One attempt of a delivery by the worker's service, without the worker: the delivery row (as the relay
 * makes it) is claimed, its envelope signed and sent to a local HTTP server, and the attempt recorded.
 */
describe('WebhookDeliveryService: a delivery sent to a local receiver (no worker, no HTTP API)', () => {
  const services = useServices({ imports: [DatabaseKitModule, EventsModule], providers: [WebhookDeliveryService, WorkerDeliveryRepository], config: { WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32', WEBHOOK_TIMEOUT_MS: '2000' } });
  const { db } = services;
  const receiver = new Receiver();
  beforeAll(() => receiver.start());
  afterAll(() => receiver.stop());

  /** A distribution of a new project to `path`, and one due delivery of one activation event to it. */
  async function dueDelivery(path: string): Promise<{ project: ProjectContext; distributionId: string; deliveryId: string; eventId: string }> {
    const project = await services.project();
    const distribution = await services.get(DistributionsService).create(project, await body(CreateDistributionDto, { name: unique('Service distribution'), trigger: ACTIVATED, target_url: receiver.url(path) }));
    const [event] = await db.query<{ id: string }>(
      `INSERT INTO events (id, project_id, type, entity_id, group_id, event_source, data)
       VALUES ('evcus_' || left(md5(random()::text), 18), $1, $2, 'cust_service', 'v-service', '{"channel":"INTERNAL"}', $3::json) RETURNING id`,
      [project.id, ACTIVATED, sampleEventData(ACTIVATED)],
    );
    const [delivery] = await db.query<{ id: string }>(
      `INSERT INTO webhook_deliveries (id, project_id, distribution_id, event_id, event_type, next_attempt_at)
       VALUES ('whs_' || left(md5(random()::text), 18), $1, $2, $3, $4, now()) RETURNING id`,
      [project.id, distribution.id, event.id, ACTIVATED],
    );
    return { project, distributionId: distribution.id, deliveryId: delivery.id, eventId: event.id };
  }
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
