import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { Optional } from '../../../common/validation/decorators.js';
import type { WebhookSecret } from '../webhook-secret.entity.js';
import { patternExample } from '../../../common/openapi/examples.js';

export class WebhookSecretDto {
  @ApiProperty({ enum: ['webhook_secret'] })
  object: 'webhook_secret';

  @ApiProperty({ ...patternExample(/^whsec_[A-Za-z0-9+/]{43}=$/, 'whsec_yXhsmpD3t25RBE3kJvo7+tuqR9euUk6nYTcbn44PfPo='), description: 'Signs every webhook: `x-voucherify-signature` uses this string as the HMAC key; `webhook-signature` the bytes it encodes after `whsec_` (docs/webhooks.md).' })
  secret: string;

  @ApiProperty({ format: 'date-time', description: 'When this secret was made (by the first use, or by a rotation).' })
  created_at: string;

  @ApiProperty({ format: 'date-time', nullable: true, description: 'Until then, webhooks carry a second `webhook-signature` made with the previous secret; null when there is none.' })
  previous_secret_expires_at: string | null;
}

export class RotateWebhookSecretDto {
  @ApiPropertyOptional({ minimum: 0, maximum: 604800, default: 86400, description: 'How long the previous secret keeps signing, in seconds (0: not at all).' })
  @Optional()
  @IsInt()
  @Min(0)
  @Max(604_800)
  expire_previous_in_seconds?: number;
}

export function toWebhookSecretDto(secret: WebhookSecret, now = new Date()): WebhookSecretDto {
  const expires = secret.previousExpiresAt && secret.previousExpiresAt > now ? secret.previousExpiresAt.toISOString() : null;
  return { object: 'webhook_secret', secret: secret.secret, created_at: secret.createdAt.toISOString(), previous_secret_expires_at: expires };
}
