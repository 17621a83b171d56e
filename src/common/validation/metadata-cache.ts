import { getMetadataStorage, type MetadataStorage } from 'class-validator';

type Rules = ReturnType<MetadataStorage['getTargetValidationMetadatas']>;

let installed = false;

/**
 * Keeps class-validator's answer to "which rules apply to this class" per class and options. It works the
 * answer out again on every validation, and for inherited rules tests the class against every class that
 * has rules (`instanceof` over all the DTOs): 11 µs of a member list request's 576 in a CPU profile
 * (bench/README.md). The rules are fixed once the classes are loaded (decorators run at import); a rule
 * added later (a class loaded later) clears everything kept. The arrays are shared between validations:
 * class-validator and Nest's ValidationPipe only read them.
 */
export function cacheValidationMetadata(): void {
  if (installed) return;
  installed = true;
  const storage = getMetadataStorage();
  const lookup = storage.getTargetValidationMetadatas.bind(storage);
  const add = storage.addValidationMetadata.bind(storage);
  let kept = new WeakMap<Function, Map<string, Rules>>();
  storage.addValidationMetadata = (metadata) => {
    kept = new WeakMap();
    add(metadata);
  };
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    let byOptions = kept.get(target);
    if (!byOptions) kept.set(target, (byOptions = new Map()));
    // Every argument, none confused with another (no schema is not the schema named '').
    const key = JSON.stringify([schema ?? null, always, strictGroups, groups ?? null]);
    let found = byOptions.get(key);
    if (!found) byOptions.set(key, (found = lookup(target, schema, always, strictGroups, groups)));
    return found;
  };
}
