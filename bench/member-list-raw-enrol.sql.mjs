// The statements the API sends for POST /v2/loyalties/programs/{programId}/members (enrolment by customer
// source id into an AUTO_UPDATE campaign with no free card), for the plain baseline
// (bench/member-list-raw-server.mjs): the program with its campaign, the customer made or found
// (CustomerRepository), then in one transaction the member's insert, the search for a free card, the new card
// (MemberRepository, CardIssueRepository), the card's and the member's reads, and the campaign's card count
// last (CampaignRepository); after the commit, the card's next activation (PendingPointsRepository).
//
// The service's own statements are imported from the build (dist/), named as the API names them where it
// prepares them. The three reads in TYPEORM are different on purpose: TypeORM writes them at run time from the
// entities (a query builder, findOneByOrFail), so there is no text in src to import, and the baseline does
// without TypeORM. They are the text PostgreSQL logged for the API (log_statement = all) on 2026-11-28: copy them
// again from its log when the Campaign, LoyaltyProgram, LoyaltyCard or Member entity changes (bench/member-list.mjs
// compares the two sides' answers, which a stale copy may still pass).
import { COUNT_ENROLMENT_CARD } from '../dist/campaigns/campaign.repository.js';
import { CREATE_PUBLISHED, PUBLISH_FREE } from '../dist/cards/card-issue.repository.js';
import { BY_SOURCE_ID, ENSURE_BY_SOURCE_ID } from '../dist/customers/customer.repository.js';
import { INSERT as INSERT_MEMBER } from '../dist/members/member.repository.js';
import { ACTIVATION_DAYS } from '../dist/points/pending/pending-points.repository.js';

const TYPEORM = {
  program: `SELECT "p"."id" AS "p_id", "p"."project_id" AS "p_project_id", "p"."campaign_id" AS "p_campaign_id", "p"."metadata" AS "p_metadata", "p"."created_at" AS "p_created_at", "c"."id" AS "c_id", "c"."project_id" AS "c_project_id", "c"."name" AS "c_name", "c"."description" AS "c_description", "c"."type" AS "c_type", "c"."auto_join" AS "c_auto_join", "c"."use_voucher_metadata_schema" AS "c_use_voucher_metadata_schema", "c"."active" AS "c_active", "c"."protected" AS "c_protected", "c"."start_date" AS "c_start_date", "c"."expiration_date" AS "c_expiration_date", "c"."validity_timeframe" AS "c_validity_timeframe", "c"."validity_day_of_week" AS "c_validity_day_of_week", "c"."validity_hours" AS "c_validity_hours", "c"."activity_duration_after_publishing" AS "c_activity_duration_after_publishing", "c"."category_id" AS "c_category_id", "c"."metadata" AS "c_metadata", "c"."voucher" AS "c_voucher", "c"."loyalty_tiers_expiration" AS "c_loyalty_tiers_expiration", "c"."access_assignments" AS "c_access_assignments", "c"."vouchers_target" AS "c_vouchers_target", "c"."vouchers_count" AS "c_vouchers_count", "c"."creation_status" AS "c_creation_status", "c"."vouchers_generation_status" AS "c_vouchers_generation_status", "c"."generation_error" AS "c_generation_error", "c"."created_at" AS "c_created_at", "c"."updated_at" AS "c_updated_at", "c"."deleted_at" AS "c_deleted_at" FROM "loyalty_programs" "p" LEFT JOIN "campaigns" "c" ON "c"."id"="p"."campaign_id" WHERE "p"."project_id" = $1 AND "p"."id" = $2`,
  card: `SELECT "LoyaltyCard"."id" AS "LoyaltyCard_id", "LoyaltyCard"."project_id" AS "LoyaltyCard_project_id", "LoyaltyCard"."campaign_id" AS "LoyaltyCard_campaign_id", "LoyaltyCard"."code" AS "LoyaltyCard_code", "LoyaltyCard"."type" AS "LoyaltyCard_type", "LoyaltyCard"."initial_points" AS "LoyaltyCard_initial_points", "LoyaltyCard"."points" AS "LoyaltyCard_points", "LoyaltyCard"."balance" AS "LoyaltyCard_balance", "LoyaltyCard"."pending_points" AS "LoyaltyCard_pending_points", "LoyaltyCard"."expired_points" AS "LoyaltyCard_expired_points", "LoyaltyCard"."subtracted_points" AS "LoyaltyCard_subtracted_points", "LoyaltyCard"."redeemed_points" AS "LoyaltyCard_redeemed_points", "LoyaltyCard"."redeemed_quantity" AS "LoyaltyCard_redeemed_quantity", "LoyaltyCard"."added_points" AS "LoyaltyCard_added_points", "LoyaltyCard"."pending_activated_points" AS "LoyaltyCard_pending_activated_points", "LoyaltyCard"."pending_canceled_points" AS "LoyaltyCard_pending_canceled_points", "LoyaltyCard"."next_expiration_date" AS "LoyaltyCard_next_expiration_date", "LoyaltyCard"."next_expiration_points" AS "LoyaltyCard_next_expiration_points", "LoyaltyCard"."member_id" AS "LoyaltyCard_member_id", "LoyaltyCard"."holder_id" AS "LoyaltyCard_holder_id", "LoyaltyCard"."published_at" AS "LoyaltyCard_published_at", "LoyaltyCard"."created_at" AS "LoyaltyCard_created_at", "LoyaltyCard"."updated_at" AS "LoyaltyCard_updated_at" FROM "vouchers" "LoyaltyCard" WHERE (("LoyaltyCard"."id" = $1)) LIMIT 1`,
  member: `SELECT "Member"."id" AS "Member_id", "Member"."project_id" AS "Member_project_id", "Member"."program_id" AS "Member_program_id", "Member"."customer_id" AS "Member_customer_id", "Member"."status" AS "Member_status", "Member"."metadata" AS "Member_metadata", "Member"."created_at" AS "Member_created_at", "Member"."updated_at" AS "Member_updated_at" FROM "members" "Member" WHERE (("Member"."id" = $1)) LIMIT 1`,
};

export const ENROL_SQL = {
  program: TYPEORM.program,
  customer: ENSURE_BY_SOURCE_ID,
  customerAgain: BY_SOURCE_ID,
  insertMember: INSERT_MEMBER,
  freeCard: PUBLISH_FREE,
  newCard: CREATE_PUBLISHED,
  card: TYPEORM.card,
  member: TYPEORM.member,
  countCard: COUNT_ENROLMENT_CARD,
  nextActivations: ACTIVATION_DAYS,
};
