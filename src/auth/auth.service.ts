import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { hexId } from '../common/ids.js';
import { AppConfig } from '../config/app-config.js';
import { ProjectRepository, type StoredKey } from './project.repository.js';

/** What every service receives to scope its queries: the caller's project. */
export interface ProjectContext {
  readonly id: string;
  /** Per-project features (off by default); read with the key, so checking one costs no query. */
  readonly features?: { readonly areasAndStores: boolean };
  /** The application key of the request, and its id: events caused by the request name both. */
  readonly appId?: string;
  readonly requestId?: string;
}

export interface CreatedProject {
  project: { id: string; name: string; created_at: string };
  app_id: string;
  app_token: string;
}

export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** Compared when the app id is unknown, so a miss costs the same as a wrong token. */
const DUMMY_HASH = hashToken(randomUUID());
/** Bounds the key cache; past it the cache starts again empty (keys are few, so this is a safety net). */
const MAX_CACHED_KEYS = 10_000;

@Injectable()
export class AuthService {
  private readonly logger = new Logger(AuthService.name);

  /**
   * Keys found in the last APP_KEY_CACHE_MS (5 s by default): the lookup was a third of the database work
   * of a member list page. The token is still checked on every request; only a change of a key or a
   * project feature takes up to that long to reach a running API. Unknown ids are never cached.
   */
  private readonly keys = new Map<string, { key: StoredKey; until: number }>();

  constructor(
    private readonly projects: ProjectRepository,
    private readonly config: AppConfig,
  ) {}

  async authenticate(appId: string, appToken: string): Promise<ProjectContext | null> {
    const key = await this.findKey(appId);
    const presented = hashToken(appToken);
    const matches = timingSafeEqual(presented, key?.tokenSha256 ?? DUMMY_HASH);
    return key && matches ? { id: key.projectId, features: { areasAndStores: key.areasAndStores } } : null;
  }

  private async findKey(appId: string): Promise<StoredKey | null> {
    const now = Date.now();
    const cached = this.keys.get(appId);
    if (cached && cached.until > now) return cached.key;
    const key = await this.projects.findKey(appId);
    if (this.config.appKeyCacheMs > 0) {
      if (!key) this.keys.delete(appId);
      else {
        if (this.keys.size >= MAX_CACHED_KEYS) this.keys.clear();
        this.keys.set(appId, { key, until: now + this.config.appKeyCacheMs });
      }
    }
    return key;
  }

  async createProject(name: string): Promise<CreatedProject> {
    const appId = randomUUID();
    const appToken = randomBytes(32).toString('hex');
    const project = await this.projects.createWithKey({ id: hexId('proj_'), name }, { appId, tokenSha256: hashToken(appToken) });
    return { project: { id: project.id, name: project.name, created_at: project.createdAt.toISOString() }, app_id: appId, app_token: appToken };
  }

  async setAreasAndStores(projectId: string, enabled: boolean): Promise<void> {
    if (!(await this.projects.setAreasAndStores(projectId, enabled))) throw new Error(`Project ${projectId} does not exist`);
  }

  /**
   * BOOTSTRAP_APP_ID/TOKEN: makes sure a project answers to this key. Idempotent; if the id exists with
   * another token, the environment wins and the token is replaced.
   */
  async ensureKey(appId: string, appToken: string): Promise<void> {
    const tokenSha256 = hashToken(appToken);
    if (await this.projects.replaceToken(appId, tokenSha256)) return;
    try {
      const project = await this.projects.createWithKey({ id: hexId('proj_'), name: 'Default project' }, { appId, tokenSha256 });
      this.logger.log(`Created project ${project.id} for the bootstrap application key`);
    } catch (error) {
      // Another API replica inserted the same key a moment ago.
      if ((error as { driverError?: { code?: string } }).driverError?.code !== '23505') throw error;
      await this.projects.replaceToken(appId, tokenSha256);
    }
  }
}
