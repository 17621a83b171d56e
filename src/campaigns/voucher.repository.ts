import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { isUniqueViolation } from '../database/errors.js';

export interface CardBatch {
  campaignId: string;
  projectId: string;
  initialPoints: number;
  ids: string[];
  codes: string[];
}

/** `inserted` cards were committed; `stopped` means the campaign no longer takes cards (deleted, done, full). */
export type CardBatchResult = { inserted: number; stopped: false } | { inserted: 0; stopped: true };

class Stop extends Error {}

const INSERT = `
  INSERT INTO vouchers (id, project_id, campaign_id, code, initial_points, points, balance)
  SELECT t.id, $3, $4, t.code, $5::int, $5::int, $5::int FROM unnest($1::text[], $2::text[]) AS t(id, code)`;

@Injectable()
export class VoucherRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Inserts a batch of cards in one statement (arrays through unnest: five parameters whatever the batch
   * size) and adds them to the campaign's `vouchers_count` in the same transaction. The count update is
   * guarded (live, IN_PROGRESS, not past the target); if the guard fails the whole batch rolls back, so
   * concurrent batches or duplicate jobs can never overshoot the requested count.
   *
   * The plain INSERT is the fast path; a code already used in the project fails it on the unique
   * constraint, and the batch is redone with ON CONFLICT DO NOTHING, which skips the taken codes (the
   * caller draws replacements). `skipTaken` asks for that slower statement straight away.
   */
  async insertCards(batch: CardBatch, skipTaken: boolean): Promise<CardBatchResult & { collided: boolean }> {
    if (!skipTaken) {
      try {
        return { ...(await this.insertOnce(batch, INSERT)), collided: false };
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
    }
    return { ...(await this.insertOnce(batch, `${INSERT} ON CONFLICT DO NOTHING`)), collided: true };
  }

  private async insertOnce(batch: CardBatch, insert: string): Promise<CardBatchResult> {
    try {
      return await this.dataSource.transaction(async (manager) => {
        // Cards can always be drawn again, and the count commits with them; a later synchronous commit
        // (the DONE status) flushes these too, so no acknowledged state is ever lost.
        await manager.query('SET LOCAL synchronous_commit = off');
        const [{ n }] = (await manager.query(`WITH ins AS (${insert} RETURNING 1) SELECT count(*)::int AS n FROM ins`, [
          batch.ids,
          batch.codes,
          batch.projectId,
          batch.campaignId,
          batch.initialPoints,
        ])) as [{ n: number }];
        const updated = (await manager.query(
          `UPDATE campaigns SET vouchers_count = vouchers_count + $2
           WHERE id = $1 AND deleted_at IS NULL AND vouchers_generation_status = 'IN_PROGRESS' AND vouchers_count + $2 <= vouchers_target
           RETURNING 1`,
          [batch.campaignId, n],
        )) as [unknown[], number];
        if (updated[1] === 0) throw new Stop();
        return { inserted: n, stopped: false as const };
      });
    } catch (error) {
      if (error instanceof Stop) return { inserted: 0, stopped: true };
      throw error;
    }
  }
}
