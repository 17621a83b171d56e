import { Check, Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

export const REWARD_TYPES = ['CAMPAIGN', 'COIN', 'MATERIAL'] as const;
export type RewardType = (typeof REWARD_TYPES)[number];

/** CAMPAIGN: `balance` points credited to the customer's card in another loyalty campaign of the project. */
export interface CampaignRewardParameters {
  campaign: { id: string; balance: number; type: 'LOYALTY_PROGRAM' };
}

/** COIN ("pay with points"): `points_ratio` points are worth `exchange_ratio` units of the order's currency. */
export interface CoinRewardParameters {
  coin: { exchange_ratio: number; points_ratio: number };
}

/** MATERIAL: a product (or one of its SKUs) of the merchant's catalogue, kept as given; fulfilment is the merchant's. */
export interface MaterialRewardParameters {
  product: { id: string; sku_id: string | null };
}

export type RewardParameters = CampaignRewardParameters | CoinRewardParameters | MaterialRewardParameters;

/** A MATERIAL reward's presentation. */
export interface RewardAttributes {
  image_url?: string;
  description?: string;
}

/**
 * A reward of a project's catalogue (`rew_` + 24 base62): what points can buy, offered in a loyalty campaign
 * through an assignment (RewardAssignment) that carries its price. `parameters` holds the one object of its
 * type, as answered. The rewards module owns the table (RewardRepository is its only writer).
 *
 * Stock: `stock` null is unlimited; `redeemed` counts the successful redemptions not rolled back. For a reward
 * with a stock it is this column: the CHECK holds `redeemed <= stock` for every writer, and a redemption takes a
 * unit with one conditional UPDATE (`RewardRepository.takeUnit`), so concurrent redemptions cannot oversell. For a
 * reward without one the column is not kept: the repository's reads count its redemptions instead, so that its
 * redemptions do not queue on its row (docs/rewards.md, "Stock").
 */
@Entity({ name: 'rewards' })
@Index('idx_rewards_project_created', ['projectId', 'createdAt', 'id'])
@Check('chk_rewards_type', `"type" IN ('CAMPAIGN', 'COIN', 'MATERIAL')`)
@Check('chk_rewards_stock', `"redeemed" >= 0 AND ("stock" IS NULL OR "redeemed" <= "stock")`)
export class Reward {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'pk_rewards' })
  id: string;

  @Column({ name: 'project_id', type: 'text' })
  projectId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  type: RewardType;

  @Column({ type: 'jsonb' })
  parameters: RewardParameters;

  /** Units a MATERIAL reward has in all (null: unlimited, and always null for the other types). */
  @Column({ type: 'integer', nullable: true })
  stock: number | null;

  @Column({ type: 'integer', default: 0 })
  redeemed: number;

  @Column({ type: 'jsonb', default: {} })
  attributes: RewardAttributes;

  @Column({ type: 'jsonb', default: {} })
  metadata: Record<string, unknown>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', precision: 3, nullable: true })
  updatedAt: Date | null;
}
