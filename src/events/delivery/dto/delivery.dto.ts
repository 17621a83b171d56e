import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsIn, IsString, Matches } from 'class-validator';
import { ListCursorDto } from '../../../common/pagination/list-cursor.dto.js';
import { LimitQueryDto } from '../../../common/pagination/limit-query.dto.js';
import { IsDateTime, Optional } from '../../../common/validation/decorators.js';
import { DELIVERY_STATUSES, type DeliveryStatus, type WebhookAttempt, type WebhookDelivery } from '../webhook-delivery.entity.js';
import { STATS_WINDOW } from '../deliveries.repository.js';
import { EXAMPLE_IDS, patternExample } from '../../../common/openapi/examples.js';

export const DELIVERIES_CURSOR_PREFIX = 'lcrswhs_';
export const DELIVERIES_CURSOR = new RegExp(`^${DELIVERIES_CURSOR_PREFIX}[a-f0-9]+$`);

export class DeliveryAttemptDto {
  @ApiProperty({ format: 'date-time' })
  at: string;

  @ApiProperty({ type: Number, nullable: true, description: 'null when no answer came (connection refused, blocked address, timeout).' })
  status_code: number | null;

  @ApiProperty()
  duration_ms: number;

  @ApiProperty({ type: String, nullable: true, description: 'Why the attempt failed; null when it succeeded.' })
  error: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The first 1 KB of the answer\'s body.' })
  response_excerpt: string | null;
}

export class DeliveryDto {
  @ApiProperty({ ...patternExample(/^whs_[a-f0-9]+$/, EXAMPLE_IDS.delivery), description: 'Also the envelope\'s `id` and the `webhook-id` header, the same on every attempt.' })
  id: string;

  @ApiProperty({ enum: ['webhook_delivery'] })
  object: 'webhook_delivery';

  @ApiProperty({ example: EXAMPLE_IDS.distribution })
  distribution_id: string;

  @ApiProperty({ example: EXAMPLE_IDS.event })
  event_id: string;

  @ApiProperty()
  event_type: string;

  @ApiProperty({ enum: DELIVERY_STATUSES, description: 'PENDING until a 2xx (SUCCEEDED), or until the retries ran out or the target answered 410 (FAILED).' })
  status: DeliveryStatus;

  @ApiProperty()
  attempts_count: number;

  @ApiProperty({ format: 'date-time', type: String, nullable: true, description: 'When the next attempt is due; null once settled, and while its distribution is not ACTIVE (due again when it is).' })
  next_attempt_at: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time', type: String, nullable: true })
  delivered_at: string | null;

  @ApiProperty({ description: 'A test delivery (`POST /v1/distributions/{id}/test`): a sample event, with `data.test` true, that is in no event log.' })
  test: boolean;

  @ApiProperty({ type: [DeliveryAttemptDto], description: 'Oldest first.' })
  attempts: DeliveryAttemptDto[];
}

export class DeliveryDetailDto extends DeliveryDto {
  @ApiProperty({
    description:
      'The exact request body (the envelope) that the attempts send, signed as it is. Rebuilt from the stored rows, so it is what was sent unless the distribution\'s `target_url` or `event_name` changed since.',
  })
  request_body: string;
}

export class LastDeliveryDto {
  @ApiProperty(patternExample(/^whs_[a-f0-9]+$/, EXAMPLE_IDS.delivery))
  id: string;

  @ApiProperty({ enum: DELIVERY_STATUSES })
  status: DeliveryStatus;

  @ApiProperty({ format: 'date-time', type: String, nullable: true, description: 'Its last attempt; null before the first.' })
  at: string | null;

  @ApiProperty({ type: Number, nullable: true, description: 'Of its last attempt; null before the first or when no answer came.' })
  status_code: number | null;
}

export class DeliveryCountsDto {
  @ApiProperty()
  succeeded: number;

  @ApiProperty()
  failed: number;

  @ApiProperty()
  pending: number;
}

export class DistributionStatsDto {
  @ApiProperty({ enum: ['distribution_stats'] })
  object: 'distribution_stats';

  @ApiProperty({ example: EXAMPLE_IDS.distribution })
  distribution_id: string;

  @ApiProperty({ type: LastDeliveryDto, nullable: true, description: 'The newest delivery; null when there is none.' })
  last_delivery: LastDeliveryDto | null;

  @ApiProperty({ type: DeliveryCountsDto, description: `Deliveries created in the last 24 hours by status (among the newest ${STATS_WINDOW.toLocaleString('en')}).` })
  last_24h: DeliveryCountsDto;
}

export class DeliveryListDto {
  @ApiProperty({ enum: ['list'] })
  object: 'list';

  @ApiProperty({ enum: ['data'] })
  data_ref: 'data';

  @ApiProperty({ type: [DeliveryDto], description: 'Newest first.' })
  data: DeliveryDto[];

  @ApiProperty()
  has_more: boolean;

  @ApiProperty({ type: ListCursorDto, nullable: true, description: 'null on the last page.' })
  cursor: ListCursorDto | null;
}

export class ListDeliveriesQueryDto extends LimitQueryDto {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES })
  @Optional()
  @IsIn(DELIVERY_STATUSES)
  status?: DeliveryStatus;

  @ApiPropertyOptional({ pattern: DELIVERIES_CURSOR.source, description: '`cursor.next` of the previous page; valid with the same `status`.' })
  @Optional()
  @IsString()
  @Matches(DELIVERIES_CURSOR, { message: `cursor must match ${DELIVERIES_CURSOR.source}` })
  cursor?: string;
}

export class RecoverDeliveriesDto {
  @ApiProperty({ format: 'date-time', description: 'Every FAILED delivery of the distribution created since then is sent again.' })
  @IsDefined({ message: 'since is required' })
  @IsDateTime()
  since: string;
}

export class RecoveryDto {
  @ApiProperty({ enum: ['webhook_recovery'] })
  object: 'webhook_recovery';

  @ApiProperty({ example: EXAMPLE_IDS.distribution })
  distribution_id: string;

  @ApiProperty({ format: 'date-time' })
  since: string;

  @ApiProperty({ description: 'The FAILED deliveries created since `since` that are sent again (each one attempt, same `webhook-id`), counted up to 10,000 when the request was answered: 10,000 means at least that many. The worker makes them PENDING in the background.' })
  deliveries_count: number;
}

export function toDeliveryDto(delivery: WebhookDelivery, attempts: WebhookAttempt[]): DeliveryDto {
  return {
    id: delivery.id,
    object: 'webhook_delivery',
    distribution_id: delivery.distributionId,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    status: delivery.status,
    attempts_count: delivery.attemptsCount,
    next_attempt_at: delivery.status === 'PENDING' ? (delivery.nextAttemptAt?.toISOString() ?? null) : null,
    created_at: delivery.createdAt.toISOString(),
    delivered_at: delivery.deliveredAt?.toISOString() ?? null,
    test: delivery.test,
    attempts: attempts.map((a) => ({ at: a.at.toISOString(), status_code: a.statusCode, duration_ms: a.durationMs, error: a.error, response_excerpt: a.responseExcerpt })),
  };
}
