import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync } from 'class-validator';
import { IsDateTime, isDateTime, metadataProblem, Optional, QueryInt } from './decorators.js';

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
