import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { DataCipher } from '../../common/crypto/data-cipher.js';
import { newWebhookSecret } from '../delivery/signing.js';
import { secretContext } from './sealed-values.js';
import { WebhookSecret } from './webhook-secret.entity.js';

/** A stored secret row as it is in the table (sealed or plain), for `cli.js encrypt-secrets`. */
export interface StoredSecrets {
  projectId: string;
  secret: string;
  previousSecret: string | null;
}

/**
 * The project's signing secret. Stored sealed under DATA_ENCRYPTION_KEY when it is set (DataCipher), plain
 * otherwise; every method here answers it opened.
 */
@Injectable()
export class WebhookSecretRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly cipher: DataCipher,
  ) {}

  /** The project's secret, made on first use (two callers racing both get the one that was stored). */
  async get(projectId: string): Promise<WebhookSecret> {
    await this.dataSource.query(`INSERT INTO webhook_secrets (project_id, secret) VALUES ($1, $2) ON CONFLICT (project_id) DO NOTHING`, [projectId, this.seal(projectId, newWebhookSecret())]);
    return this.opened(await this.dataSource.getRepository(WebhookSecret).findOneByOrFail({ projectId }));
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
      [projectId, this.seal(projectId, newWebhookSecret()), expirePreviousSeconds],
    );
    return this.opened(await this.dataSource.getRepository(WebhookSecret).findOneByOrFail({ projectId }));
  }

  /** Up to `limit` rows after project `after`, as stored (`cli.js encrypt-secrets`). */
  async storedPage(after: string, limit: number): Promise<StoredSecrets[]> {
    const rows = (await this.dataSource.query(`SELECT project_id, secret, previous_secret FROM webhook_secrets WHERE project_id > $1 ORDER BY project_id LIMIT $2`, [after, limit])) as {
      project_id: string;
      secret: string;
      previous_secret: string | null;
    }[];
    return rows.map((row) => ({ projectId: row.project_id, secret: row.secret, previousSecret: row.previous_secret }));
  }

  /**
   * Rewrites a row's secrets as a write would store them now (sealed under the current key, or plain), if
   * it still holds `stored` (a rotation meanwhile wrote new ones: left as they are). Whether it was rewritten.
   */
  async reseal(stored: StoredSecrets): Promise<boolean> {
    const context = secretContext(stored.projectId);
    const again = (value: string) => this.cipher.seal(this.cipher.open(value, context), context);
    const [, changed] = (await this.dataSource.query(
      `UPDATE webhook_secrets SET secret = $3, previous_secret = $5 WHERE project_id = $1 AND secret = $2 AND previous_secret IS NOT DISTINCT FROM $4`,
      [stored.projectId, stored.secret, again(stored.secret), stored.previousSecret, stored.previousSecret === null ? null : again(stored.previousSecret)],
    )) as [unknown, number];
    return changed > 0;
  }

  private seal(projectId: string, secret: string): string {
    return this.cipher.seal(secret, secretContext(projectId));
  }

  private opened(row: WebhookSecret): WebhookSecret {
    const context = secretContext(row.projectId);
    return { ...row, secret: this.cipher.open(row.secret, context), previousSecret: row.previousSecret === null ? null : this.cipher.open(row.previousSecret, context) };
  }
}
