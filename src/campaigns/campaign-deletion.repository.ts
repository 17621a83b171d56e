import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Tx } from '../database/transaction-runner.js';

/** A campaign being deleted for good, as a turn of its deletion takes it. */
export interface DeletionTurn {
  id: string;
  projectId: string;
  /** Its async action (IN_PROGRESS until the last batch). */
  actionId: string;
}

/** Where a deletion stands after a batch: the cards it had, and those left. */
export interface DeletionProgress {
  cards: number;
  left: number;
}

/**
 * The campaigns' side of a forced deletion (issue 36; the batches are CampaignDeletionService's): which
 * campaign gets the next turn, its count of cards left, and the campaign's row once no card is left.
 */
@Injectable()
export class CampaignDeletionRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Takes the next turn: among campaigns being deleted that no batch holds, one of the project served
   * longest ago (the latest turn of its deletions; never served comes first), that project's campaign
   * served longest ago; held until `leaseMs` from now (the batch's commit frees it). SKIP LOCKED: workers
   * claiming at once take different campaigns. As card generation's turns, so that a project deleting many
   * large campaigns delays another project's deletion by one batch per turn at most.
   */
  async claim(leaseMs: number): Promise<DeletionTurn | null> {
    const [rows] = (await this.dataSource.query(
      `UPDATE campaigns c
          SET deletion_turn_at = clock_timestamp(), deletion_lease_until = clock_timestamp() + make_interval(secs => $1::int / 1000.0)
         FROM (SELECT n.id FROM campaigns n
                CROSS JOIN LATERAL (SELECT max(s.deletion_turn_at) AS served_at FROM campaigns s
                                    WHERE s.project_id = n.project_id AND s.deletion_action_id IS NOT NULL) p
                WHERE n.deletion_action_id IS NOT NULL AND (n.deletion_lease_until IS NULL OR n.deletion_lease_until <= clock_timestamp())
                ORDER BY p.served_at ASC NULLS FIRST, n.deletion_turn_at ASC NULLS FIRST, n.id
                LIMIT 1
                  FOR UPDATE OF n SKIP LOCKED) next
        WHERE c.id = next.id
       RETURNING c.id, c.project_id, c.deletion_action_id`,
      [leaseMs],
    )) as [{ id: string; project_id: string; deletion_action_id: string }[], number];
    const row = rows[0];
    return row ? { id: row.id, projectId: row.project_id, actionId: row.deletion_action_id } : null;
  }

  /** A batch that threw: the campaign waits `holdMs` before any worker tries again (others go on meanwhile). */
  async holdAfterFailure(id: string, holdMs: number): Promise<void> {
    await this.dataSource.query(`UPDATE campaigns SET deletion_lease_until = clock_timestamp() + make_interval(secs => $2::int / 1000.0) WHERE id = $1`, [id, holdMs]);
  }

  /** A batch deleted `deleted` cards (maybe none: it deleted their history only), in its transaction; the campaign is free for its next turn. */
  async batchDone(tx: Tx, id: string, deleted: number): Promise<DeletionProgress> {
    const [rows] = (await tx.query(
      `UPDATE campaigns SET vouchers_count = greatest(vouchers_count - $2, 0), deletion_lease_until = NULL WHERE id = $1 RETURNING vouchers_target, vouchers_count`,
      [id, deleted],
    )) as [{ vouchers_target: number; vouchers_count: number }[], number];
    return { cards: Number(rows[0]?.vouchers_target ?? 0), left: Number(rows[0]?.vouchers_count ?? 0) };
  }

  /**
   * The last step, once a batch found no card left: the campaign's row (its program, members without a
   * card and earning rules go with it, by cascade), in the caller's transaction. The row is locked FOR
   * UPDATE first: a card inserted meanwhile (its foreign key's KEY SHARE) commits before, and is seen by
   * the check that follows, or fails after. Null when a card is left (another batch is needed) or the
   * campaign is no longer being deleted; else the cards it had.
   */
  async finish(tx: Tx, id: string): Promise<{ cards: number } | null> {
    const [held] = (await tx.query(`SELECT vouchers_target FROM campaigns WHERE id = $1 AND deletion_action_id IS NOT NULL FOR UPDATE`, [id])) as { vouchers_target: number }[];
    if (!held) return null;
    const [card] = (await tx.query(`SELECT 1 FROM vouchers WHERE campaign_id = $1 LIMIT 1`, [id])) as unknown[];
    if (card) return null;
    await tx.query(`DELETE FROM campaigns WHERE id = $1`, [id]);
    return { cards: Number(held.vouchers_target) };
  }
}
