import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { Campaign } from './campaign.entity.js';

export interface CardBatchResult {
  inserted: number;
  /** Cards still to make after this batch. */
  remaining: number;
  /** The campaign was deleted or is no longer IN_PROGRESS: nothing was inserted. */
  stopped: boolean;
}

@Injectable()
export class VoucherRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Inserts up to the campaign's remaining count of cards in one statement (arrays through unnest, so
   * the statement has five parameters whatever the batch size) and adds them to `vouchers_count` in the
   * same transaction. The campaign row is locked first, so two workers on one campaign cannot overshoot
   * its target. Codes that already exist in the project are skipped by the unique constraint.
   */
  async insertCardBatch(campaignId: string, ids: string[], codes: string[]): Promise<CardBatchResult> {
    return this.dataSource.transaction(async (manager) => {
      const campaign = await manager
        .getRepository(Campaign)
        .createQueryBuilder('c')
        .setLock('pessimistic_write')
        .where('c.id = :campaignId', { campaignId })
        .getOne();
      if (!campaign || campaign.deletedAt || campaign.vouchersGenerationStatus !== 'IN_PROGRESS') return { inserted: 0, remaining: 0, stopped: true };
      const room = Math.max(campaign.vouchersTarget - campaign.vouchersCount, 0);
      const take = Math.min(room, codes.length);
      if (take === 0) return { inserted: 0, remaining: room, stopped: false };
      const [{ n }] = (await manager.query(
        `WITH ins AS (
           INSERT INTO vouchers (id, project_id, campaign_id, code, initial_points)
           SELECT t.id, $3, $4, t.code, $5 FROM unnest($1::text[], $2::text[]) AS t(id, code)
           ON CONFLICT DO NOTHING
           RETURNING 1)
         SELECT count(*)::int AS n FROM ins`,
        [ids.slice(0, take), codes.slice(0, take), campaign.projectId, campaignId, campaign.voucher.loyalty_card.points],
      )) as [{ n: number }];
      if (n > 0) await manager.getRepository(Campaign).increment({ id: campaignId }, 'vouchersCount', n);
      return { inserted: n, remaining: room - n, stopped: false };
    });
  }
}
