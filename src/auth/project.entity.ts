import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A tenant: every other row belongs to exactly one project. */
@Entity({ name: 'projects' })
export class Project {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ type: 'text' })
  name: string;

  /** The Areas and Stores enterprise feature: campaigns accept access_settings and show their assignments. */
  @Column({ name: 'areas_and_stores', type: 'boolean', default: false })
  areasAndStores: boolean;

  /** IANA time zone of the project's days: points expire at 00:00 after their last day here (`cli.js set-time-zone`). */
  @Column({ name: 'time_zone', type: 'text', default: 'UTC' })
  timeZone: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
