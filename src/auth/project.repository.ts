import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppKey, FIRST_KEY_NAME } from './app-key.entity.js';
import { Project } from './project.entity.js';

/** A key as `cli.js list-keys` shows it (never its token, which is not stored). */
export interface KeySummary {
  appId: string;
  name: string;
  createdAt: Date;
}

/** The key check: one statement, run on every authenticated request the key cache does not answer (bench/'s plain baselines send it too). */
export const FIND_KEY = `SELECT k.project_id, k.token_sha256, k.name, p.areas_and_stores FROM app_keys k JOIN projects p ON p.id = k.project_id WHERE k.app_id = $1`;

export type RevokeOutcome = { revoked: true; projectId: string } | { revoked: false; reason: 'unknown' | 'last_key' };

export interface StoredKey {
  projectId: string;
  tokenSha256: Buffer;
  areasAndStores: boolean;
  /** The key's name, which events caused with it carry (`event_source.api_key.name`). */
  name: string;
}

@Injectable()
export class ProjectRepository {
  /** Lookups made by this process: the tests read it to prove what the key caches spare the database. */
  keyLookups = 0;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async findKey(appId: string): Promise<StoredKey | null> {
    this.keyLookups += 1;
    const [row] = (await this.dataSource.query(FIND_KEY, [appId])) as { project_id: string; token_sha256: Buffer; name: string; areas_and_stores: boolean }[];
    return row ? { projectId: row.project_id, tokenSha256: row.token_sha256, areasAndStores: row.areas_and_stores, name: row.name } : null;
  }

  /** Returns false when the project does not exist. */
  async setAreasAndStores(projectId: string, enabled: boolean): Promise<boolean> {
    const result = await this.dataSource.getRepository(Project).update({ id: projectId }, { areasAndStores: enabled });
    return (result.affected ?? 0) > 0;
  }

  /** Returns false when the project does not exist; PostgreSQL refuses a zone it does not know (22023). */
  async setTimeZone(projectId: string, zone: string): Promise<boolean> {
    await this.dataSource.query('SELECT now() AT TIME ZONE $1', [zone]);
    const result = await this.dataSource.getRepository(Project).update({ id: projectId }, { timeZone: zone });
    return (result.affected ?? 0) > 0;
  }

  async createWithKey(project: Pick<Project, 'id' | 'name'>, key: Pick<AppKey, 'appId' | 'tokenSha256' | 'name'>): Promise<Project> {
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

  /**
   * Adds a key to an existing project and returns its name, or null when the project does not exist. A key
   * given no name is `Primary` when the project has no other (all were revoked), else `Key <its UTC date>`,
   * the same rule the AppKeyNamesRequired migration applied to the keys made before names were required.
   */
  async addKey(projectId: string, key: Pick<AppKey, 'appId' | 'tokenSha256'> & { name: string | null }): Promise<string | null> {
    const [row] = (await this.dataSource.query(
      `INSERT INTO app_keys (app_id, project_id, token_sha256, name)
       SELECT $1, p.id, $3, COALESCE($4, CASE WHEN EXISTS (SELECT 1 FROM app_keys o WHERE o.project_id = p.id) THEN 'Key ' || to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD') ELSE $5 END)
         FROM projects p WHERE p.id = $2
       RETURNING name`,
      [key.appId, projectId, key.tokenSha256, key.name, FIRST_KEY_NAME],
    )) as { name: string }[];
    return row?.name ?? null;
  }

  /** The project's keys, oldest first; null when the project does not exist. */
  async listKeys(projectId: string): Promise<KeySummary[] | null> {
    const rows = (await this.dataSource.query(
      `SELECT k.app_id, k.name, k.created_at FROM projects p LEFT JOIN app_keys k ON k.project_id = p.id WHERE p.id = $1 ORDER BY k.created_at, k.app_id`,
      [projectId],
    )) as { app_id: string | null; name: string | null; created_at: Date | null }[];
    // LEFT JOIN: a project without keys gives one row of nulls.
    if (rows.length === 0) return null;
    return rows.filter((row) => row.app_id !== null).map((row) => ({ appId: row.app_id!, name: row.name!, createdAt: row.created_at! }));
  }

  /**
   * Deletes a key. Unless `allowLast`, a project's only key is kept (the project could no longer be
   * reached); the project row is locked first so that two revocations at once cannot both see "another
   * key remains" and leave none.
   */
  async revokeKey(appId: string, allowLast: boolean): Promise<RevokeOutcome> {
    return this.dataSource.transaction(async (manager) => {
      const [project] = (await manager.query(
        `SELECT p.id FROM projects p WHERE p.id = (SELECT project_id FROM app_keys WHERE app_id = $1) FOR UPDATE`,
        [appId],
      )) as { id: string }[];
      if (!project) return { revoked: false, reason: 'unknown' } as const;
      const [{ keys }] = (await manager.query(`SELECT count(*)::int AS keys FROM app_keys WHERE project_id = $1`, [project.id])) as { keys: number }[];
      if (keys <= 1 && !allowLast) return { revoked: false, reason: 'last_key' } as const;
      const deleted = (await manager.query(`DELETE FROM app_keys WHERE app_id = $1 RETURNING app_id`, [appId])) as [unknown[], number];
      return deleted[1] > 0 ? ({ revoked: true, projectId: project.id } as const) : ({ revoked: false, reason: 'unknown' } as const);
    });
  }
}
