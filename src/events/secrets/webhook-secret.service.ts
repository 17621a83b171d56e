import { Injectable } from '@nestjs/common';
import type { ProjectContext } from '../../auth/auth.service.js';
import { type RotateWebhookSecretDto, toWebhookSecretDto, type WebhookSecretDto } from './dto/webhook-secret.dto.js';
import { WebhookSecretRepository } from './webhook-secret.repository.js';

const DEFAULT_GRACE_SECONDS = 86_400;

@Injectable()
export class WebhookSecretService {
  constructor(private readonly secrets: WebhookSecretRepository) {}

  async get(project: ProjectContext): Promise<WebhookSecretDto> {
    return toWebhookSecretDto(await this.secrets.get(project.id));
  }

  async rotate(project: ProjectContext, body: RotateWebhookSecretDto): Promise<WebhookSecretDto> {
    return toWebhookSecretDto(await this.secrets.rotate(project.id, body.expire_previous_in_seconds ?? DEFAULT_GRACE_SECONDS));
  }
}
