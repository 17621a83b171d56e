import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { newWebhookSecret } from '../delivery/signing.js';
import { WebhookSecret } from './webhook-secret.entity.js';

@Injectable()
export class WebhookSecretRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The project's secret, made on first use (two callers racing both get the one that was stored). */
  async get(projectId: string): Promise<WebhookSecret> {
    await this.dataSource.query(`INSERT INTO webhook_secrets (project_id, secret) VALUES ($1, $2) ON CONFLICT (project_id) DO NOTHING`, [projectId, newWebhookSecret()]);
    return this.dataSource.getRepository(WebhookSecret).findOneByOrFail({ projectId });
  }

  async ensure(projectId: string): Promise<string> {
    return (await this.get(projectId)).secret;
  }

  /** A new secret; the current one stays valid for `expirePreviousSeconds` more (0: at once). */
  async rotate(projectId: string, expirePreviousSeconds: number): Promise<WebhookSecret> {
    await this.get(projectId);
    await this.dataSource.query(
      `UPDATE webhook_secrets SET previous_secret = secret, previous_expires_at = now() + $3 * interval '1 second', secret = $2, created_at = now()
       WHERE project_id = $1`,
      [projectId, newWebhookSecret(), expirePreviousSeconds],
    );
    return this.dataSource.getRepository(WebhookSecret).findOneByOrFail({ projectId });
  }
}
