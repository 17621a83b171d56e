import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { hexId } from '../common/ids.js';
import { Category } from './category.entity.js';

@Injectable()
export class CategoryRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async findById(projectId: string, id: string): Promise<Category | null> {
    return this.dataSource.getRepository(Category).findOneBy({ projectId, id });
  }

  /** The category with this name, created if missing; safe when two requests create it at once. */
  async ensureByName(projectId: string, name: string, manager: EntityManager = this.dataSource.manager): Promise<Category> {
    const categories = manager.getRepository(Category);
    await categories.createQueryBuilder().insert().values({ id: hexId('cat_'), projectId, name }).orIgnore().execute();
    return categories.findOneByOrFail({ projectId, name });
  }
}
