import { AppKey } from '../../auth/app-key.entity.js';
import { AsyncAction } from '../../async-actions/async-action.entity.js';
import { Project } from '../../auth/project.entity.js';
import { Campaign } from '../../campaigns/campaign.entity.js';
import { Category } from '../../campaigns/category.entity.js';
import { LoyaltyProgram } from '../../campaigns/loyalty-program.entity.js';
import { LoyaltyCard } from '../../cards/card.entity.js';
import { Customer } from '../../customers/customer.entity.js';
import { DiagnosticPing } from '../../diagnostics/diagnostic-ping.entity.js';
import { WebhookAttempt, WebhookDelivery } from '../../events/delivery/webhook-delivery.entity.js';
import { Distribution } from '../../events/distributions/distribution.entity.js';
import { EventOutbox, EventRecord } from '../../events/event.entity.js';
import { WebhookSecret } from '../../events/secrets/webhook-secret.entity.js';
import { IdempotencyKey } from '../../idempotency/idempotency-key.entity.js';
import { Member } from '../../members/member.entity.js';
import { EarningRule } from '../../points/earning/earning-rule.entity.js';
import { VoucherTransaction } from '../../points/ledger/voucher-transaction.entity.js';
import { OrderEarning } from '../../points/orders/order-earning.entity.js';
import { Order } from '../../points/orders/order.entity.js';
import { PendingPoints } from '../../points/pending/pending-points.entity.js';
import { PointsBucket } from '../../points/buckets/points-bucket.entity.js';
import { InstanceSecret } from '../../database/instance-secret.entity.js';
import { Redemption } from '../../redemptions/redemption.entity.js';
import { RewardAssignment } from '../../rewards/reward-assignment.entity.js';
import { Reward } from '../../rewards/reward.entity.js';

/** Every entity, listed explicitly: ESM builds have no reliable glob loading. */
export const ENTITIES = [
  Project,
  AppKey,
  InstanceSecret,
  DiagnosticPing,
  Category,
  Campaign,
  LoyaltyProgram,
  LoyaltyCard,
  Customer,
  Member,
  EarningRule,
  Order,
  OrderEarning,
  PendingPoints,
  VoucherTransaction,
  PointsBucket,
  EventRecord,
  EventOutbox,
  Distribution,
  WebhookSecret,
  WebhookDelivery,
  WebhookAttempt,
  IdempotencyKey,
  AsyncAction,
  Reward,
  RewardAssignment,
  Redemption,
];
