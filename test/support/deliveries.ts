import type { ProjectContext } from '../../src/auth/auth.service.js';
import { CreateDistributionDto } from '../../src/events/distributions/dto/distribution.dto.js';
import { DistributionsService } from '../../src/events/distributions/distributions.service.js';
import { unique } from './points.js';
import { sampleEventData } from './sample-events.js';
import { type Services, body } from './services.js';

export const ACTIVATED = 'customer.voucher.loyalty_card.pending_points.activated' as const;

/**
 * A distribution of a new project to `url`, and one due delivery of one activation event to it (the type's
 * sample: the run's teardown checks every event against its schema); with `blobBytes`, the customer's
 * metadata holds that many more bytes of hex, which PostgreSQL cannot compress.
 */
export async function dueDeliveryOf(services: Services, url: string, blobBytes = 0): Promise<{ project: ProjectContext; distributionId: string; deliveryId: string; eventId: string }> {
  const project = await services.project();
  const distribution = await services.get(DistributionsService).create(project, await body(CreateDistributionDto, { name: unique('Service distribution'), trigger: ACTIVATED, target_url: url }));
  const [event] = await services.db.query<{ id: string }>(
    `INSERT INTO events (id, project_id, type, entity_id, group_id, event_source, data)
     VALUES ('evcus_' || left(md5(random()::text), 18), $1, $2, 'cust_service', 'v-service', '{"channel":"INTERNAL"}',
             CASE WHEN $4::int = 0 THEN $3::json
                  ELSE jsonb_set($3::jsonb, '{customer,metadata}', jsonb_build_object('blob', (SELECT string_agg(md5(g::text), '') FROM generate_series(1, $4::int / 32) g)))::json END)
     RETURNING id`,
    [project.id, ACTIVATED, sampleEventData(ACTIVATED), blobBytes],
  );
  const [delivery] = await services.db.query<{ id: string }>(
    `INSERT INTO webhook_deliveries (id, project_id, distribution_id, event_id, event_type, next_attempt_at)
     VALUES ('whs_' || left(md5(random()::text), 18), $1, $2, $3, $4, now()) RETURNING id`,
    [project.id, distribution.id, event.id, ACTIVATED],
  );
  return { project, distributionId: distribution.id, deliveryId: delivery.id, eventId: event.id };
}
