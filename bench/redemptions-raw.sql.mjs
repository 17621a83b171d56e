// The statements the API sends for POST /v1/loyalties/{campaignId}/members/{memberId}/redemption of a MATERIAL
// reward (the card by its code in a campaign given by id), for the plain baseline (bench/redemptions-raw-server.mjs).
// Imported from the build (dist/) where the service keeps them as constants, named as the API names them, so that
// the baseline cannot drift from the API. One read is built by TypeORM at each call, the campaign by id or name,
// sent only when the card's campaign is not the one the path names by id (never in the benchmark): its text is
// kept here as TypeORM writes it. bench/redemptions.mjs compares both sides' statements in PostgreSQL's log (a
// difference is reported).
//
// Before the transaction: the card (with its campaign, the one the path names by id), the reward, its offer in the card's campaign, the holder. In
// it, as the API's batch of one: the card locked (its point columns read by the lock), the reward's row (a unit of a
// stock; held FOR KEY SHARE without one), the posting (one update of the card, returning what the answer shows, the
// ledger row, the buckets drained soonest-expiring first, the card's next expiration), the redemption's row, its
// events (whose trigger writes the webhook outbox).
import { APPLY, DELTA_COLUMNS, LOCK } from '../dist/cards/card.repository.js';
import { BY_ID as CUSTOMER } from '../dist/customers/customer.repository.js';
import { CARD_BY_CODE } from '../dist/members/member-card.repository.js';
import { DRAIN, REFRESH_NEXT } from '../dist/points/buckets/bucket.repository.js';
import { INSERT as LEDGER_INSERT } from '../dist/points/ledger/ledger.repository.js';
import { INSERT as REDEMPTION_INSERT } from '../dist/redemptions/redemption.repository.js';
import { RECORD as REDEMPTION_EVENTS } from '../dist/redemptions/redemption-events.repository.js';
import { OFFER } from '../dist/rewards/reward-assignment.repository.js';
import { FIND_TO_REDEEM, HOLD_UNLIMITED, TAKE_UNITS } from '../dist/rewards/reward.repository.js';

/** The delta columns of APPLY, in the order of its arrays. */
export { DELTA_COLUMNS };

/**
 * CampaignsService.find (TypeORM's query builder): a live campaign by id or name ($1 project, $2 id or name), with its
 * category and program; read only when the card's own campaign is not the one named by id (never in the benchmark).
 */
const CAMPAIGN =
  'SELECT "c"."id" AS "c_id", "c"."project_id" AS "c_project_id", "c"."name" AS "c_name", "c"."description" AS "c_description", "c"."type" AS "c_type", "c"."auto_join" AS "c_auto_join", "c"."use_voucher_metadata_schema" AS "c_use_voucher_metadata_schema", "c"."active" AS "c_active", "c"."protected" AS "c_protected", "c"."start_date" AS "c_start_date", "c"."expiration_date" AS "c_expiration_date", "c"."validity_timeframe" AS "c_validity_timeframe", "c"."validity_day_of_week" AS "c_validity_day_of_week", "c"."validity_hours" AS "c_validity_hours", "c"."activity_duration_after_publishing" AS "c_activity_duration_after_publishing", "c"."category_id" AS "c_category_id", "c"."metadata" AS "c_metadata", "c"."voucher" AS "c_voucher", "c"."loyalty_tiers_expiration" AS "c_loyalty_tiers_expiration", "c"."access_assignments" AS "c_access_assignments", "c"."vouchers_target" AS "c_vouchers_target", "c"."vouchers_count" AS "c_vouchers_count", "c"."creation_status" AS "c_creation_status", "c"."vouchers_generation_status" AS "c_vouchers_generation_status", "c"."generation_error" AS "c_generation_error", "c"."created_at" AS "c_created_at", "c"."updated_at" AS "c_updated_at", "c"."deleted_at" AS "c_deleted_at", "category"."id" AS "category_id", "category"."project_id" AS "category_project_id", "category"."name" AS "category_name", "category"."hierarchy" AS "category_hierarchy", "category"."created_at" AS "category_created_at", "program"."id" AS "program_id", "program"."project_id" AS "program_project_id", "program"."campaign_id" AS "program_campaign_id", "program"."metadata" AS "program_metadata", "program"."created_at" AS "program_created_at" FROM "campaigns" "c" LEFT JOIN "categories" "category" ON "category"."id"="c"."category_id" INNER JOIN "loyalty_programs" "program" ON "program"."campaign_id" = "c"."id" WHERE "c"."project_id" = $1 AND "c"."deleted_at" IS NULL AND ("c"."id" = $2 OR "c"."name" = $2) ORDER BY "c"."id" = $2 DESC';

export const REDEMPTION_SQL = {
  campaign: CAMPAIGN,
  card: CARD_BY_CODE,
  reward: FIND_TO_REDEEM,
  offer: OFFER,
  customer: CUSTOMER,
  lock: LOCK,
  apply: APPLY,
  ledger: LEDGER_INSERT,
  drain: DRAIN,
  refreshNext: REFRESH_NEXT,
  redemption: REDEMPTION_INSERT,
  events: REDEMPTION_EVENTS,
  holdUnlimited: HOLD_UNLIMITED,
  takeUnits: TAKE_UNITS,
};
