import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsISO8601, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsMetadata, Nested, Optional } from '../../common/validation/decorators.js';
import { EXAMPLE_IDS, patternExample } from '../../common/openapi/examples.js';
import type { Customer } from '../customer.entity.js';
import type { CampaignPoints } from '../customer.repository.js';

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

export class CustomerDto {
  @ApiProperty(patternExample(CUSTOMER_ID, EXAMPLE_IDS.customer))
  id: string;

  @ApiProperty({ type: String, nullable: true })
  source_id: string | null;

  @ApiProperty({ type: String, nullable: true })
  name: string | null;

  @ApiProperty({ type: String, nullable: true })
  description: string | null;

  @ApiProperty({ type: String, nullable: true })
  email: string | null;

  @ApiProperty({ type: String, nullable: true })
  phone: string | null;

  @ApiProperty({ type: String, nullable: true, format: 'date' })
  birthdate: string | null;

  @ApiProperty({ type: CustomerAddressDto, nullable: true })
  address: CustomerAddressDto | null;

  @ApiProperty({ type: 'object', additionalProperties: true })
  metadata: Record<string, unknown>;

  @ApiProperty({ type: CustomerLoyaltyDto })
  loyalty: CustomerLoyaltyDto;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  updated_at: string | null;

  @ApiProperty({ enum: ['customer'] })
  object: 'customer';
}

/** The customer, with its card balances summed by campaign (`loyalty`). */
export function toCustomerDto(customer: Customer, balances: CampaignPoints[]): CustomerDto {
  return {
    id: customer.id,
    source_id: customer.sourceId,
    name: customer.name,
    description: customer.description,
    email: customer.email,
    phone: customer.phone,
    birthdate: customer.birthdate,
    address: customer.address,
    metadata: customer.metadata,
    loyalty: {
      points: balances.reduce((sum, row) => sum + row.points, 0),
      referred_customers: 0,
      campaigns: Object.fromEntries(balances.map((row) => [row.campaign, { points: row.points, referred_customers: 0 }])),
    },
    created_at: customer.createdAt.toISOString(),
    updated_at: customer.updatedAt?.toISOString() ?? null,
    object: 'customer',
  };
}
