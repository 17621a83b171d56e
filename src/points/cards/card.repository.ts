import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Tx } from '../../database/transaction-runner.js';

/** The point columns of a card after a change. */
export interface CardBalance {
  id: string;
  points: number;
  balance: number;
  pendingPoints: number;
}


/** A published card as the points code needs it. */
export interface CardRef {
  id: string;
  code: string;
  campaignId: string;
  holderId: string;
  projectId: string;
}

/** A change of one card's point columns: `points` reaches the balance (and the lifetime total). */
export interface CardDelta {
  cardId: string;
  points: number;
  pending: number;
}

interface CardBalanceRow {
  id: string;
  points: number;
  balance: number;
  pending_points: number;
}

/**
 * The point columns of loyalty cards. Every change is one statement inside the caller's transaction, after
 * the cards are locked in id order: two transactions that touch the same cards (an activation batch and an
 * order earning on several campaigns) then always lock them in the same order and cannot deadlock.
 */
@Injectable()
export class CardRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** A card held by a live member, by code; in one campaign when given. */
  async findPublished(projectId: string, code: string, campaignId?: string): Promise<CardRef | null> {
    const [row] = (await this.dataSource.query(
      `SELECT v.id, v.code, v.campaign_id, v.holder_id, v.project_id
       FROM vouchers v
       JOIN members m ON m.id = v.member_id AND m.status <> 'DELETED'
       JOIN campaigns c ON c.id = v.campaign_id AND c.deleted_at IS NULL
       WHERE v.project_id = $1 AND v.code = $2 AND ($3::text IS NULL OR v.campaign_id = $3)`,
      [projectId, code, campaignId ?? null],
    )) as { id: string; code: string; campaign_id: string; holder_id: string; project_id: string }[];
    return row ? { id: row.id, code: row.code, campaignId: row.campaign_id, holderId: row.holder_id, projectId: row.project_id } : null;
  }

  /** The cards of the customer's ACTIVE memberships in these campaigns (INACTIVE members do not earn), by campaign. */
  async activeCardsOf(projectId: string, customerId: string, campaignIds: string[]): Promise<Map<string, string>> {
    if (!campaignIds.length) return new Map();
    const rows = (await this.dataSource.query(
      `SELECT v.campaign_id, v.id FROM vouchers v
       JOIN members m ON m.id = v.member_id AND m.status = 'ACTIVE'
       WHERE v.project_id = $1 AND m.customer_id = $2 AND v.campaign_id = ANY($3::text[])`,
      [projectId, customerId, campaignIds],
    )) as { campaign_id: string; id: string }[];
    return new Map(rows.map((row) => [row.campaign_id, row.id]));
  }

  /** Whether the customer has a live (ACTIVE or INACTIVE) membership in the campaign's program. */
  async hasLiveMembership(projectId: string, customerId: string, campaignId: string): Promise<boolean> {
    const rows = (await this.dataSource.query(
      `SELECT 1 FROM members m JOIN loyalty_programs p ON p.id = m.program_id
       WHERE m.project_id = $1 AND m.customer_id = $2 AND p.campaign_id = $3 AND m.status <> 'DELETED' LIMIT 1`,
      [projectId, customerId, campaignId],
    )) as unknown[];
    return rows.length > 0;
  }

  /** Locks the cards, in id order, waiting for transactions that hold them. */
  async lock(tx: Tx, cardIds: string[]): Promise<void> {
    await tx.query('SELECT 1 FROM vouchers WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE', [[...new Set(cardIds)].sort()]);
  }

  /** Locks the cards that no other transaction holds, in id order, without waiting; returns the ones locked. */
  async lockAvailable(tx: Tx, cardIds: string[]): Promise<Set<string>> {
    const rows = (await tx.query('SELECT id FROM vouchers WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE SKIP LOCKED', [[...new Set(cardIds)]])) as { id: string }[];
    return new Set(rows.map((row) => row.id));
  }

  /** Applies the deltas (several per card are summed) and returns every touched card's point columns after. */
  async apply(tx: Tx, deltas: CardDelta[]): Promise<Map<string, CardBalance>> {
    const byCard = new Map<string, { points: number; pending: number }>();
    for (const delta of deltas) {
      const sum = byCard.get(delta.cardId) ?? { points: 0, pending: 0 };
      byCard.set(delta.cardId, { points: sum.points + delta.points, pending: sum.pending + delta.pending });
    }
    const ids = [...byCard.keys()].sort();
    if (!ids.length) return new Map();
    await this.lock(tx, ids);
    const rows = (await tx.query(
      `UPDATE vouchers v SET points = v.points + d.points, balance = v.balance + d.points,
         pending_points = v.pending_points + d.pending, updated_at = now()
       FROM unnest($1::text[], $2::int[], $3::int[]) AS d(id, points, pending)
       WHERE v.id = d.id
       RETURNING v.id, v.points, v.balance, v.pending_points`,
      [ids, ids.map((id) => byCard.get(id)?.points ?? 0), ids.map((id) => byCard.get(id)?.pending ?? 0)],
    )) as [CardBalanceRow[], number];
    return new Map(rows[0].map((row) => [row.id, { id: row.id, points: row.points, balance: row.balance, pendingPoints: row.pending_points }]));
  }
}
