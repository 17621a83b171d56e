import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Secrets of this installation, shared by every API replica (for example the key that signs list
 * cursors). Made by a migration from PostgreSQL's strong random source; never sent to clients.
 */
@Entity({ name: 'instance_secrets' })
export class InstanceSecret {
  @PrimaryColumn({ type: 'text' })
  name: string;

  @Column({ type: 'bytea' })
  value: Buffer;
}
