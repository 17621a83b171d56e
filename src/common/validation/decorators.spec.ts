import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { plainToInstance, Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsDefined, IsInt, IsObject, IsOptional, getMetadataStorage, validateSync, ValidateNested, type ValidationError } from 'class-validator';
import { IsDateTime, isDateTime, metadataProblem, Nested, Optional, QueryInt } from './decorators.js';

const src = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Every `src/<feature>/dto/*.ts` module (and the shared query DTO), so DTOs added later are covered. */
function dtoModules(): string[] {
  const files = readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((file) => /(^|\/)dto\/[^/]+\.ts$/.test(file) && !file.endsWith('.spec.ts'))
    .map((file) => join(src, file));
  return [...files, join(src, 'common', 'pagination', 'limit-query.dto.ts')];
}

describe('DTO optionality agrees with the OpenAPI document', () => {
  it('null is accepted exactly where the property says nullable: true', async () => {
    for (const file of dtoModules()) await import(file);
    const storage = getMetadataStorage() as unknown as { validationMetadatas: Map<Function, { propertyName: string }[]> };
    const problems: string[] = [];
    let checked = 0;
    for (const [target, metadatas] of storage.validationMetadatas) {
      for (const property of new Set(metadatas.map((m) => m.propertyName))) {
        const swagger = Reflect.getMetadata('swagger/apiModelProperties', target.prototype, property) as { nullable?: boolean } | undefined;
        if (!swagger) continue;
        checked += 1;
        // The property alone, set to null: does validation refuse it?
        const probe = Object.assign(Object.create(target.prototype as object) as object, { [property]: null });
        const nullAllowed = !validateSync(probe, { forbidUnknownValues: false }).some((error) => error.property === property);
        if (nullAllowed !== (swagger.nullable === true)) {
          problems.push(`${target.name}.${property}: ${nullAllowed ? 'null gets through but the OpenAPI property is not nullable (use Optional)' : 'nullable in OpenAPI but null is refused (use IsOptional)'}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(problems).toEqual([]);
  });
});

class Probe {
  @Optional()
  @QueryInt()
  @IsDateTime()
  at?: unknown;
}

describe('validation decorators', () => {
  it('Optional skips undefined only', () => {
    expect(validateSync(plainToInstance(Probe, {}))).toHaveLength(0);
    expect(validateSync(plainToInstance(Probe, { at: null }))).toHaveLength(1);
  });

  it('QueryInt reads digits only', () => {
    const read = (value: string) => (plainToInstance(Probe, { at: value }) as Probe).at;
    expect(read('10')).toBe(10);
    expect(read('-3')).toBe(-3);
    for (const text of ['1e1', '0x10', ' 10', '10.0', '+10', '']) expect(read(text)).toBe(text);
  });

  it('isDateTime wants a date, a time and a zone on a real day', () => {
    for (const ok of ['2026-01-31T12:00:00Z', '2026-01-31T12:00Z', '2026-01-31T12:00:00.123+02:00', '2026-01-31T12:00:00-0500']) expect(isDateTime(ok)).toBe(true);
    for (const bad of ['2026-01-31T12:00:00', '2026-01-31', '2026-02-30T00:00:00Z', '2026-01-31 12:00:00Z', 'yesterday', 20260131]) expect(isDateTime(bad)).toBe(false);
  });

  it('metadataProblem names the path and the limit', () => {
    expect(metadataProblem({ a: { b: [1, 'x'] }, 'a key': null }, 'metadata')).toBeNull();
    expect(metadataProblem({ a: { b: 'x'.repeat(10_001) } }, 'metadata')).toBe('metadata.a.b must be at most 10000 characters long');
    expect(metadataProblem({ '': 1 }, 'metadata')).toBe('metadata keys must be 1 to 100 characters long');
    expect(metadataProblem(Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, Array(30).fill(0)])), 'metadata')).toBe('metadata must hold at most 1000 keys and values in all');
  });
});

class Item {
  @IsInt()
  n: number;
}

// Each pair: a decorator stack the DTOs wrote out before, and the Nested call that replaced it.
class OptionalStack {
  @Optional()
  @ValidateNested()
  @Type(() => Item)
  item?: Item;
}
class OptionalNested {
  @Nested(() => Item, { optional: true })
  item?: Item;
}
class OptionalObjectStack {
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => Item)
  item?: Item;
}
class OptionalObjectNested {
  @Nested(() => Item, { optional: true, object: true })
  item?: Item;
}
class NullableStack {
  @IsOptional()
  @ValidateNested()
  @Type(() => Item)
  item?: Item | null;
}
class NullableNested {
  @Nested(() => Item, { optional: 'nullable' })
  item?: Item | null;
}
class NullableObjectStack {
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => Item)
  item?: Item | null;
}
class NullableObjectNested {
  @Nested(() => Item, { optional: 'nullable', object: true })
  item?: Item | null;
}
class RequiredStack {
  @IsDefined()
  @ValidateNested()
  @Type(() => Item)
  item: Item;
}
class RequiredNested {
  @Nested(() => Item, { required: true })
  item: Item;
}
class RequiredObjectStack {
  @IsDefined({ message: '$property is required' })
  @IsObject()
  @ValidateNested()
  @Type(() => Item)
  item: Item;
}
class RequiredObjectNested {
  @Nested(() => Item, { required: '$property is required', object: true })
  item: Item;
}
class ObjectStack {
  @IsObject()
  @ValidateNested()
  @Type(() => Item)
  item: Item;
}
class ObjectNested {
  @Nested(() => Item, { object: true })
  item: Item;
}
class ArrayStack {
  @IsArray()
  @ArrayMaxSize(2)
  @ValidateNested({ each: true })
  @Type(() => Item)
  item: Item[];
}
class ArrayNested {
  @Nested(() => Item, { each: true, maxItems: 2 })
  item: Item[];
}
class OptionalArrayStack {
  @Optional()
  @IsArray()
  @ArrayMaxSize(2)
  @ValidateNested({ each: true })
  @Type(() => Item)
  item?: Item[];
}
class OptionalArrayNested {
  @Nested(() => Item, { optional: true, each: true, maxItems: 2 })
  item?: Item[];
}

const PAIRS: [Function, Function][] = [
  [OptionalStack, OptionalNested],
  [OptionalObjectStack, OptionalObjectNested],
  [NullableStack, NullableNested],
  [NullableObjectStack, NullableObjectNested],
  [RequiredStack, RequiredNested],
  [RequiredObjectStack, RequiredObjectNested],
  [ObjectStack, ObjectNested],
  [ArrayStack, ArrayNested],
  [OptionalArrayStack, OptionalArrayNested],
];

const BODIES: object[] = [
  {},
  { item: null },
  { item: 'x' },
  { item: 5 },
  { item: {} },
  { item: { n: 'a' } },
  { item: { n: 1 } },
  { item: [] },
  { item: [{ n: 1 }, { n: 'a' }] },
  { item: [{ n: 1 }, { n: 2 }, { n: 3 }] },
  { item: [1, { n: 1 }] },
];

/** Errors with their constraints in order (the messages of a 400 are joined in this order). */
function errors(list: ValidationError[]): unknown[] {
  return list.map((error) => ({ property: error.property, constraints: Object.entries(error.constraints ?? {}), children: errors(error.children ?? []) }));
}

/** What the body became: which class each nested value is an instance of. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  return typeof value === 'object' && value !== null ? `${value.constructor.name} ${JSON.stringify(value)}` : value;
}

function checks(target: Function): unknown[] {
  const storage = getMetadataStorage() as unknown as { validationMetadatas: Map<Function, { type: string; name?: string; constraints?: unknown[]; each?: boolean; message?: unknown }[]> };
  // Conditions (Optional's) are new functions per property: compare their source.
  const constraints = (list?: unknown[]) => list?.map((c) => (typeof c === 'function' ? c.toString() : c));
  return (storage.validationMetadatas.get(target) ?? []).map((m) => [m.type, m.name, constraints(m.constraints), m.each, m.message]);
}

describe('Nested', () => {
  it('declares the same checks, in the same order, as the stack it replaces', () => {
    for (const [stack, nested] of PAIRS) expect([nested.name, checks(nested)]).toEqual([nested.name, checks(stack)]);
  });

  it('transforms and validates every body like the stack it replaces', () => {
    for (const [stack, nested] of PAIRS) {
      for (const body of BODIES) {
        const before = plainToInstance(stack as new () => object, body);
        const after = plainToInstance(nested as new () => object, body);
        const label = `${nested.name} ${JSON.stringify(body)}`;
        expect([label, shape((after as { item?: unknown }).item)]).toEqual([label, shape((before as { item?: unknown }).item)]);
        expect([label, errors(validateSync(after))]).toEqual([label, errors(validateSync(before))]);
      }
    }
  });

  it('names the nested property that failed', () => {
    const [error] = validateSync(plainToInstance(OptionalObjectNested, { item: { n: 'a' } }));
    expect(error.property).toBe('item');
    expect(error.children?.[0]).toMatchObject({ property: 'n', constraints: { isInt: 'n must be an integer number' } });
    const [array] = validateSync(plainToInstance(ArrayNested, { item: [{ n: 1 }, { n: 'a' }] }));
    expect(array.children?.[0]).toMatchObject({ property: '1', children: [{ property: 'n' }] });
    expect(plainToInstance(ArrayNested, { item: [{ n: 1 }] }).item[0]).toBeInstanceOf(Item);
  });
});
