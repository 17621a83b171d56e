import { applyDecorators } from '@nestjs/common';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsDefined,
  isISO8601,
  IsObject,
  IsOptional,
  ValidateBy,
  ValidateIf,
  ValidateNested,
  type ValidationArguments,
  type ValidationOptions,
} from 'class-validator';

/**
 * The field may be left out, but not sent as null (class-validator's `IsOptional` lets null through too,
 * which let `"id": null` reach a database query). Fields that really are nullable use `IsOptional` and say
 * `nullable: true` in their OpenAPI property; test/e2e/openapi.e2e-spec.ts checks that the two agree.
 */
export function Optional(): PropertyDecorator {
  return ValidateIf((_object: object, value: unknown) => value !== undefined);
}

/** What a nested DTO property asks of its value besides the nested DTO's own rules. */
export interface NestedOptions {
  /** May be left out: `true` refuses null (Optional); `'nullable'` lets null through (IsOptional), for fields where null clears. */
  optional?: true | 'nullable';
  /** Must be sent (IsDefined); a string is the message when it is not. */
  required?: true | string;
  /** A value that is not an object also fails with `… must be an object` (IsObject). */
  object?: true;
  /** An array (IsArray) whose every item is a nested DTO. */
  each?: true;
  /** At most this many items (ArrayMaxSize). */
  maxItems?: number;
}

/**
 * A property holding a nested DTO (or, with `each`, an array of them): turned into that class and validated
 * with its rules, so a nested failure names its path (`voucher.code_config.length …`).
 */
export function Nested(type: () => Function, options: NestedOptions = {}): PropertyDecorator {
  // Listed the way the decorator stack it replaces reads, top to bottom, and applied bottom-up like one: class-validator
  // keeps its checks in the order they were declared, and a failure lists its messages in that order.
  const stack: PropertyDecorator[] = [];
  if (options.optional === true) stack.push(Optional());
  if (options.optional === 'nullable') stack.push(IsOptional());
  if (options.required !== undefined) stack.push(IsDefined(typeof options.required === 'string' ? { message: options.required } : undefined));
  if (options.object) stack.push(IsObject());
  if (options.each) stack.push(IsArray());
  if (options.maxItems !== undefined) stack.push(ArrayMaxSize(options.maxItems));
  stack.push(ValidateNested(options.each ? { each: true } : undefined), Type(type));
  return applyDecorators(...stack.reverse());
}

/**
 * A whole number in a query string: digits only (an optional minus sign), so `1e1`, `0x10` or ` 10` stay
 * strings and fail `IsInt` instead of being read as numbers by `Number()`.
 */
export function QueryInt(): PropertyDecorator {
  return Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^-?\d{1,16}$/.test(value) ? Number(value) : value));
}

/** RFC 3339 shape: a date, a time and a zone (`Z` or an offset), so no date-time is read in the server's zone. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)$/i;

export function isDateTime(value: unknown): value is string {
  return typeof value === 'string' && DATE_TIME.test(value) && isISO8601(value, { strict: true }) && !Number.isNaN(Date.parse(value));
}

/** An ISO 8601 date-time with a time zone, on a real calendar day (`2026-02-30` is refused). */
export function IsDateTime(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isDateTime',
      validator: {
        validate: (value: unknown) => isDateTime(value),
        defaultMessage: (args?: ValidationArguments) => `${args?.property} must be an ISO 8601 date-time with a time zone, such as 2026-01-31T12:00:00Z`,
      },
    },
    options,
  );
}

/** What `metadata` may hold: a JSON object, bounded so that storing and returning it stays cheap. */
export const METADATA_LIMITS = {
  /** Keys of the metadata object, and of each object inside it. */
  keys: 100,
  /** Objects and arrays nested inside the metadata object. */
  depth: 5,
  keyLength: 100,
  stringLength: 10_000,
  arrayItems: 100,
  /** Keys, items and values in all. */
  values: 1_000,
} as const;

/** Why `value` is not acceptable metadata (naming the path under `property`), or null. */
export function metadataProblem(value: unknown, property: string): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `${property} must be an object`;
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: property, depth: 0 }];
  let values = 0;
  while (stack.length) {
    const item = stack.pop() as { value: unknown; path: string; depth: number };
    values += 1;
    if (values > METADATA_LIMITS.values) return `${property} must hold at most ${METADATA_LIMITS.values} keys and values in all`;
    if (typeof item.value === 'string' && item.value.length > METADATA_LIMITS.stringLength) return `${item.path} must be at most ${METADATA_LIMITS.stringLength} characters long`;
    if (typeof item.value !== 'object' || item.value === null) continue;
    if (item.depth > METADATA_LIMITS.depth) return `${item.path} is nested too deep: ${property} allows ${METADATA_LIMITS.depth} levels of objects or arrays`;
    if (Array.isArray(item.value)) {
      if (item.value.length > METADATA_LIMITS.arrayItems) return `${item.path} must have at most ${METADATA_LIMITS.arrayItems} items`;
      item.value.forEach((child, i) => stack.push({ value: child, path: `${item.path}.${i}`, depth: item.depth + 1 }));
      continue;
    }
    const entries = Object.entries(item.value);
    if (entries.length > METADATA_LIMITS.keys) return `${item.path} must have at most ${METADATA_LIMITS.keys} keys`;
    for (const [key, child] of entries) {
      if (key.length < 1 || key.length > METADATA_LIMITS.keyLength) return `${item.path} keys must be 1 to ${METADATA_LIMITS.keyLength} characters long`;
      stack.push({ value: child, path: `${item.path}.${key}`, depth: item.depth + 1 });
    }
  }
  return null;
}

/** `metadata`: an object within METADATA_LIMITS (docs/errors.md lists them). */
export function IsMetadata(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isMetadata',
      validator: {
        validate: (value: unknown, args?: ValidationArguments) => metadataProblem(value, args?.property ?? 'metadata') === null,
        defaultMessage: (args?: ValidationArguments) => metadataProblem(args?.value, args?.property ?? 'metadata') ?? `${args?.property} is not valid metadata`,
      },
    },
    options,
  );
}
