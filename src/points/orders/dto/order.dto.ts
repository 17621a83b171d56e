import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { UpsertCustomerDto } from '../../../customers/dto/customer.dto.js';
import { IsMetadata, Nested, Optional } from '../../../common/validation/decorators.js';
import { ORDER_STATUSES, type Order, type OrderStatus, totalAmount } from '../order.entity.js';
import { EXAMPLE_IDS, patternExample } from '../../../common/openapi/examples.js';

export const ORDER_ID = /^ord_[a-f0-9]+$/;
/** Minor units: 10^15 cents is beyond any real order and still exact in a JavaScript number. */
export const MAX_AMOUNT = 1_000_000_000_000_000;

export class OrderItemDto {
  @ApiPropertyOptional({ maxLength: 255 })
  @Optional()
  @IsString()
  @MaxLength(255)
  source_id?: string;

  @ApiPropertyOptional({ maxLength: 255 })
  @Optional()
  @IsString()
  @MaxLength(255)
  product_id?: string;

  @ApiPropertyOptional({ maxLength: 255 })
  @Optional()
  @IsString()
  @MaxLength(255)
  sku_id?: string;

  @ApiPropertyOptional({ minimum: 0 })
  @Optional()
  @IsInt()
  @Min(0)
  @Max(1_000_000_000)
  quantity?: number;

  @ApiPropertyOptional({ minimum: 0, description: 'Unit price, minor units.' })
  @Optional()
  @IsInt()
  @Min(0)
  @Max(MAX_AMOUNT)
  price?: number;

  @ApiPropertyOptional({ minimum: 0, description: 'Line amount, minor units.' })
  @Optional()
  @IsInt()
  @Min(0)
  @Max(MAX_AMOUNT)
  amount?: number;
}

/** An item as answered: what was sent, marked as Voucherify marks order items. */
export class OrderItemResponseDto extends OrderItemDto {
  @ApiProperty({ enum: ['order_item'] })
  object: 'order_item';
}

/** The fields of an order a request may set (POST and PUT). */
export class OrderFieldsDto {
  @ApiPropertyOptional({ enum: ORDER_STATUSES, default: 'CREATED', description: 'PAID earns points under the loyalty campaigns\' earning rules (once per rule, ever); CANCELED cancels the order\'s pending points.' })
  @Optional()
  @IsIn(ORDER_STATUSES)
  status?: OrderStatus;

  @ApiPropertyOptional({ minimum: 0, maximum: MAX_AMOUNT, description: 'Order amount in minor units (1000 = 10.00).', example: 2499 })
  @Optional()
  @IsInt()
  @Min(0)
  @Max(MAX_AMOUNT)
  amount?: number;

  @ApiPropertyOptional({ type: UpsertCustomerDto, description: 'The customer, by `id` or by `source_id` (created if new, like POST /v1/customers).' })
  @Nested(() => UpsertCustomerDto, { optional: true, object: true })
  customer?: UpsertCustomerDto;

  @ApiPropertyOptional({ type: [OrderItemDto], description: 'Stored and returned as sent; earning uses `amount` (less the discount of COIN redemptions).' })
  @Nested(() => OrderItemDto, { optional: true, each: true, maxItems: 500 })
  items?: OrderItemDto[];

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Replaces the order\'s metadata.' })
  @Optional()
  @IsMetadata()
  metadata?: Record<string, unknown>;
}

/** POST /v1/orders: an upsert by `id` or `source_id`, as Voucherify's. */
export class CreateOrderDto extends OrderFieldsDto {
  @ApiPropertyOptional({ ...patternExample(ORDER_ID, EXAMPLE_IDS.order), description: 'An existing order to update.' })
  @Optional()
  @Matches(ORDER_ID, { message: `$property must match ${ORDER_ID.source}` })
  id?: string;

  @ApiPropertyOptional({ maxLength: 255, description: 'Your order number, unique in the project: an order with this source_id is updated instead of made again.' })
  @Optional()
  @IsString()
  @Matches(/\S/, { message: '$property must not be blank' })
  @MaxLength(255)
  source_id?: string;
}

export class OrderCustomerRefDto {
  @ApiProperty({ example: EXAMPLE_IDS.customer })
  id: string;

  @ApiProperty({ enum: ['customer'] })
  object: 'customer';
}

export class OrderDto {
  @ApiProperty(patternExample(ORDER_ID, EXAMPLE_IDS.order))
  id: string;

  @ApiProperty({ type: String, nullable: true })
  source_id: string | null;

  @ApiProperty({ enum: ORDER_STATUSES })
  status: OrderStatus;

  @ApiProperty({ description: 'Minor units.' })
  amount: number;

  @ApiProperty({ description: 'The discount that COIN ("pay with points") redemptions not rolled back gave the order, minor units; 0 without one.' })
  discount_amount: number;

  @ApiProperty({ description: 'Equal to discount_amount (the order has no item-level discounts).' })
  total_discount_amount: number;

  @ApiProperty({ description: 'amount − discount_amount, never below 0: what earning rules proportional to the amount count.' })
  total_amount: number;

  @ApiProperty({ type: [OrderItemResponseDto], description: 'The items as sent, each marked `object: "order_item"`.' })
  items: OrderItemResponseDto[];

  @ApiProperty({ type: 'object', additionalProperties: true })
  metadata: Record<string, unknown>;

  @ApiProperty({ example: EXAMPLE_IDS.customer, type: String, nullable: true })
  customer_id: string | null;

  @ApiPropertyOptional({ type: OrderCustomerRefDto, description: 'Absent when the order has no customer.' })
  customer?: OrderCustomerRefDto;

  @ApiProperty({ type: String, nullable: true, description: 'Always null: referrals are not part of this service.' })
  referrer_id: null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  updated_at: string | null;

  @ApiProperty({ enum: ['order'] })
  object: 'order';
}

export function toOrderDto(order: Order): OrderDto {
  return {
    id: order.id,
    source_id: order.sourceId,
    status: order.status,
    amount: order.amount,
    discount_amount: order.discountAmount,
    total_discount_amount: order.discountAmount,
    total_amount: totalAmount(order),
    items: order.items,
    metadata: order.metadata,
    customer_id: order.customerId,
    ...(order.customerId ? { customer: { id: order.customerId, object: 'customer' as const } } : {}),
    referrer_id: null,
    created_at: order.createdAt.toISOString(),
    updated_at: order.updatedAt?.toISOString() ?? null,
    object: 'order',
  };
}
