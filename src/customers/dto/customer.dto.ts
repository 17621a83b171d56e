import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsISO8601, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsMetadata, Nested, Optional } from '../../common/validation/decorators.js';
import { EXAMPLE_IDS, patternExample } from '../../common/openapi/examples.js';
import type { Customer } from '../customer.entity.js';
import type { CampaignPoints } from '../customer.repository.js';
import type { CustomerOrderTotals } from '../customer-order-stats.js';
import { present } from '../../common/present.js';

export const CUSTOMER_ID = /^cust_[a-zA-Z0-9]+$/;

export class CustomerAddressDto {
  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  city?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  state?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  line_1?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  line_2?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  country?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  postal_code?: string | null;
}

/** The customer fields Voucherify's CustomerBase has; null clears a field. */
export class CustomerFieldsDto {
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 255 })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  name?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  description?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, format: 'email' })
  @IsOptional()
  @IsEmail({}, { message: '$property must be an email address' })
  email?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  phone?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, format: 'date', example: '1990-04-30' })
  @IsOptional()
  @Matches(/^\d{4}-\d{2}-\d{2}$/, { message: '$property must be a date (YYYY-MM-DD)' })
  @IsISO8601({ strict: true }, { message: '$property must be a date (YYYY-MM-DD)' })
  birthdate?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, format: 'date', deprecated: true, description: 'Old name of birthdate; used when birthdate is not sent.' })
  @IsOptional()
  @Matches(/^\d{4}-\d{2}-\d{2}$/, { message: '$property must be a date (YYYY-MM-DD)' })
  @IsISO8601({ strict: true }, { message: '$property must be a date (YYYY-MM-DD)' })
  birthday?: string | null;

  @ApiPropertyOptional({ type: CustomerAddressDto, nullable: true })
  @Nested(() => CustomerAddressDto, { optional: 'nullable' })
  address?: CustomerAddressDto | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @Optional()
  @IsMetadata()
  metadata?: Record<string, unknown>;
}

/**
 * POST /v1/customers: an upsert. With `source_id`, the customer with that source id is updated (or made);
 * with `id`, that customer is updated; with neither, a new customer is made.
 */
export class UpsertCustomerDto extends CustomerFieldsDto {
  @ApiPropertyOptional({ ...patternExample(CUSTOMER_ID, EXAMPLE_IDS.customer), description: 'An existing customer to update.' })
  @Optional()
  @Matches(CUSTOMER_ID, { message: `$property must match ${CUSTOMER_ID.source}` })
  id?: string;

  @ApiPropertyOptional({ maxLength: 255, description: 'Your own identifier (CRM id, email…); unique in the project. Ignored when id is sent.' })
  @Optional()
  @IsString()
  @Matches(/\S/, { message: '$property must not be blank' })
  @MaxLength(255)
  source_id?: string;
}

export class CustomerLoyaltyDto {
  @ApiProperty({ description: 'Sum of the balances of the customer\'s loyalty cards.' })
  points: number;

  @ApiProperty({ description: 'Always 0: referral campaigns are not part of this service.' })
  referred_customers: number;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'object', properties: { points: { type: 'integer' }, referred_customers: { type: 'integer' } } },
    description: 'Keyed by campaign name: the balance of the customer\'s card in each loyalty campaign.',
  })
  campaigns: Record<string, { points: number; referred_customers: number }>;
}

/** An address as answered: its lines without a value are left out. */
export class CustomerAddressResponseDto {
  @ApiPropertyOptional()
  city?: string;

  @ApiPropertyOptional()
  state?: string;

  @ApiPropertyOptional()
  line_1?: string;

  @ApiPropertyOptional()
  line_2?: string;

  @ApiPropertyOptional()
  country?: string;

  @ApiPropertyOptional()
  postal_code?: string;
}

export class CustomerSummaryGiftDto {
  @ApiProperty({ description: 'Always 0: gift cards are not part of this service.' })
  redeemed_amount: number;

  @ApiProperty({ description: 'Always 0: gift cards are not part of this service.' })
  amount_to_go: number;
}

export class CustomerSummaryLoyaltyCardDto {
  @ApiProperty({ description: 'Points of the customer\'s cards spent on rewards (docs/rewards.md), less those rolled back.' })
  redeemed_points: number;

  @ApiProperty({ description: 'Points the customer can still spend: the sum of the balances of the customer\'s cards (as `loyalty.points`).' })
  points_to_go: number;
}

export class CustomerSummaryRedemptionsDto {
  @ApiProperty({ description: 'Always 0, as are the five counts below: the redemption counts are not kept per customer (the points are: `loyalty_card.redeemed_points`).' })
  total_redeemed: number;

  @ApiProperty()
  total_failed: number;

  @ApiProperty()
  total_succeeded: number;

  @ApiProperty()
  total_rolled_back: number;

  @ApiProperty()
  total_rollback_failed: number;

  @ApiProperty()
  total_rollback_succeeded: number;

  @ApiProperty({ type: CustomerSummaryGiftDto })
  gift: CustomerSummaryGiftDto;

  @ApiProperty({ type: CustomerSummaryLoyaltyCardDto })
  loyalty_card: CustomerSummaryLoyaltyCardDto;
}

export class CustomerSummaryOrdersDto {
  @ApiProperty({ description: 'Sum of the amounts of the customer\'s PAID and FULFILLED orders (money spent), in the smallest currency unit.' })
  total_amount: number;

  @ApiProperty({ description: 'How many PAID and FULFILLED orders the customer has.' })
  total_count: number;

  @ApiProperty({ description: 'total_amount / total_count, rounded; 0 without orders.' })
  average_amount: number;

  @ApiProperty({ description: 'The amount of the latest of those orders; 0 without orders.' })
  last_order_amount: number;

  @ApiPropertyOptional({ format: 'date-time', description: 'When the latest of those orders was made; absent without orders.' })
  last_order_date?: string;
}

export class CustomerSummaryDto {
  @ApiProperty({ type: CustomerSummaryRedemptionsDto })
  redemptions: CustomerSummaryRedemptionsDto;

  @ApiProperty({ type: CustomerSummaryOrdersDto })
  orders: CustomerSummaryOrdersDto;
}

export class CustomerReferralsDto {
  @ApiProperty({ description: 'Always 0: referral campaigns are not part of this service.' })
  total: number;

  @ApiProperty({ type: 'array', items: { type: 'object' }, description: 'Always empty.' })
  campaigns: never[];
}

/**
 * A customer as Voucherify answers it. Fields without a value are left out rather than sent as null:
 * Voucherify's schema types them as plain strings (its examples leave them out), and a typed client's
 * deserializer refuses a null there. `address` is the exception: the schema allows null.
 */
export class CustomerDto {
  @ApiProperty(patternExample(CUSTOMER_ID, EXAMPLE_IDS.customer))
  id: string;

  @ApiPropertyOptional()
  source_id?: string;

  @ApiPropertyOptional()
  name?: string;

  @ApiPropertyOptional()
  description?: string;

  @ApiPropertyOptional()
  email?: string;

  @ApiPropertyOptional()
  phone?: string;

  @ApiPropertyOptional({ format: 'date' })
  birthdate?: string;

  @ApiProperty({ type: CustomerAddressResponseDto, nullable: true })
  address: CustomerAddressResponseDto | null;

  @ApiProperty({ type: 'object', additionalProperties: true })
  metadata: Record<string, unknown>;

  @ApiProperty({ type: CustomerSummaryDto })
  summary: CustomerSummaryDto;

  @ApiProperty({ type: CustomerLoyaltyDto })
  loyalty: CustomerLoyaltyDto;

  @ApiProperty({ type: CustomerReferralsDto })
  referrals: CustomerReferralsDto;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Absent if the customer was never updated.' })
  updated_at?: string;

  @ApiProperty({ enum: ['customer'] })
  object: 'customer';
}

/** The customer, with its card balances summed by campaign (`loyalty`) and its orders summed (`summary`). */
export function toCustomerDto(customer: Customer, balances: CampaignPoints[], orders: CustomerOrderTotals): CustomerDto {
  const points = balances.reduce((sum, row) => sum + row.points, 0);
  return {
    id: customer.id,
    ...present('source_id', customer.sourceId),
    ...present('name', customer.name),
    ...present('description', customer.description),
    ...present('email', customer.email),
    ...present('phone', customer.phone),
    ...present('birthdate', customer.birthdate),
    address: customer.address ? toAddressDto(customer.address) : null,
    metadata: customer.metadata,
    summary: {
      redemptions: {
        total_redeemed: 0,
        total_failed: 0,
        total_succeeded: 0,
        total_rolled_back: 0,
        total_rollback_failed: 0,
        total_rollback_succeeded: 0,
        gift: { redeemed_amount: 0, amount_to_go: 0 },
        loyalty_card: { redeemed_points: balances.reduce((sum, row) => sum + row.redeemed, 0), points_to_go: points },
      },
      orders: {
        total_amount: orders.totalAmount,
        total_count: orders.count,
        average_amount: orders.count === 0 ? 0 : Math.round(orders.totalAmount / orders.count),
        last_order_amount: orders.lastAmount,
        ...present('last_order_date', orders.lastDate?.toISOString()),
      },
    },
    loyalty: {
      points,
      referred_customers: 0,
      campaigns: Object.fromEntries(balances.map((row) => [row.campaign, { points: row.points, referred_customers: 0 }])),
    },
    referrals: { total: 0, campaigns: [] },
    created_at: customer.createdAt.toISOString(),
    ...present('updated_at', customer.updatedAt?.toISOString()),
    object: 'customer',
  };
}

function toAddressDto(address: NonNullable<Customer['address']>): CustomerAddressResponseDto {
  const { city, state, line_1, line_2, country, postal_code } = address;
  return {
    ...present('city', city),
    ...present('state', state),
    ...present('line_1', line_1),
    ...present('line_2', line_2),
    ...present('country', country),
    ...present('postal_code', postal_code),
  };
}
