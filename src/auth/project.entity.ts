import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A tenant: every other row belongs to exactly one project. */
@Entity({ name: 'projects' })
export class Project {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ type: 'text' })
  name: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
