import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from 'typeorm';
import { Project } from './project.entity.js';

/** The name of a project's first key when nobody chose one (Voucherify's examples call it so). */
export const FIRST_KEY_NAME = 'Primary';

/**
 * An application key (X-App-Id + X-App-Token). Only the SHA-256 of the token is stored: tokens are
 * 256-bit random values, so a fast hash is enough and the plain token is shown once, at creation.
 */
@Entity({ name: 'app_keys' })
export class AppKey {
  @PrimaryColumn({ name: 'app_id', type: 'text' })
  appId: string;

  @Index('idx_app_keys_project_id')
  @Column({ name: 'project_id', type: 'text' })
  projectId: string;

  @ManyToOne(() => Project, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'project_id', foreignKeyConstraintName: 'fk_app_keys_project' })
  project?: Relation<Project>;

  @Column({ name: 'token_sha256', type: 'bytea' })
  tokenSha256: Buffer;

  /**
   * The key's name (`create-project --key-name`, `rotate-key --name`; `Primary` for a project's first key
   * by default): events caused with the key carry it as `event_source.api_key.name`, as Voucherify's do.
   */
  @Column({ type: 'text' })
  name: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
