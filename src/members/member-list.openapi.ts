import type { SchemaObject } from '@nestjs/swagger';
import { ORDER_VALUES } from './member-list-query.js';

const one = (schema: SchemaObject): SchemaObject => ({ oneOf: [schema, { type: 'array', items: schema, minItems: 1, maxItems: 1 }] });
const many = (schema: SchemaObject, max: number): SchemaObject => ({ type: 'array', items: schema, minItems: 1, maxItems: max });

function valueFilter(value: SchemaObject, max: number): SchemaObject {
  return {
    type: 'object',
    required: ['conditions'],
    additionalProperties: false,
    properties: {
      conditions: {
        type: 'object',
        minProperties: 1,
        additionalProperties: false,
        properties: { $is: one(value), $is_not: one(value), $in: many(value, max), $not_in: many(value, max) },
      },
    },
  };
}

const dateTime: SchemaObject = { type: 'string', format: 'date-time' };
const days: SchemaObject = { type: 'string', pattern: '^\\d+$', description: 'A whole number of days.' };
const presence: SchemaObject = { type: 'string', enum: [''], description: 'Sent empty.' };

/** `filters` as a deep object (OpenAPI `style: deepObject, explode: true`), as Voucherify documents MemberListFilters. */
export const MEMBER_FILTERS_SCHEMA: SchemaObject = {
  type: 'object',
  additionalProperties: false,
  properties: {
    junction: { type: 'string', enum: ['AND', 'OR'], default: 'AND', description: 'How the field filters combine; conditions inside one field always all hold.' },
    id: valueFilter({ type: 'string', pattern: '^lmbr_[a-f0-9]+$' }, 100),
    status: valueFilter({ type: 'string', enum: ['ACTIVE', 'INACTIVE'] }, 10),
    customer_id: valueFilter({ type: 'string', pattern: '^cust_[a-zA-Z0-9]+$' }, 100),
    created_at: {
      type: 'object',
      required: ['conditions'],
      additionalProperties: false,
      properties: {
        conditions: {
          type: 'object',
          minProperties: 1,
          additionalProperties: false,
          properties: {
            $before: one(dateTime),
            $after: one(dateTime),
            $is: { ...one(dateTime), description: 'A date-time matches that millisecond; a date (YYYY-MM-DD) matches that whole UTC day.' },
            $more_than: { ...one(days), description: 'Created more than this many days ago.' },
            $less_than: { ...one(days), description: 'Created less than this many days ago.' },
            $has_value: presence,
            $is_unknown: presence,
          },
        },
      },
    },
  },
  example: { status: { conditions: { $is: 'ACTIVE' } } },
};

export const MEMBER_ORDER_SCHEMA: SchemaObject = {
  oneOf: [
    { type: 'string', enum: ORDER_VALUES },
    { type: 'array', items: { type: 'string', enum: ORDER_VALUES }, maxItems: 3 },
  ],
  default: '-created_at',
};
