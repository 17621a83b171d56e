import { isISO8601 } from 'class-validator';
import { ApiError } from '../common/errors/api-error.js';
import { isDateTime } from '../common/validation/decorators.js';

/**
 * The v2 member list's query language (docs/decisions.md, "Member list (v2)"): `order` and the deep-object `filters`,
 * parsed into a plan the repository turns into SQL. Everything a client can get wrong is rejected here
 * with 400 `invalid_query_params` naming the parameter; the repository never sees an unchecked value.
 */

export const ORDER_FIELDS = ['created_at', 'status', 'customer_id'] as const;
export type OrderField = (typeof ORDER_FIELDS)[number];
export const ORDER_VALUES = ORDER_FIELDS.flatMap((field) => [field, `-${field}`]);
export const DEFAULT_ORDER = '-created_at';

export const FILTER_FIELDS = ['id', 'status', 'customer_id', 'created_at'] as const;
export type FilterField = (typeof FILTER_FIELDS)[number];
export const VALUE_CONDITIONS = ['$is', '$is_not', '$in', '$not_in'] as const;
export const DATE_CONDITIONS = ['$before', '$after', '$is', '$more_than', '$less_than', '$has_value', '$is_unknown'] as const;
export const LISTABLE_STATUSES = ['ACTIVE', 'INACTIVE'] as const;

/** A column the list sorts by; `id` and `customer_id` are unique tiebreakers (customer_id within a program). */
export type SortColumn = OrderField | 'id';
export interface SortKey {
  column: SortColumn;
  desc: boolean;
}

export type Condition =
  | { column: 'id' | 'status' | 'customer_id'; op: 'in' | 'not_in'; values: string[] }
  | { column: 'created_at'; op: 'before' | 'after' | 'at'; at: Date }
  | { column: 'created_at'; op: 'on_day'; from: Date; until: Date }
  | { column: 'created_at'; op: 'days_more_than' | 'days_less_than'; days: number }
  | { column: 'created_at'; op: 'has_value' | 'is_unknown' };

export interface FieldFilter {
  field: FilterField;
  /** Conditions on one field all hold (AND): `$after` with `$before` is a range. */
  conditions: Condition[];
}

export interface MemberFilters {
  /** How the field filters combine. */
  junction: 'AND' | 'OR';
  fields: FieldFilter[];
}

export interface MemberListPlan {
  /**
   * The full, unique sort: the requested fields, then created_at and id in the direction of the last
   * requested field. It stops at customer_id, which is unique among a program's listed members.
   */
  sort: SortKey[];
  filters: MemberFilters;
  /** Everything the result depends on but the cursor and limit, in one canonical string (the cursor's scope). */
  canonical: string;
}

const ID_VALUE = /^lmbr_[a-f0-9]+$/;
const CUSTOMER_VALUE = /^cust_[a-zA-Z0-9]+$/;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;
const MAX_IN_VALUES: Record<'id' | 'status' | 'customer_id', number> = { id: 100, status: 10, customer_id: 100 };

function invalid(details: string): ApiError {
  return ApiError.invalidQueryParams(details);
}

/** `order` as one value, repeated values, an array or a comma-separated list; default `-created_at`. */
export function parseOrder(raw: unknown): SortKey[] {
  const values = raw === undefined || raw === '' ? [DEFAULT_ORDER] : listOf(raw, 'order');
  if (values.length === 0) throw invalid(`order must name at least one of ${ORDER_VALUES.join(', ')}`);
  const requested: SortKey[] = [];
  for (const value of values) {
    if (!ORDER_VALUES.includes(value)) throw invalid(`order must be one or more of ${ORDER_VALUES.join(', ')}; got '${value}'`);
    const desc = value.startsWith('-');
    const column = (desc ? value.slice(1) : value) as OrderField;
    const earlier = requested.find((key) => key.column === column);
    if (earlier) {
      throw invalid(earlier.desc === desc ? `order lists ${column} twice` : `order cannot sort ${column} both ascending and descending`);
    }
    requested.push({ column, desc });
  }
  const sort: SortKey[] = [];
  for (const key of requested) {
    sort.push(key);
    if (key.column === 'customer_id') return sort;
  }
  const last = sort[sort.length - 1].desc;
  if (!sort.some((key) => key.column === 'created_at')) sort.push({ column: 'created_at', desc: last });
  sort.push({ column: 'id', desc: last });
  return sort;
}

/** `filters[<field>][conditions][<op>]=<value>` and `filters[junction]=AND|OR`. */
export function parseFilters(raw: unknown): MemberFilters {
  if (raw === undefined) return { junction: 'AND', fields: [] };
  if (!isPlainObject(raw)) throw invalid('filters must be a deep object: filters[<field>][conditions][<condition>]=<value>');
  let junction: 'AND' | 'OR' = 'AND';
  const fields: FieldFilter[] = [];
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'junction') {
      const upper = typeof value === 'string' ? value.toUpperCase() : value;
      if (upper !== 'AND' && upper !== 'OR') throw invalid('filters[junction] must be AND or OR');
      junction = upper;
      continue;
    }
    if (!(FILTER_FIELDS as readonly string[]).includes(key)) {
      throw invalid(`filters[${key}] is not a filterable field; use ${FILTER_FIELDS.join(', ')} or junction`);
    }
    fields.push(parseField(key as FilterField, value));
  }
  fields.sort((a, b) => a.field.localeCompare(b.field));
  return { junction, fields };
}

export function planMemberList(programId: string, order: unknown, filters: unknown): MemberListPlan {
  const sort = parseOrder(order);
  const parsed = parseFilters(filters);
  // Relative conditions ($more_than/$less_than days) stay relative here, so the scope does not change with the clock.
  return { sort, filters: parsed, canonical: JSON.stringify({ program: programId, sort, filters: parsed }) };
}

function parseField(field: FilterField, raw: unknown): FieldFilter {
  const name = `filters[${field}]`;
  if (!isPlainObject(raw)) throw invalid(`${name} must be an object with conditions: ${name}[conditions][<condition>]=<value>`);
  const extra = Object.keys(raw).filter((key) => key !== 'conditions');
  if (extra.length) throw invalid(`${name}[${extra[0]}] is not allowed; only ${name}[conditions]`);
  const conditions = raw.conditions;
  if (!isPlainObject(conditions) || Object.keys(conditions).length === 0) throw invalid(`${name}[conditions] must hold at least one condition`);
  const allowed: readonly string[] = field === 'created_at' ? DATE_CONDITIONS : VALUE_CONDITIONS;
  const parsed: Condition[] = [];
  for (const [op, value] of Object.entries(conditions)) {
    const param = `${name}[conditions][${op}]`;
    if (!allowed.includes(op)) throw invalid(`${param} is not a condition of ${field}; use ${allowed.join(', ')}`);
    parsed.push(field === 'created_at' ? dateCondition(op, value, param) : valueCondition(field, op, value, param));
  }
  return { field, conditions: parsed };
}

function valueCondition(field: 'id' | 'status' | 'customer_id', op: string, raw: unknown, param: string): Condition {
  const values = listOf(raw, param);
  const single = op === '$is' || op === '$is_not';
  if (single && values.length !== 1) throw invalid(`${param} takes exactly one value`);
  const max = MAX_IN_VALUES[field];
  if (values.length < 1 || values.length > max) throw invalid(`${param} takes 1 to ${max} values`);
  for (const value of values) {
    const ok = field === 'id' ? ID_VALUE.test(value) : field === 'customer_id' ? CUSTOMER_VALUE.test(value) : (LISTABLE_STATUSES as readonly string[]).includes(value);
    if (!ok) {
      const rule = field === 'id' ? `match ${ID_VALUE.source}` : field === 'customer_id' ? `match ${CUSTOMER_VALUE.source}` : `be ${LISTABLE_STATUSES.join(' or ')}`;
      throw invalid(`${param} values must ${rule}; got '${value}'`);
    }
  }
  const negative = op === '$is_not' || op === '$not_in';
  return { column: field, op: negative ? 'not_in' : 'in', values: [...new Set(values)].sort() };
}

function dateCondition(op: string, raw: unknown, param: string): Condition {
  if (op === '$has_value' || op === '$is_unknown') {
    // Presence checks take no value (Voucherify sends an empty string); anything else is a mistake.
    const values = raw === '' ? [] : listOf(raw, param).filter((value) => value !== '');
    if (values.length) throw invalid(`${param} takes no value (send it empty)`);
    return { column: 'created_at', op: op === '$has_value' ? 'has_value' : 'is_unknown' };
  }
  const values = listOf(raw, param);
  if (values.length !== 1) throw invalid(`${param} takes exactly one value`);
  const [value] = values;
  if (op === '$more_than' || op === '$less_than') {
    if (!/^\d{1,6}$/.test(value)) throw invalid(`${param} must be a whole number of days (0 or more); got '${value}'`);
    return { column: 'created_at', op: op === '$more_than' ? 'days_more_than' : 'days_less_than', days: Number(value) };
  }
  const at = parseDate(value, param);
  if (op === '$before') return { column: 'created_at', op: 'before', at };
  if (op === '$after') return { column: 'created_at', op: 'after', at };
  // $is: a date-time is that instant (millisecond precision); a plain date is that whole UTC day.
  if (DATE_ONLY.test(value)) return { column: 'created_at', op: 'on_day', from: at, until: new Date(at.getTime() + DAY_MS) };
  return { column: 'created_at', op: 'at', at };
}

function parseDate(value: string, param: string): Date {
  // A date-time needs its zone: without one it would be read in the server's zone.
  const ok = DATE_ONLY.test(value) ? isISO8601(value, { strict: true }) : isDateTime(value);
  const at = new Date(DATE_ONLY.test(value) ? `${value}T00:00:00.000Z` : value);
  if (!ok || Number.isNaN(at.getTime())) throw invalid(`${param} must be an ISO 8601 date-time with a time zone, or a date; got '${value}'`);
  return at;
}

/**
 * A query value as a list of strings: one value, repeated values, `a[]=`/`a[0]=` arrays (which the query
 * parser turns into an object with numeric keys past 20 items) or a comma-separated list.
 */
function listOf(raw: unknown, param: string): string[] {
  let items: unknown[];
  if (Array.isArray(raw)) items = raw;
  else if (isPlainObject(raw) && Object.keys(raw).every((key) => /^\d+$/.test(key))) items = Object.values(raw);
  else items = [raw];
  const out: string[] = [];
  for (const item of items) {
    if (typeof item !== 'string') throw invalid(`${param} must be a value or a list of values, not an object`);
    out.push(...item.split(',').map((part) => part.trim()).filter((part, i, all) => part !== '' || all.length === 1));
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
