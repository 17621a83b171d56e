import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { prepared, runPrepared } from '../database/prepared.js';
import type { Tx } from '../database/transaction-runner.js';
import type { RewardAssignment } from './reward-assignment.entity.js';
import type { Reward } from './reward.entity.js';
import { redeemedSql } from './reward.repository.js';

export type NewRewardAssignment = Pick<RewardAssignment, 'id' | 'projectId' | 'rewardId' | 'campaignId' | 'points'>;
/** An assignment as the service sees it (`seq` is the lists' order only). */
export type StoredAssignment = Omit<RewardAssignment, 'seq'>;

/** Which assignments a list reads: a campaign's or a reward's, optionally one of them by id. */
export interface AssignmentScope {
  campaignId?: string;
  rewardId?: string;
  assignmentId?: string;
}

/** A reward offered on a card's campaign, as the member's list shows it. */
export interface OfferedReward {
  assignment: StoredAssignment;
  reward: Reward;
}

interface AssignmentRow {
  id: string;
  project_id: string;
  reward_id: string;
  campaign_id: string;
  points: number | null;
  created_at: Date;
  updated_at: Date | null;
}

const COLUMNS = 'a.id, a.project_id, a.reward_id, a.campaign_id, a.points, a.created_at, a.updated_at';

/** Only assignments of live campaigns are shown: a campaign in the bin hides its own (they go with its permanent deletion). */
const LIVE = 'JOIN campaigns c ON c.id = a.campaign_id AND c.deleted_at IS NULL';

/** A campaign's (`$2`) or a reward's (`$3`) assignments, optionally one (`$4`). */
const SCOPED = `FROM reward_assignments a ${LIVE}
  WHERE a.project_id = $1 AND ($2::text IS NULL OR a.campaign_id = $2) AND ($3::text IS NULL OR a.reward_id = $3) AND ($4::text IS NULL OR a.id = $4)`;

/**
 * The member's list: a campaign's assignments with their rewards, in the order made. Affordable (`$4`): priced
 * within the balance of the card (`$3`), a COIN reward when the balance buys at least one `points_ratio`, and
 * a reward with a stock only while a unit is left.
 */
const OFFERED = `
  FROM reward_assignments a JOIN rewards r ON r.id = a.reward_id
  WHERE a.project_id = $1 AND a.campaign_id = $2
    AND (NOT $4::boolean OR ((CASE WHEN r.type = 'COIN' THEN (r.parameters -> 'coin' ->> 'points_ratio')::bigint ELSE a.points END) <= (SELECT v.balance FROM vouchers v WHERE v.id = $3)
                             AND (r.stock IS NULL OR r.redeemed < r.stock)))`;

/** The assignments that offer rewards (`$2`) in live campaigns (`$3`, pairwise): what redemptions pay. */
export const OFFER = prepared(
  'reward_assignments_offer',
  `SELECT ${COLUMNS} FROM reward_assignments a ${LIVE} WHERE a.project_id = $1 AND (a.reward_id, a.campaign_id) IN (SELECT * FROM unnest($2::text[], $3::text[]))`,
);

/** The key of an offer in `findOffers`' answer. */
export function offerKey(rewardId: string, campaignId: string): string {
  return `${rewardId} ${campaignId}`;
}

/** The reward assignments: the only writer of `reward_assignments`. Every query names the project. */
@Injectable()
export class RewardAssignmentRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Takes the campaign for new assignments until the caller's transaction ends: the creations of one campaign
   * take turns (an advisory lock of the campaign's: they are rare, and in turn they insert in the order asked
   * without meeting each other on the unique index), and the live campaign is held (`FOR KEY SHARE`: a
   * permanent deletion's last step waits for it, and its cascade then takes the new rows too). False: the
   * campaign is gone or in the bin.
   */
  async holdCampaign(tx: Tx, projectId: string, campaignId: string): Promise<boolean> {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('reward_assignments:' || $1, 0))`, [campaignId]);
    const rows = (await tx.query(`SELECT 1 FROM campaigns WHERE project_id = $1 AND id = $2 AND deleted_at IS NULL FOR KEY SHARE`, [projectId, campaignId])) as unknown[];
    return rows.length > 0;
  }

  /**
   * Inserts one assignment, under `holdCampaign`, unless its reward is already offered in its campaign: then
   * the id of the one that is (ON CONFLICT DO NOTHING on the unique index, then a read of the row met).
   */
  async insert(tx: Tx, assignment: NewRewardAssignment): Promise<{ inserted: StoredAssignment } | { existingId: string }> {
    // The row met may be deleted before it is read (a deletion takes no turn): then the insert is tried again.
    for (;;) {
      const [row] = (await tx.query(
        `INSERT INTO reward_assignments (id, project_id, reward_id, campaign_id, points) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (reward_id, campaign_id) DO NOTHING
         RETURNING id, project_id, reward_id, campaign_id, points, created_at, updated_at`,
        [assignment.id, assignment.projectId, assignment.rewardId, assignment.campaignId, assignment.points],
      )) as AssignmentRow[];
      if (row) return { inserted: toAssignment(row) };
      const [existing] = (await tx.query(`SELECT id FROM reward_assignments WHERE reward_id = $1 AND campaign_id = $2`, [assignment.rewardId, assignment.campaignId])) as { id: string }[];
      if (existing) return { existingId: existing.id };
    }
  }

  /** An assignment of a live campaign, within a campaign or a reward when given. */
  async find(projectId: string, id: string, scope: AssignmentScope = {}): Promise<StoredAssignment | null> {
    const [row] = (await this.dataSource.query(
      `SELECT ${COLUMNS} FROM reward_assignments a ${LIVE}
       WHERE a.project_id = $1 AND a.id = $2 AND ($3::text IS NULL OR a.campaign_id = $3) AND ($4::text IS NULL OR a.reward_id = $4)`,
      [projectId, id, scope.campaignId ?? null, scope.rewardId ?? null],
    )) as AssignmentRow[];
    return row ? toAssignment(row) : null;
  }

  /** The assignment that offers a reward in a live campaign (what a redemption pays), or null when it is not offered there. */
  async findOffer(projectId: string, rewardId: string, campaignId: string): Promise<StoredAssignment | null> {
    return (await this.findOffers(projectId, [{ rewardId, campaignId }])).get(offerKey(rewardId, campaignId)) ?? null;
  }

  /** The assignments offering rewards in campaigns (OFFER, one statement), by `offerKey`; a pair not offered is absent. */
  async findOffers(projectId: string, pairs: { rewardId: string; campaignId: string }[]): Promise<Map<string, StoredAssignment>> {
    const rows = await runPrepared<AssignmentRow[]>(this.dataSource, OFFER, [projectId, pairs.map((p) => p.rewardId), pairs.map((p) => p.campaignId)]);
    return new Map(rows.map((row) => {
      const assignment = toAssignment(row);
      return [offerKey(assignment.rewardId, assignment.campaignId), assignment];
    }));
  }

  /** A campaign's or a reward's assignments (of live campaigns), in the order made, and how many there are. */
  async list(projectId: string, scope: AssignmentScope, page: { limit: number; offset: number }): Promise<{ rows: StoredAssignment[]; total: number }> {
    const params = [projectId, scope.campaignId ?? null, scope.rewardId ?? null, scope.assignmentId ?? null];
    const rows = (await this.dataSource.query(`SELECT ${COLUMNS} ${SCOPED} ORDER BY a.seq LIMIT $5 OFFSET $6`, [...params, page.limit, page.offset])) as AssignmentRow[];
    const [{ total }] = (await this.dataSource.query(`SELECT count(*)::int AS total ${SCOPED}`, params)) as { total: number }[];
    return { rows: rows.map(toAssignment), total };
  }

  /** A new price (null for a COIN reward); null when the assignment is gone. */
  async update(projectId: string, id: string, points: number | null): Promise<StoredAssignment | null> {
    const [rows] = (await this.dataSource.query(
      `UPDATE reward_assignments SET points = $3, updated_at = clock_timestamp() WHERE project_id = $1 AND id = $2
       RETURNING id, project_id, reward_id, campaign_id, points, created_at, updated_at`,
      [projectId, id, points],
    )) as [AssignmentRow[], number];
    return rows[0] ? toAssignment(rows[0]) : null;
  }

  async delete(projectId: string, id: string): Promise<boolean> {
    const [, affected] = (await this.dataSource.query(`DELETE FROM reward_assignments WHERE project_id = $1 AND id = $2`, [projectId, id])) as [unknown, number];
    return affected > 0;
  }

  /** What keeps a reward from being deleted: its assignments in live campaigns (the first `limit` ids) and their number. */
  async inUse(tx: Tx, projectId: string, rewardId: string, limit: number): Promise<{ ids: string[]; total: number }> {
    const rows = (await tx.query(
      `SELECT a.id, count(*) OVER ()::int AS total FROM reward_assignments a ${LIVE}
       WHERE a.project_id = $1 AND a.reward_id = $2 ORDER BY a.seq LIMIT $3`,
      [projectId, rewardId, limit],
    )) as { id: string; total: number }[];
    return { ids: rows.map((row) => row.id), total: rows[0]?.total ?? 0 };
  }

  /** A reward's deletion takes its assignments in campaigns in the bin along (hidden, they would keep it forever). */
  async deleteHidden(tx: Tx, projectId: string, rewardId: string): Promise<void> {
    await tx.query(
      `DELETE FROM reward_assignments a USING campaigns c WHERE a.project_id = $1 AND a.reward_id = $2 AND c.id = a.campaign_id AND c.deleted_at IS NOT NULL`,
      [projectId, rewardId],
    );
  }

  /** The rewards offered in a card's campaign with their assignments, for the card's balance, and how many there are. */
  async offered(projectId: string, campaignId: string, cardId: string, affordableOnly: boolean, page: { limit: number; offset: number }): Promise<{ rows: OfferedReward[]; total: number }> {
    const params = [projectId, campaignId, cardId, affordableOnly];
    const rows = (await this.dataSource.query(
      `SELECT ${COLUMNS}, r.name AS r_name, r.type AS r_type, r.parameters AS r_parameters, r.stock AS r_stock, ${redeemedSql('r')} AS r_redeemed,
              r.attributes AS r_attributes, r.metadata AS r_metadata, r.created_at AS r_created_at, r.updated_at AS r_updated_at
       ${OFFERED} ORDER BY a.seq LIMIT $5 OFFSET $6`,
      [...params, page.limit, page.offset],
    )) as (AssignmentRow & Record<`r_${string}`, unknown>)[];
    const [{ total }] = (await this.dataSource.query(`SELECT count(*)::int AS total ${OFFERED}`, params)) as { total: number }[];
    return {
      rows: rows.map((row) => ({
        assignment: toAssignment(row),
        reward: {
          id: row.reward_id,
          projectId: row.project_id,
          name: row.r_name as string,
          type: row.r_type as Reward['type'],
          parameters: row.r_parameters as Reward['parameters'],
          stock: row.r_stock as number | null,
          redeemed: row.r_redeemed as number,
          attributes: row.r_attributes as Reward['attributes'],
          metadata: row.r_metadata as Reward['metadata'],
          createdAt: row.r_created_at as Date,
          updatedAt: row.r_updated_at as Date | null,
        },
      })),
      total,
    };
  }
}

function toAssignment(row: AssignmentRow): StoredAssignment {
  return {
    id: row.id,
    projectId: row.project_id,
    rewardId: row.reward_id,
    campaignId: row.campaign_id,
    points: row.points,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
