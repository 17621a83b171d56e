import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from 'typeorm';
import { Project } from '../auth/project.entity.js';

/** A campaign category (`cat_`), created on first use of its name. */
@Entity({ name: 'categories' })
@Index('uq_categories_project_name', ['projectId', 'name'], { unique: true })
export class Category {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ name: 'project_id', type: 'text' })
  projectId: string;

  @ManyToOne(() => Project, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'project_id' })
  project?: Relation<Project>;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'integer', default: 0 })
  hierarchy: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
