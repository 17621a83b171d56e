import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppKey } from './app-key.entity.js';
import { Project } from './project.entity.js';

export interface StoredKey {
  projectId: string;
  tokenSha256: Buffer;
  areasAndStores: boolean;
}

@Injectable()
export class ProjectRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** One statement: it runs on every authenticated request. */
  async findKey(appId: string): Promise<StoredKey | null> {
    const [row] = (await this.dataSource.query(
      `SELECT k.project_id, k.token_sha256, p.areas_and_stores FROM app_keys k JOIN projects p ON p.id = k.project_id WHERE k.app_id = $1`,
      [appId],
    )) as { project_id: string; token_sha256: Buffer; areas_and_stores: boolean }[];
    return row ? { projectId: row.project_id, tokenSha256: row.token_sha256, areasAndStores: row.areas_and_stores } : null;
  }

  /** Returns false when the project does not exist. */
  async setAreasAndStores(projectId: string, enabled: boolean): Promise<boolean> {
    const result = await this.dataSource.getRepository(Project).update({ id: projectId }, { areasAndStores: enabled });
    return (result.affected ?? 0) > 0;
  }

  async createWithKey(project: Pick<Project, 'id' | 'name'>, key: Pick<AppKey, 'appId' | 'tokenSha256'>): Promise<Project> {
    return this.dataSource.transaction(async (manager) => {
      const saved = await manager.getRepository(Project).save(manager.getRepository(Project).create(project));
      await manager.getRepository(AppKey).insert({ ...key, projectId: saved.id });
      return saved;
    });
  }

  /** Points an existing key at a new token; returns false when the app id is unknown. */
  async replaceToken(appId: string, tokenSha256: Buffer): Promise<boolean> {
    const result = await this.dataSource.getRepository(AppKey).update({ appId }, { tokenSha256 });
    return (result.affected ?? 0) > 0;
  }
}
