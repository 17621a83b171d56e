import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * The project's webhook signing secret (`whsec_` + base64 of 32 random bytes). It must be shown to the
 * project again (GET /v1/webhook-secret), so it cannot be hashed as application tokens are: it is sealed
 * (AES-256-GCM) under DATA_ENCRYPTION_KEY when that is set, and stored plain otherwise (DataCipher; the
 * repository opens it). `secret` and `previous_secret` hold either form.
 * After a rotation the previous secret still signs (a second `webhook-signature` entry) until
 * `previous_expires_at`, so receivers can switch without losing a delivery.
 */
@Entity({ name: 'webhook_secrets' })
export class WebhookSecret {
  @PrimaryColumn({ name: 'project_id', type: 'text' })
  projectId: string;

  @Column({ type: 'text' })
  secret: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'previous_secret', type: 'text', nullable: true })
  previousSecret: string | null;

  @Column({ name: 'previous_expires_at', type: 'timestamptz', precision: 3, nullable: true })
  previousExpiresAt: Date | null;
}
