// The statements the API sends for POST /v2/loyalties/programs/{programId}/members (enrolment by customer
// source id into an AUTO_UPDATE campaign with no free card), as PostgreSQL logged them (log_statement = all)
// on 2026-11-25, for the plain baseline (bench/member-list-raw-server.mjs): the program with its campaign
// (TypeORM's query builder), the customer's upsert (CustomerRepository) and read (TypeORM's findOneBy),
// then in one transaction the member's insert, the free card's search, the new card (MemberRepository),
// the card's and member's reads (findOneBy), and the campaign's card count last (MemberRepository). Change
// them when the API's change.
export const ENROL_SQL = {
  program: `SELECT "p"."id" AS "p_id", "p"."project_id" AS "p_project_id", "p"."campaign_id" AS "p_campaign_id", "p"."metadata" AS "p_metadata", "p"."created_at" AS "p_created_at", "c"."id" AS "c_id", "c"."project_id" AS "c_project_id", "c"."name" AS "c_name", "c"."description" AS "c_description", "c"."type" AS "c_type", "c"."auto_join" AS "c_auto_join", "c"."use_voucher_metadata_schema" AS "c_use_voucher_metadata_schema", "c"."active" AS "c_active", "c"."protected" AS "c_protected", "c"."start_date" AS "c_start_date", "c"."expiration_date" AS "c_expiration_date", "c"."validity_timeframe" AS "c_validity_timeframe", "c"."validity_day_of_week" AS "c_validity_day_of_week", "c"."validity_hours" AS "c_validity_hours", "c"."activity_duration_after_publishing" AS "c_activity_duration_after_publishing", "c"."category_id" AS "c_category_id", "c"."metadata" AS "c_metadata", "c"."voucher" AS "c_voucher", "c"."loyalty_tiers_expiration" AS "c_loyalty_tiers_expiration", "c"."access_assignments" AS "c_access_assignments", "c"."vouchers_target" AS "c_vouchers_target", "c"."vouchers_count" AS "c_vouchers_count", "c"."creation_status" AS "c_creation_status", "c"."vouchers_generation_status" AS "c_vouchers_generation_status", "c"."generation_error" AS "c_generation_error", "c"."created_at" AS "c_created_at", "c"."updated_at" AS "c_updated_at", "c"."deleted_at" AS "c_deleted_at" FROM "loyalty_programs" "p" LEFT JOIN "campaigns" "c" ON "c"."id"="p"."campaign_id" WHERE "p"."project_id" = $1 AND "p"."id" = $2`,
  upsertCustomer: `INSERT INTO customers (id, project_id, source_id)
       VALUES ($1, $2, $3)
       ON CONFLICT (project_id, source_id) WHERE source_id IS NOT NULL DO UPDATE SET source_id = EXCLUDED.source_id RETURNING id`,
  customer: `SELECT "Customer"."id" AS "Customer_id", "Customer"."project_id" AS "Customer_project_id", "Customer"."source_id" AS "Customer_source_id", "Customer"."name" AS "Customer_name", "Customer"."description" AS "Customer_description", "Customer"."email" AS "Customer_email", "Customer"."phone" AS "Customer_phone", "Customer"."birthdate" AS "Customer_birthdate", "Customer"."address" AS "Customer_address", "Customer"."metadata" AS "Customer_metadata", "Customer"."created_at" AS "Customer_created_at", "Customer"."updated_at" AS "Customer_updated_at" FROM "customers" "Customer" WHERE (("Customer"."id" = $1)) LIMIT 1`,
  insertMember: `INSERT INTO members (id, project_id, program_id, customer_id, status, metadata)
           VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (program_id, customer_id) WHERE status <> 'DELETED' DO NOTHING
           RETURNING id`,
  freeCard: `UPDATE vouchers SET member_id = $1, holder_id = $2, published_at = now(), updated_at = now()
       WHERE id = (SELECT id FROM vouchers WHERE campaign_id = $3 AND member_id IS NULL LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING id`,
  newCard: `INSERT INTO vouchers (id, project_id, campaign_id, code, initial_points, points, balance, member_id, holder_id, published_at, updated_at)
         VALUES ($1, $2, $3, $4, $5::int, $5::int, $5::int, $6, $7, now(), now())
         ON CONFLICT (project_id, code) DO NOTHING RETURNING id`,
  countCard: `UPDATE campaigns SET vouchers_count = vouchers_count + 1, vouchers_target = vouchers_target + 1 WHERE id = $1`,
  card: `SELECT "LoyaltyCard"."id" AS "LoyaltyCard_id", "LoyaltyCard"."project_id" AS "LoyaltyCard_project_id", "LoyaltyCard"."campaign_id" AS "LoyaltyCard_campaign_id", "LoyaltyCard"."code" AS "LoyaltyCard_code", "LoyaltyCard"."type" AS "LoyaltyCard_type", "LoyaltyCard"."initial_points" AS "LoyaltyCard_initial_points", "LoyaltyCard"."points" AS "LoyaltyCard_points", "LoyaltyCard"."balance" AS "LoyaltyCard_balance", "LoyaltyCard"."pending_points" AS "LoyaltyCard_pending_points", "LoyaltyCard"."member_id" AS "LoyaltyCard_member_id", "LoyaltyCard"."holder_id" AS "LoyaltyCard_holder_id", "LoyaltyCard"."published_at" AS "LoyaltyCard_published_at", "LoyaltyCard"."created_at" AS "LoyaltyCard_created_at", "LoyaltyCard"."updated_at" AS "LoyaltyCard_updated_at" FROM "vouchers" "LoyaltyCard" WHERE (("LoyaltyCard"."id" = $1)) LIMIT 1`,
  member: `SELECT "Member"."id" AS "Member_id", "Member"."project_id" AS "Member_project_id", "Member"."program_id" AS "Member_program_id", "Member"."customer_id" AS "Member_customer_id", "Member"."status" AS "Member_status", "Member"."metadata" AS "Member_metadata", "Member"."created_at" AS "Member_created_at", "Member"."updated_at" AS "Member_updated_at" FROM "members" "Member" WHERE (("Member"."id" = $1)) LIMIT 1`,
};
