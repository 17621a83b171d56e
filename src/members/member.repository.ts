import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { LoyaltyCard } from '../points/cards/loyalty-card.entity.js';
import type { MemberFilters, SortKey } from './member-list-query.js';
import { memberPageQuery } from './member-page.sql.js';
import { Member, type MemberStatus } from './member.entity.js';

/** A member row as the list reads it: plain columns, no entity hydration on the hot path. */
export interface MemberRow {
  id: string;
  program_id: string;
  customer_id: string;
  status: MemberStatus;
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date | null;
}

export interface NewMember {
  id: string;
  projectId: string;
  programId: string;
  customerId: string;
  status: 'ACTIVE' | 'INACTIVE';
  metadata: Record<string, unknown>;
}

/** How enrolment finds the member's card. */
export interface CardSource {
  campaignId: string;
  /** A given code must be one of the campaign's free cards. */
  code?: string;
  /** Without a free card, AUTO_UPDATE campaigns make one; STATIC campaigns cannot. */
  makeCard: null | { initialPoints: number; newId: () => string; newCode: () => string };
}

export type EnrolResult =
  | { ok: true; member: Member; card: LoyaltyCard }
  | { ok: false; reason: 'member_exists' | 'no_free_card' | 'code_not_found' | 'code_published' | 'code_space_exhausted'; cardId?: string };

class Rollback extends Error {
  constructor(readonly result: EnrolResult) {
    super('rollback');
  }
}

/** Attempts at a fresh random code before giving up on a crowded code space. */
const NEW_CODE_ATTEMPTS = 10;

@Injectable()
export class MemberRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Member and card in one transaction. The member insert relies on the partial unique index (one live
   * membership per customer and program), the card claim on `FOR UPDATE SKIP LOCKED`, so concurrent
   * enrolments never share a card and never enrol a customer twice; any failure rolls the member back.
   */
  async enrol(member: NewMember, source: CardSource): Promise<EnrolResult> {
    try {
      return await this.dataSource.transaction(async (manager) => {
        const inserted = (await manager.query(
          `INSERT INTO members (id, project_id, program_id, customer_id, status, metadata)
           VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (program_id, customer_id) WHERE status <> 'DELETED' DO NOTHING
           RETURNING id`,
          [member.id, member.projectId, member.programId, member.customerId, member.status, member.metadata],
        )) as unknown[];
        if (inserted.length === 0) throw new Rollback({ ok: false, reason: 'member_exists' });
        const { cardId, made } = await this.assignCard(manager, member, source);
        const card = await this.card(manager, cardId);
        const row = await manager.getRepository(Member).findOneByOrFail({ id: member.id });
        // A new card counts towards the campaign, and the target moves with it so generation still makes
        // exactly the cards it was asked for. Last before the commit: the campaign's row stays locked from
        // here to the commit, and every enrolment that makes a card waits for that lock.
        if (made) await manager.query('UPDATE campaigns SET vouchers_count = vouchers_count + 1, vouchers_target = vouchers_target + 1 WHERE id = $1', [source.campaignId]);
        return { ok: true as const, member: row, card };
      });
    } catch (error) {
      if (error instanceof Rollback) return error.result;
      throw error;
    }
  }

  /** The member's card: a given code, a free card, or (AUTO_UPDATE) a new one, `made`. */
  private async assignCard(manager: EntityManager, member: NewMember, source: CardSource): Promise<{ cardId: string; made: boolean }> {
    const publish = `SET member_id = $1, holder_id = $2, published_at = now(), updated_at = now()`;
    if (source.code !== undefined) {
      const [claimed] = (await manager.query(
        `UPDATE vouchers ${publish} WHERE project_id = $3 AND campaign_id = $4 AND code = $5 AND member_id IS NULL RETURNING id`,
        [member.id, member.customerId, member.projectId, source.campaignId, source.code],
      )) as [{ id: string }[], number];
      if (claimed.length) return { cardId: claimed[0].id, made: false };
      const existing = await manager.getRepository(LoyaltyCard).findOneBy({ projectId: member.projectId, campaignId: source.campaignId, code: source.code });
      throw new Rollback({ ok: false, reason: existing ? 'code_published' : 'code_not_found', cardId: existing?.id });
    }
    const [free] = (await manager.query(
      `UPDATE vouchers ${publish}
       WHERE id = (SELECT id FROM vouchers WHERE campaign_id = $3 AND member_id IS NULL LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING id`,
      [member.id, member.customerId, source.campaignId],
    )) as [{ id: string }[], number];
    if (free.length) return { cardId: free[0].id, made: false };
    if (!source.makeCard) throw new Rollback({ ok: false, reason: 'no_free_card' });
    for (let attempt = 0; attempt < NEW_CODE_ATTEMPTS; attempt += 1) {
      const made = (await manager.query(
        `INSERT INTO vouchers (id, project_id, campaign_id, code, initial_points, points, balance, member_id, holder_id, published_at, updated_at)
         VALUES ($1, $2, $3, $4, $5::int, $5::int, $5::int, $6, $7, now(), now())
         ON CONFLICT (project_id, code) DO NOTHING RETURNING id`,
        [source.makeCard.newId(), member.projectId, source.campaignId, source.makeCard.newCode(), source.makeCard.initialPoints, member.id, member.customerId],
      )) as { id: string }[];
      if (made.length) return { cardId: made[0].id, made: true };
    }
    throw new Rollback({ ok: false, reason: 'code_space_exhausted' });
  }

  private card(manager: EntityManager, id: string): Promise<LoyaltyCard> {
    return manager.getRepository(LoyaltyCard).findOneByOrFail({ id });
  }

  /** A member of the program, deleted or not, with its cards. */
  async find(projectId: string, programId: string, memberId: string): Promise<{ member: Member; cards: LoyaltyCard[] } | null> {
    const member = await this.dataSource.getRepository(Member).findOneBy({ projectId, programId, id: memberId });
    if (!member) return null;
    const cards = await this.dataSource.getRepository(LoyaltyCard).find({ where: { memberId }, order: { publishedAt: 'ASC' } });
    return { member, cards };
  }

  /** Merges keys (a null value removes that key); `null` clears all. Only live members change. */
  async updateMetadata(projectId: string, programId: string, memberId: string, metadata: Record<string, unknown> | null): Promise<Member | null> {
    const [rows] = (await this.dataSource.query(
      `UPDATE members SET updated_at = now(), metadata = CASE WHEN $4::jsonb IS NULL THEN '{}'::jsonb
         ELSE (metadata || $4::jsonb) - ARRAY(SELECT key FROM jsonb_each($4::jsonb) WHERE value = 'null'::jsonb) END
       WHERE project_id = $1 AND program_id = $2 AND id = $3 AND status <> 'DELETED' RETURNING id`,
      [projectId, programId, memberId, metadata === null ? null : JSON.stringify(metadata)],
    )) as [{ id: string }[], number];
    return rows.length ? this.dataSource.getRepository(Member).findOneBy({ id: memberId }) : null;
  }

  /** Moves a live member to `status`; unchanged rows keep their updated_at. Null when there is no live member. */
  async setStatus(projectId: string, programId: string, memberId: string, status: MemberStatus): Promise<Member | null> {
    const [rows] = (await this.dataSource.query(
      `UPDATE members SET status = $4, updated_at = CASE WHEN status = $4 THEN updated_at ELSE now() END
       WHERE project_id = $1 AND program_id = $2 AND id = $3 AND status <> 'DELETED' RETURNING id`,
      [projectId, programId, memberId, status],
    )) as [{ id: string }[], number];
    return rows.length ? this.dataSource.getRepository(Member).findOneBy({ id: memberId }) : null;
  }

  /**
   * One page of live members in `sort` order after `after` (the previous page's last sort values), or
   * null when the project has no such program. The program check rides in the same statement as the page,
   * so a page costs one round trip. When status leads the order, each status is read as its own index
   * range (status has two values), so the rest of the order can go either way without sorting the program.
   */
  async list(projectId: string, programId: string, sort: SortKey[], filters: MemberFilters, after: unknown[] | null, limit: number): Promise<MemberRow[] | null> {
    if (sort[0].column !== 'status') return this.listRange(projectId, programId, sort, filters, after, limit, null);
    const statuses = sort[0].desc ? ['INACTIVE', 'ACTIVE'] : ['ACTIVE', 'INACTIVE'];
    const rest = sort.slice(1);
    const rows: MemberRow[] = [];
    for (let i = after ? statuses.indexOf(after[0] as string) : 0; i >= 0 && i < statuses.length && rows.length < limit; i += 1) {
      const resume = after && statuses[i] === after[0] ? after.slice(1) : null;
      const range = await this.listRange(projectId, programId, rest, filters, resume, limit - rows.length, statuses[i]);
      if (!range) return null;
      rows.push(...range);
    }
    return rows;
  }

  private async listRange(
    projectId: string,
    programId: string,
    sort: SortKey[],
    filters: MemberFilters,
    after: unknown[] | null,
    limit: number,
    status: string | null,
  ): Promise<MemberRow[] | null> {
    const { text, values } = memberPageQuery(projectId, programId, sort, filters, after, limit, status);
    const rows = (await this.dataSource.query(text, values)) as (MemberRow | { id: null })[];
    // One row of NULLs when the program exists but no member matches; no row at all when it does not exist.
    if (rows.length === 0) return null;
    return rows.filter((row): row is MemberRow => row.id !== null);
  }
}
