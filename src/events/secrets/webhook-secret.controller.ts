import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { ProjectContext } from '../../auth/auth.service.js';
import { CurrentProject } from '../../auth/current-project.decorator.js';
import { ApiErrorResponses, ApiOkBody } from '../../common/openapi/api-responses.decorator.js';
import { RotateWebhookSecretDto, WebhookSecretDto } from './dto/webhook-secret.dto.js';
import { WebhookSecretService } from './webhook-secret.service.js';

@ApiTags('Webhooks')
@Controller('v1/webhook-secret')
export class WebhookSecretController {
  constructor(private readonly secrets: WebhookSecretService) {}

  @Get()
  @ApiOperation({ operationId: 'getWebhookSecret', summary: 'Get the project\'s webhook signing secret', description: 'Made on first use. Every webhook of the project is signed with it (docs/webhooks.md).' })
  @ApiOkBody(WebhookSecretDto)
  @ApiErrorResponses(401, 503)
  get(@CurrentProject() project: ProjectContext): Promise<WebhookSecretDto> {
    return this.secrets.get(project);
  }

  @Post('rotate')
  @HttpCode(200)
  @ApiOperation({ operationId: 'rotateWebhookSecret', summary: 'Rotate the webhook signing secret', description: 'The new secret signs at once; the previous one adds a second `webhook-signature` until `previous_secret_expires_at`.' })
  @ApiOkBody(WebhookSecretDto)
  @ApiErrorResponses(400, 401, 503)
  rotate(@CurrentProject() project: ProjectContext, @Body() body: RotateWebhookSecretDto): Promise<WebhookSecretDto> {
    return this.secrets.rotate(project, body);
  }
}
