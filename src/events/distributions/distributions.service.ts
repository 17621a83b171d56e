import { Injectable } from '@nestjs/common';
import type { ProjectContext } from '../../auth/auth.service.js';
import { ApiError } from '../../common/errors/api-error.js';
import { hexId } from '../../common/ids.js';
import { CursorService } from '../../common/pagination/cursor.service.js';
import { AppConfig } from '../../config/app-config.js';
import { TransactionRunner } from '../../database/transaction-runner.js';
import { AddressGuard } from '../delivery/ssrf-guard.js';
import { DeliveriesRepository } from '../delivery/deliveries.repository.js';
import { WebhookSecretRepository } from '../secrets/webhook-secret.repository.js';
import type { Distribution } from './distribution.entity.js';
import { DistributionRepository } from './distribution.repository.js';
import {
  type CreateDistributionDto,
  DISTRIBUTIONS_CURSOR_PREFIX,
  type DistributionDto,
  type DistributionListDto,
  type ListDistributionsQueryDto,
  toDistributionDto,
  type UpdateDistributionDto,
} from './dto/distribution.dto.js';

@Injectable()
export class DistributionsService {
  private readonly guard: AddressGuard;
  private readonly maxPerProject: number;

  constructor(
    config: AppConfig,
    private readonly transactions: TransactionRunner,
    private readonly distributions: DistributionRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly secrets: WebhookSecretRepository,
    private readonly cursors: CursorService,
  ) {
    this.guard = new AddressGuard(config.webhook.allowedCidrs);
    this.maxPerProject = config.webhook.maxDistributionsPerProject;
  }

  async create(project: ProjectContext, body: CreateDistributionDto): Promise<DistributionDto> {
    this.checkTarget(body.target_url);
    // The project's signing secret exists before its first delivery.
    await this.secrets.ensure(project.id);
    const fields: Partial<Distribution> = {
      id: hexId('distr_'),
      projectId: project.id,
      name: body.name,
      trigger: body.trigger,
      eventName: body.event_name ?? null,
      targetUrl: body.target_url,
      customHeaders: body.custom_headers ?? {},
      metadata: body.metadata ?? {},
      status: body.status ?? 'ACTIVE',
    };
    // At most WEBHOOK_MAX_DISTRIBUTIONS_PER_PROJECT: every event of a trigger makes a delivery per distribution.
    const distribution = await this.transactions.run((tx) => this.distributions.insertWithinLimit(tx, fields, this.maxPerProject));
    if (!distribution) throw ApiError.limitExceeded('distributions', this.maxPerProject, 'delete one to make room (deleted distributions no longer count)');
    return toDistributionDto(distribution);
  }

  async get(project: ProjectContext, id: string): Promise<DistributionDto> {
    return toDistributionDto(await this.find(project, id));
  }

  async list(project: ProjectContext, query: ListDistributionsQueryDto): Promise<DistributionListDto> {
    const scope = `${project.id}|distributions`;
    const { page, cursor } = await this.cursors.seqPage(DISTRIBUTIONS_CURSOR_PREFIX, scope, query.cursor, query.limit ?? 10, (before, limit) => this.distributions.list(project.id, before, limit));
    return { object: 'list', data_ref: 'data', data: page.map(toDistributionDto), has_more: cursor !== null, cursor };
  }

  async update(project: ProjectContext, id: string, body: UpdateDistributionDto): Promise<DistributionDto> {
    const before = await this.find(project, id);
    if (body.target_url !== undefined) this.checkTarget(body.target_url);
    const changes: Partial<Distribution> = {};
    if (body.name !== undefined) changes.name = body.name;
    if (body.trigger !== undefined) changes.trigger = body.trigger;
    if (body.target_url !== undefined) changes.targetUrl = body.target_url;
    if (body.event_name !== undefined) changes.eventName = body.event_name;
    if (body.custom_headers !== undefined) changes.customHeaders = body.custom_headers;
    if (body.metadata !== undefined) changes.metadata = body.metadata;
    if (body.status !== undefined) changes.status = body.status;
    const after = await this.distributions.update(project.id, id, changes);
    if (!after) throw ApiError.notFound('distribution', id);
    // Paused or disabled: its deliveries wait, off the due index. Resumed: the worker makes what waited due,
    // in batches (WebhookHousekeeping), and the dispatchers send it.
    if (before.status === 'ACTIVE' && after.status !== 'ACTIVE') await this.deliveries.park(id);
    if (before.status !== 'ACTIVE' && after.status === 'ACTIVE') await this.distributions.requestResume(id);
    return toDistributionDto(after);
  }

  /** Gone from every answer at once; the worker deletes its deliveries in batches, then the row. */
  async delete(project: ProjectContext, id: string): Promise<void> {
    if (!(await this.distributions.markDeleted(project.id, id))) throw ApiError.notFound('distribution', id);
  }

  /** Records a recover for the worker; false if there is no such distribution. */
  async requestRecover(project: ProjectContext, id: string, since: Date): Promise<boolean> {
    return this.distributions.requestRecover(project.id, id, since);
  }

  async find(project: ProjectContext, id: string): Promise<Distribution> {
    const distribution = await this.distributions.findOne(project.id, id);
    if (!distribution) throw ApiError.notFound('distribution', id);
    return distribution;
  }

  /** A literal private address or localhost is refused now; names are checked on each delivery's connect. */
  private checkTarget(targetUrl: string): void {
    const blocked = this.guard.blockedLiteral(new URL(targetUrl).hostname);
    if (blocked !== null) throw ApiError.invalidPayload(`target_url points to ${blocked}, a loopback, private, link-local or reserved address; WEBHOOK_ALLOWED_CIDRS does not allow it`);
  }
}
