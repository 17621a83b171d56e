import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AuthService } from '../auth/auth.service.js';
import { CampaignsService } from '../campaigns/campaigns.service.js';
import { MemberSeedRepository } from './member-seed.repository.js';

/** Largest seed one command makes (10 million members, customers and cards). */
export const MAX_SEED_MEMBERS = 10_000_000;
/** Rows per statement and transaction: large enough to amortise the statement, small enough to keep WAL and memory flat. */
export const SEED_CHUNK = 100_000;
/**
 * Chunks in flight at once. Each chunk is one single-threaded INSERT in PostgreSQL (a third of its time
 * in foreign-key checks); two keep both cores of a small machine busy.
 */
export const SEED_LANES = 2;

export interface SeedResult {
  project_id: string;
  app_id: string;
  app_token: string;
  campaign_id: string;
  program_id: string;
  members: number;
  seconds: number;
}

/**
 * `node dist/cli.js seed`: a new project with an application key, an AUTO_UPDATE loyalty campaign (made
 * the way POST /v1/loyalties makes it, with no cards to generate) and `members` members, each with its
 * customer and one card published to it, inserted in bulk. For benchmarks and load tests only.
 */
@Injectable()
export class MemberSeedService {
  constructor(
    private readonly auth: AuthService,
    private readonly campaigns: CampaignsService,
    private readonly seeds: MemberSeedRepository,
  ) {}

  async seed(members: number, projectName: string, progress?: (done: number) => void): Promise<SeedResult> {
    if (!Number.isSafeInteger(members) || members < 1 || members > MAX_SEED_MEMBERS) {
      throw new RangeError(`members must be a whole number from 1 to ${MAX_SEED_MEMBERS}`);
    }
    const started = performance.now();
    const tag = randomBytes(3).toString('hex').toUpperCase();
    const key = await this.auth.createProject(projectName);
    const project = { id: key.project.id };
    const campaign = await this.campaigns.create(project, { name: `Seed ${tag}`, type: 'AUTO_UPDATE', vouchers_count: 0 });
    const target = {
      projectId: project.id,
      programId: campaign.program_id,
      campaignId: campaign.id,
      initialPoints: campaign.voucher?.loyalty_card?.points ?? 0,
    };
    // Member 1 joins now, the others before it: no member is in the future.
    const base = new Date();
    let next = 1;
    let done = 0;
    const lane = async (): Promise<void> => {
      while (next <= members) {
        const from = next;
        const to = Math.min(from + SEED_CHUNK - 1, members);
        next = to + 1;
        await this.seeds.insertChunk(target, { from, to, base, tag });
        done += to - from + 1;
        progress?.(done);
      }
    };
    await Promise.all(Array.from({ length: SEED_LANES }, lane));
    await this.seeds.vacuumAnalyze();
    return {
      project_id: project.id,
      app_id: key.app_id,
      app_token: key.app_token,
      campaign_id: campaign.id,
      program_id: campaign.program_id,
      members,
      seconds: Math.round((performance.now() - started) / 10) / 100,
    };
  }
}
