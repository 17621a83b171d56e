import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { hexId } from '../common/ids.js';
import { AppConfig } from '../config/app-config.js';
import { isUniqueViolation } from '../database/errors.js';
import { FIRST_KEY_NAME } from './app-key.entity.js';
import { type KeySummary, ProjectRepository, type RevokeOutcome, type StoredKey } from './project.repository.js';

/** What every service receives to scope its queries: the caller's project. */
export interface ProjectContext {
  readonly id: string;
  /** Per-project features (off by default); read with the key, so checking one costs no query. */
  readonly features?: { readonly areasAndStores: boolean };
  /**
   * The application key of the request (its id and its name, never its token) and the request's id: events
   * caused by the request name them (`event_source.api_key`, `group_id`).
   */
  readonly apiKey?: { readonly appId: string; readonly name: string };
  readonly requestId?: string;
}

/**
 * What a key check answers: the caller's project; `refused` (no such key, or a wrong token); or `unchecked`
 * (not in the cache, and the lookup was not allowed: a limited client address, AuthFailureLimiter).
 */
export type Authentication = ProjectContext | 'refused' | 'unchecked';

export interface CreatedProject {
  project: { id: string; name: string; created_at: string };
  app_id: string;
  app_token: string;
  /** The key's name (`Primary` unless `create-project --key-name` gave another). */
  name: string;
}

/** A key made by `cli.js rotate-key`: the token is printed once and never stored. */
export interface CreatedKey {
  project_id: string;
  app_id: string;
  app_token: string;
  name: string;
}


export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** Compared when the app id is unknown, so a miss costs the same as a wrong token. */
const DUMMY_HASH = hashToken(randomUUID());
/** Bounds each key cache; past it the cache starts again empty (keys are few, so this is a safety net). */
const MAX_CACHED_KEYS = 10_000;

@Injectable()
export class AuthService {
  private readonly logger = new Logger(AuthService.name);

  /**
   * Keys found in the last APP_KEY_CACHE_MS (5 s by default): the lookup was a third of the database work
   * of a member list page. The token is still checked on every request; only a change of a key or a
   * project feature takes up to that long to reach a running API. A wrong token for a known id is
   * answered from this cache too, and nothing about the failure is remembered, so the right token is
   * accepted on the very next request. Entries that ran out stay (until the key is looked up again or the
   * map is cleared) as the keys this process has seen, which a limited client address may still use.
   */
  private readonly keys = new Map<string, { key: StoredKey; until: number }>();
  /**
   * App ids found unknown in the last AUTH_NEGATIVE_CACHE_MS (2 s by default), so a flood of made-up ids
   * costs one lookup per id and period rather than one per request. A key made later for such an id is
   * refused for at most that long; app ids are random UUIDs chosen by the service (create-project,
   * rotate-key), so only a BOOTSTRAP_APP_ID can have been asked for before it existed, and ensureKey
   * forgets it in its own process.
   */
  private readonly unknownIds = new Map<string, number>();

  constructor(
    private readonly projects: ProjectRepository,
    private readonly config: AppConfig,
  ) {}

  /**
   * The project of a key, or `refused` (no such key, or a wrong token). Without a fresh cache entry for the
   * app id the key is looked up, unless `mayLookUp` (given for a limited client address) says no: then
   * `unchecked`. `mayLookUp` learns whether this process has seen this app id with this token before (its
   * entry ran out): a guess cannot match a token the process has seen, so such a lookup is for a valid key.
   */
  async authenticate(appId: string, appToken: string, mayLookUp?: (seen: boolean) => boolean): Promise<Authentication> {
    const presented = hashToken(appToken);
    const now = Date.now();
    const cached = this.keys.get(appId);
    let key: StoredKey | null;
    if (cached && cached.until > now) key = cached.key;
    else if ((this.unknownIds.get(appId) ?? 0) > now) key = null;
    else if (mayLookUp && !mayLookUp(cached !== undefined && timingSafeEqual(presented, cached.key.tokenSha256))) return 'unchecked';
    else key = await this.lookUp(appId, now);
    const matches = timingSafeEqual(presented, key?.tokenSha256 ?? DUMMY_HASH);
    return key && matches ? { id: key.projectId, features: { areasAndStores: key.areasAndStores }, apiKey: { appId, name: key.name } } : 'refused';
  }

  /**
   * Reads the key and remembers the answer. A found key is kept even with APP_KEY_CACHE_MS=0 (an entry that is
   * never fresh): it is how the process knows it has seen the key (`authenticate`'s `mayLookUp`).
   */
  private async lookUp(appId: string, now: number): Promise<StoredKey | null> {
    const key = await this.projects.findKey(appId);
    if (key) {
      this.unknownIds.delete(appId);
      remember(this.keys, appId, { key, until: now + this.config.appKeyCacheMs });
    } else {
      this.keys.delete(appId);
      if (this.config.authNegativeCacheMs > 0) remember(this.unknownIds, appId, now + this.config.authNegativeCacheMs);
    }
    return key;
  }

  /** Forgets what this process cached about an app id (a key made or revoked here). */
  forget(appId: string): void {
    this.keys.delete(appId);
    this.unknownIds.delete(appId);
  }

  /**
   * A new key for an existing project; the old keys stay valid until revoked (rotation with overlap). Without
   * a name it is called `Primary` when the project has no other key, else `Key <UTC date>` (ProjectRepository.addKey).
   */
  async addKey(projectId: string, name: string | null): Promise<CreatedKey> {
    const appId = randomUUID();
    const appToken = randomBytes(32).toString('hex');
    const stored = await this.projects.addKey(projectId, { appId, tokenSha256: hashToken(appToken), name });
    if (stored === null) throw new Error(`Project ${projectId} does not exist`);
    this.forget(appId);
    return { project_id: projectId, app_id: appId, app_token: appToken, name: stored };
  }

  async listKeys(projectId: string): Promise<KeySummary[]> {
    const keys = await this.projects.listKeys(projectId);
    if (!keys) throw new Error(`Project ${projectId} does not exist`);
    return keys;
  }

  async revokeKey(appId: string, allowLast: boolean): Promise<RevokeOutcome> {
    const outcome = await this.projects.revokeKey(appId, allowLast);
    this.forget(appId);
    return outcome;
  }

  async createProject(name: string, keyName: string = FIRST_KEY_NAME): Promise<CreatedProject> {
    const appId = randomUUID();
    const appToken = randomBytes(32).toString('hex');
    const project = await this.projects.createWithKey({ id: hexId('proj_'), name }, { appId, tokenSha256: hashToken(appToken), name: keyName });
    return { project: { id: project.id, name: project.name, created_at: project.createdAt.toISOString() }, app_id: appId, app_token: appToken, name: keyName };
  }

  async setAreasAndStores(projectId: string, enabled: boolean): Promise<void> {
    if (!(await this.projects.setAreasAndStores(projectId, enabled))) throw new Error(`Project ${projectId} does not exist`);
  }

  /** The project's days end at 00:00 in this IANA zone (points expire then); throws for an unknown zone or project. */
  async setTimeZone(projectId: string, zone: string): Promise<void> {
    const known = await this.projects.setTimeZone(projectId, zone).catch((error: unknown) => {
      if ((error as { driverError?: { code?: string } }).driverError?.code === '22023') throw new Error(`Unknown time zone ${zone} (an IANA name such as Europe/Warsaw)`);
      throw error;
    });
    if (!known) throw new Error(`Project ${projectId} does not exist`);
  }

  /**
   * BOOTSTRAP_APP_ID/TOKEN: makes sure a project answers to this key. Idempotent; if the id exists with
   * another token, the environment wins and the token is replaced.
   */
  async ensureKey(appId: string, appToken: string): Promise<void> {
    try {
      await this.applyKey(appId, appToken);
    } finally {
      // A request may have found the id unknown (or with its old token) before the key was written.
      this.forget(appId);
    }
  }

  private async applyKey(appId: string, appToken: string): Promise<void> {
    const tokenSha256 = hashToken(appToken);
    if (await this.projects.replaceToken(appId, tokenSha256)) return;
    try {
      // The project's first key, so `Primary` like any first key: its id (the variable's value) tells it apart.
      const project = await this.projects.createWithKey({ id: hexId('proj_'), name: 'Default project' }, { appId, tokenSha256, name: FIRST_KEY_NAME });
      this.logger.log(`Created project ${project.id} for the bootstrap application key`);
    } catch (error) {
      // Another API replica inserted the same key a moment ago.
      if (!isUniqueViolation(error)) throw error;
      await this.projects.replaceToken(appId, tokenSha256);
    }
  }
}

function remember<T>(cache: Map<string, T>, appId: string, value: T): void {
  if (cache.size >= MAX_CACHED_KEYS) cache.clear();
  cache.set(appId, value);
}
