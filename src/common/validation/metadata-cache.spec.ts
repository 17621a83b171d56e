import { getMetadataStorage, IsInt, IsString, validateSync } from 'class-validator';
import { cacheValidationMetadata } from './metadata-cache.js';

describe('cacheValidationMetadata', () => {
  beforeAll(() => cacheValidationMetadata());

  it('answers the same rules as class-validator, kept per class', () => {
    class Parent {
      @IsInt()
      count!: unknown;
    }
    const storage = getMetadataStorage();
    const first = storage.getTargetValidationMetadatas(Parent, '', false, false);
    expect(first.map((rule) => rule.propertyName)).toEqual(['count']);
    expect(storage.getTargetValidationMetadatas(Parent, '', false, false)).toBe(first);
    expect(validateSync(Object.assign(new Parent(), { count: 'x' })).map((error) => error.property)).toEqual(['count']);
    expect(validateSync(Object.assign(new Parent(), { count: 3 }))).toEqual([]);
  });

  it('sees rules of classes declared after a validation, inherited ones included', () => {
    class Base {
      @IsInt()
      count!: unknown;
    }
    expect(validateSync(Object.assign(new Base(), { count: 'x' }))).toHaveLength(1);
    // Declared after Base's rules were looked up (and kept): its own rule and Base's both apply.
    class Child extends Base {
      @IsString()
      name!: unknown;
    }
    const errors = validateSync(Object.assign(new Child(), { count: 'x', name: 1 }));
    expect(errors.map((error) => error.property).sort()).toEqual(['count', 'name']);
    expect(validateSync(Object.assign(new Child(), { count: 1, name: 'a' }))).toEqual([]);
  });

  it('keeps groups apart', () => {
    class Grouped {
      @IsInt({ groups: ['a'] })
      count!: unknown;
    }
    const value = Object.assign(new Grouped(), { count: 'x' });
    const errors = (groups: string[]) => validateSync(value, { groups, forbidUnknownValues: false }).map((error) => error.property);
    expect(errors(['a'])).toEqual(['count']);
    expect(errors(['b'])).toEqual([]);
    expect(errors(['a'])).toEqual(['count']);
  });
});
