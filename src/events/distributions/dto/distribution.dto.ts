import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsIn, IsOptional, IsString, Matches, MaxLength, MinLength, ValidateBy, type ValidationArguments } from 'class-validator';
import { ListCursorDto } from '../../../common/pagination/list-cursor.dto.js';
import { LimitQueryDto } from '../../../common/pagination/limit-query.dto.js';
import { IsMetadata, Optional } from '../../../common/validation/decorators.js';
import { type EventType, WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../event-catalogue.js';
import { DISTRIBUTION_STATUSES, type Distribution, type DistributionStatus } from '../distribution.entity.js';
import { EXAMPLE_IDS, patternExample } from '../../../common/openapi/examples.js';

export const DISTRIBUTIONS_CURSOR_PREFIX = 'lcrsdst_';
export const DISTRIBUTIONS_CURSOR = new RegExp(`^${DISTRIBUTIONS_CURSOR_PREFIX}[a-f0-9]+$`);
export const MAX_TARGET_URL_LENGTH = 2048;
export const MAX_CUSTOM_HEADERS = 20;

/** Headers the service sets itself (or HTTP owns); a distribution cannot send its own. */
export const RESERVED_HEADER = /^(content-type|content-length|content-encoding|transfer-encoding|host|connection|keep-alive|upgrade|te|trailer|expect|proxy-.*|user-agent|x-voucherify-signature|webhook-.*)$/i;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
/** What Node's http.validateHeaderValue accepts: tab, printable ASCII, and the Latin-1 range (DEL and controls refused). */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** Why `value` is not an acceptable target URL, or null. */
export function targetUrlProblem(value: unknown): string | null {
  if (typeof value !== 'string') return 'target_url must be a string';
  if (value.length > MAX_TARGET_URL_LENGTH) return `target_url must be at most ${MAX_TARGET_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'target_url must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'target_url must be an http or https URL';
  if (url.username || url.password) return 'target_url must not carry a user name or password (use custom_headers)';
  return null;
}

/** Why `value` is not an acceptable custom_headers object, or null. */
export function customHeadersProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'custom_headers must be an object of header names to string values';
  const entries = Object.entries(value);
  if (entries.length > MAX_CUSTOM_HEADERS) return `custom_headers must have at most ${MAX_CUSTOM_HEADERS} headers`;
  for (const [name, header] of entries) {
    if (!HEADER_NAME.test(name)) return `custom_headers: "${name.slice(0, 100)}" is not a valid header name`;
    if (RESERVED_HEADER.test(name)) return `custom_headers: ${name} is set by the service and cannot be sent by a distribution`;
    if (typeof header !== 'string') return `custom_headers.${name} must be a string`;
    if (header.length > 1000 || /[\r\n\0]/.test(header)) return `custom_headers.${name} must be at most 1000 characters, without line breaks`;
    // The rule Node applies when it sends the header (http.validateHeaderValue): tab, printable ASCII and
    // Latin-1 letters only. A value it refuses would make every attempt of the distribution fail to send.
    if (!HEADER_VALUE.test(header)) return `custom_headers.${name} must hold only tab, printable ASCII and Latin-1 characters (U+0080–U+00FF), as HTTP header values do`;
  }
  return null;
}

function Checked(check: (value: unknown) => string | null): PropertyDecorator {
  return ValidateBy({
    name: check.name,
    validator: { validate: (value: unknown) => check(value) === null, defaultMessage: (args?: ValidationArguments) => check(args?.value) ?? '' },
  });
}

export class CreateDistributionDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Pending points activated → CRM' })
  @IsDefined({ message: 'name is required' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name: string;

  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, description: 'The event type that makes a delivery.' })
  @IsDefined({ message: 'trigger is required' })
  @IsIn(WEBHOOK_EVENT_TYPES)
  trigger: WebhookEventType;

  @ApiProperty({ maxLength: MAX_TARGET_URL_LENGTH, example: 'https://crm.example.com/hooks/loyalty', description: 'http or https. A target resolving to a loopback, private, link-local or reserved address is refused unless WEBHOOK_ALLOWED_CIDRS covers it.' })
  @IsDefined({ message: 'target_url is required' })
  @Checked(targetUrlProblem)
  target_url: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 200, nullable: true, description: 'Sent as the envelope\'s `type`; null or absent: the trigger.' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  @Matches(/^[^\0\r\n]*$/, { message: 'event_name must not contain line breaks' })
  event_name?: string | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, description: `Up to ${MAX_CUSTOM_HEADERS} headers sent with every delivery, after the service's own; content-type, host, user-agent, x-voucherify-signature and webhook-* are reserved.` })
  @Optional()
  @Checked(customHeadersProblem)
  custom_headers?: Record<string, string>;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @Optional()
  @IsMetadata()
  metadata?: Record<string, unknown>;

  @ApiPropertyOptional({ enum: DISTRIBUTION_STATUSES, default: 'ACTIVE' })
  @Optional()
  @IsIn(DISTRIBUTION_STATUSES)
  status?: DistributionStatus;
}

/** PUT: the fields to change. `status: ACTIVE` resumes a PAUSED or DISABLED distribution. */
export class UpdateDistributionDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @Optional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ enum: WEBHOOK_EVENT_TYPES })
  @Optional()
  @IsIn(WEBHOOK_EVENT_TYPES)
  trigger?: WebhookEventType;

  @ApiPropertyOptional({ maxLength: MAX_TARGET_URL_LENGTH })
  @Optional()
  @Checked(targetUrlProblem)
  target_url?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 200, nullable: true, description: 'null: send the trigger as the envelope\'s `type`.' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  @Matches(/^[^\0\r\n]*$/, { message: 'event_name must not contain line breaks' })
  event_name?: string | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, description: 'Replaces the headers.' })
  @Optional()
  @Checked(customHeadersProblem)
  custom_headers?: Record<string, string>;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Replaces the metadata.' })
  @Optional()
  @IsMetadata()
  metadata?: Record<string, unknown>;

  @ApiPropertyOptional({ enum: DISTRIBUTION_STATUSES, description: 'ACTIVE resumes a paused or disabled distribution: its PENDING deliveries are sent again.' })
  @Optional()
  @IsIn(DISTRIBUTION_STATUSES)
  status?: DistributionStatus;
}

export class DistributionDto {
  @ApiProperty(patternExample(/^distr_[a-f0-9]+$/, EXAMPLE_IDS.distribution))
  id: string;

  @ApiProperty({ enum: ['distribution'] })
  object: 'distribution';

  @ApiProperty()
  name: string;

  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES })
  trigger: EventType;

  @ApiProperty({ nullable: true, type: String, description: 'The envelope\'s `type`; null: the trigger.' })
  event_name: string | null;

  @ApiProperty()
  target_url: string;

  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
  custom_headers: Record<string, string>;

  @ApiProperty({ type: 'object', additionalProperties: true })
  metadata: Record<string, unknown>;

  @ApiProperty({ enum: DISTRIBUTION_STATUSES, description: 'PAUSED after the last retry of a delivery failed; DISABLED after the target answered 410. Neither gets deliveries until made ACTIVE.' })
  status: DistributionStatus;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  updated_at: string | null;
}

export class DistributionListDto {
  @ApiProperty({ enum: ['list'] })
  object: 'list';

  @ApiProperty({ enum: ['data'] })
  data_ref: 'data';

  @ApiProperty({ type: [DistributionDto], description: 'Newest first.' })
  data: DistributionDto[];

  @ApiProperty()
  has_more: boolean;

  @ApiProperty({ type: ListCursorDto, nullable: true, description: 'null on the last page.' })
  cursor: ListCursorDto | null;
}

export class ListDistributionsQueryDto extends LimitQueryDto {
  @ApiPropertyOptional({ pattern: DISTRIBUTIONS_CURSOR.source, description: '`cursor.next` of the previous page.' })
  @Optional()
  @IsString()
  @Matches(DISTRIBUTIONS_CURSOR, { message: `cursor must match ${DISTRIBUTIONS_CURSOR.source}` })
  cursor?: string;
}

export function toDistributionDto(d: Distribution): DistributionDto {
  return {
    id: d.id,
    object: 'distribution',
    name: d.name,
    trigger: d.trigger,
    event_name: d.eventName,
    target_url: d.targetUrl,
    custom_headers: d.customHeaders,
    metadata: d.metadata,
    status: d.status,
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt?.toISOString() ?? null,
  };
}
