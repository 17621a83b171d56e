import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Tx } from '../database/transaction-runner.js';
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

/** The member of an enrolment, unless the customer has a live membership of the program (bench/'s plain baseline sends it too). */
export const INSERT = `INSERT INTO members (id, project_id, program_id, customer_id, status, metadata)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (program_id, customer_id) WHERE status <> 'DELETED' DO NOTHING
       RETURNING id`;

@Injectable()
export class MemberRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Inserts the member in the enrolment's transaction; false when the customer already has a live
   * membership of the program (the partial unique index: one live membership per customer and program,
   * so concurrent enrolments never enrol a customer twice).
   */
  async insert(tx: Tx, member: NewMember): Promise<boolean> {
    const inserted = (await tx.query(INSERT, [member.id, member.projectId, member.programId, member.customerId, member.status, member.metadata])) as unknown[];
    return inserted.length > 0;
  }

  byId(tx: Tx, id: string): Promise<Member> {
    return tx.getRepository(Member).findOneByOrFail({ id });
  }

  /** A member of the program, deleted or not. */
  async find(projectId: string, programId: string, memberId: string): Promise<Member | null> {
    return this.dataSource.getRepository(Member).findOneBy({ projectId, programId, id: memberId });
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

  /** These members, of those that no longer hold a card (a forced campaign deletion deleted them), deleted. */
  async deleteCardless(tx: Tx, ids: string[]): Promise<void> {
    if (!ids.length) return;
    await tx.query('DELETE FROM members m WHERE m.id = ANY($1::text[]) AND NOT EXISTS (SELECT 1 FROM vouchers v WHERE v.member_id = m.id)', [ids]);
  }
}
