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

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
