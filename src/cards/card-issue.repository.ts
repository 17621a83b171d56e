import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Tx } from '../database/transaction-runner.js';
import { LoyaltyCard } from './card.entity.js';

/** Cards of one campaign to insert in one statement: `ids[i]` gets `codes[i]`. */
export interface CardBatch {
  campaignId: string;
  projectId: string;
  initialPoints: number;
  ids: string[];
  codes: string[];
}

/** The member and customer a card is published to. */
export interface CardHolder {
  memberId: string;
  customerId: string;
}

/** A card made for its holder at enrolment. */
export interface NewPublishedCard {
  id: string;
  projectId: string;
  campaignId: string;
  code: string;
  initialPoints: number;
}

const INSERT = `
  INSERT INTO vouchers (id, project_id, campaign_id, code, initial_points, points, balance)
  SELECT t.id, $3, $4, t.code, $5::int, $5::int, $5::int FROM unnest($1::text[], $2::text[]) AS t(id, code)`;

const PUBLISH = `SET member_id = $1, holder_id = $2, published_at = now(), updated_at = now()`;

/** One free card of the campaign published to a holder; `SKIP LOCKED`: concurrent enrolments never share one (bench/'s plain baseline sends it, and the next, too). */
export const PUBLISH_FREE = `UPDATE vouchers ${PUBLISH}
       WHERE id = (SELECT id FROM vouchers WHERE campaign_id = $3 AND member_id IS NULL LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING id`;
/** A card made published to its holder, unless its code is taken in the project. */
export const CREATE_PUBLISHED = `INSERT INTO vouchers (id, project_id, campaign_id, code, initial_points, points, balance, member_id, holder_id, published_at, updated_at)
       VALUES ($1, $2, $3, $4, $5::int, $5::int, $5::int, $6, $7, now(), now())
       ON CONFLICT (project_id, code) DO NOTHING RETURNING id`;

/**
 * How cards come to be and reach their holders: generation inserts free cards in batches, enrolment
 * publishes a free card (or one with a given code) to a member, or makes one for it. Every method takes
 * the caller's transaction: the campaign's count (generation) and the member row (enrolment) commit with
 * the card.
 */
@Injectable()
export class CardIssueRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Inserts a batch of free cards in one statement (arrays through unnest: five parameters whatever the
   * batch size); the cards inserted. The plain INSERT fails on a code already used in the project (the
   * unique constraint); `skipTaken` uses ON CONFLICT DO NOTHING instead, which skips the taken codes (the
   * caller draws replacements).
   */
  async insertBatch(tx: Tx, batch: CardBatch, skipTaken: boolean): Promise<number> {
    // Cards can always be drawn again, and the campaign's count commits with them; a later synchronous
    // commit (the DONE status) flushes these too, so no acknowledged state is ever lost.
    await tx.query('SET LOCAL synchronous_commit = off');
    const insert = skipTaken ? `${INSERT} ON CONFLICT DO NOTHING` : INSERT;
    const [{ n }] = (await tx.query(`WITH ins AS (${insert} RETURNING 1) SELECT count(*)::int AS n FROM ins`, [
      batch.ids,
      batch.codes,
      batch.projectId,
      batch.campaignId,
      batch.initialPoints,
    ])) as [{ n: number }];
    return n;
  }

  /** Publishes the campaign's free card with this code; its id, or null when the code is not a free card. */
  async publishCode(tx: Tx, holder: CardHolder, projectId: string, campaignId: string, code: string): Promise<string | null> {
    const [claimed] = (await tx.query(`UPDATE vouchers ${PUBLISH} WHERE project_id = $3 AND campaign_id = $4 AND code = $5 AND member_id IS NULL RETURNING id`, [
      holder.memberId,
      holder.customerId,
      projectId,
      campaignId,
      code,
    ])) as [{ id: string }[], number];
    return claimed[0]?.id ?? null;
  }

  /** Publishes one free card of the campaign (`SKIP LOCKED`: concurrent enrolments never share one); its id, or null when none is free. */
  async publishFree(tx: Tx, holder: CardHolder, campaignId: string): Promise<string | null> {
    const [free] = (await tx.query(PUBLISH_FREE, [holder.memberId, holder.customerId, campaignId])) as [{ id: string }[], number];
    return free[0]?.id ?? null;
  }

  /** Makes a card published to the holder; false when its code is taken in the project (draw another). */
  async createPublished(tx: Tx, card: NewPublishedCard, holder: CardHolder): Promise<boolean> {
    const made = (await tx.query(CREATE_PUBLISHED, [card.id, card.projectId, card.campaignId, card.code, card.initialPoints, holder.memberId, holder.customerId])) as { id: string }[];
    return made.length > 0;
  }

  /** A card of the campaign by code, published or not. */
  findByCode(tx: Tx, projectId: string, campaignId: string, code: string): Promise<LoyaltyCard | null> {
    return tx.getRepository(LoyaltyCard).findOneBy({ projectId, campaignId, code });
  }

  findById(tx: Tx, id: string): Promise<LoyaltyCard> {
    return tx.getRepository(LoyaltyCard).findOneByOrFail({ id });
  }

  /** The member's cards, oldest publication first. */
  ofMember(memberId: string): Promise<LoyaltyCard[]> {
    return this.dataSource.getRepository(LoyaltyCard).find({ where: { memberId }, order: { publishedAt: 'ASC' } });
  }
}
