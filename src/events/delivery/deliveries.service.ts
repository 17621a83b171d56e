import { Injectable } from '@nestjs/common';
import type { ProjectContext } from '../../auth/auth.service.js';
import { ApiError } from '../../common/errors/api-error.js';
import { CursorService } from '../../common/pagination/cursor.service.js';
import { DistributionsService } from '../distributions/distributions.service.js';
import { DeliveriesRepository } from './deliveries.repository.js';
import { DeliveryJobs } from './delivery-jobs.js';
import {
  DELIVERIES_CURSOR_PREFIX,
  type DeliveryDetailDto,
  type DeliveryDto,
  type DeliveryListDto,
  type DistributionStatsDto,
  type ListDeliveriesQueryDto,
  type RecoverDeliveriesDto,
  type RecoveryDto,
  toDeliveryDto,
} from './dto/delivery.dto.js';
import type { WebhookDelivery } from './webhook-delivery.entity.js';
import { envelopeOf } from './webhook-envelope.js';

/** A recover's answer counts at most this many FAILED deliveries. */
export const RECOVER_COUNT_WINDOW = 10_000;

/** A distribution's deliveries as the API shows them, and the attempts asked for by hand. */
@Injectable()
export class DeliveriesService {
  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly distributions: DistributionsService,
    private readonly jobs: DeliveryJobs,
    private readonly cursors: CursorService,
  ) {}

  async list(project: ProjectContext, distributionId: string, query: ListDeliveriesQueryDto): Promise<DeliveryListDto> {
    await this.distributions.find(project, distributionId);
    const scope = `${project.id}|deliveries|${distributionId}|status=${query.status ?? ''}`;
    const { page, cursor } = await this.cursors.seqPage(DELIVERIES_CURSOR_PREFIX, scope, query.cursor, query.limit ?? 10, (before, limit) =>
      this.deliveries.list(project.id, distributionId, query.status, before, limit),
    );
    return { object: 'list', data_ref: 'data', data: await this.withAttempts(page), has_more: cursor !== null, cursor };
  }

  async get(project: ProjectContext, distributionId: string, id: string): Promise<DeliveryDetailDto> {
    await this.distributions.find(project, distributionId);
    const [delivery, context] = await Promise.all([this.deliveries.findOne(project.id, distributionId, id), this.deliveries.context(project.id, distributionId, id)]);
    if (!delivery || !context) throw ApiError.notFound('webhook_delivery', id);
    return { ...(await this.withAttempts([delivery]))[0], request_body: envelopeOf(context) };
  }

  /** One delivery of a sample event of the distribution's trigger, sent now (held while the distribution is not ACTIVE). */
  async test(project: ProjectContext, distributionId: string): Promise<DeliveryDto> {
    const distribution = await this.distributions.find(project, distributionId);
    const delivery = await this.deliveries.insertTest(project.id, distributionId, distribution.trigger);
    await this.jobs.enqueue([{ id: delivery.id, distributionId, projectId: project.id }]);
    return (await this.withAttempts([delivery]))[0];
  }

  async stats(project: ProjectContext, distributionId: string): Promise<DistributionStatsDto> {
    await this.distributions.find(project, distributionId);
    const { last, counts } = await this.deliveries.stats(distributionId);
    return {
      object: 'distribution_stats',
      distribution_id: distributionId,
      last_delivery: last && { id: last.id, status: last.status, at: last.at?.toISOString() ?? null, status_code: last.status_code },
      last_24h: { succeeded: counts.SUCCEEDED, failed: counts.FAILED, pending: counts.PENDING },
    };
  }

  /** A new attempt now, with the same `webhook-id`. */
  async redeliver(project: ProjectContext, distributionId: string, id: string): Promise<DeliveryDto> {
    await this.distributions.find(project, distributionId);
    const delivery = await this.deliveries.redeliver(project.id, distributionId, id);
    if (!delivery) throw ApiError.notFound('webhook_delivery', id);
    await this.jobs.ensure([{ id, distributionId, projectId: project.id }]);
    return (await this.withAttempts([delivery]))[0];
  }

  /**
   * Every FAILED delivery since `since` is sent again (as Svix's recover, which also works in the
   * background): the request records it and counts what it will send (a bounded read); the worker makes
   * the deliveries PENDING and due in batches (WebhookHousekeeping), and the dispatchers send them.
   */
  async recover(project: ProjectContext, distributionId: string, body: RecoverDeliveriesDto): Promise<RecoveryDto> {
    await this.distributions.find(project, distributionId);
    const since = new Date(body.since);
    // Counted before the worker can start: what it will send.
    const count = await this.deliveries.countFailedSince(distributionId, since, RECOVER_COUNT_WINDOW);
    if (!(await this.distributions.requestRecover(project, distributionId, since))) throw ApiError.notFound('distribution', distributionId);
    return { object: 'webhook_recovery', distribution_id: distributionId, since: since.toISOString(), deliveries_count: count };
  }

  private async withAttempts(deliveries: WebhookDelivery[]): Promise<DeliveryDto[]> {
    const attempts = await this.deliveries.attemptsOf(deliveries.map((d) => d.id));
    return deliveries.map((d) => toDeliveryDto(d, attempts.filter((a) => a.deliveryId === d.id)));
  }
}
