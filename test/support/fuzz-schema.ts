/**
 * The OpenAPI side of the fuzz test (test/e2e/fuzz.e2e-spec.ts): reads openapi/openapi.json at run time,
 * lists its operations, resolves schemas ($ref, allOf, oneOf/anyOf, nullable) and builds valid samples
 * from them. Nothing here knows a single route: every operation a later issue adds is fuzzed as well.
 */
import { readFileSync } from 'node:fs';

export interface Schema {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  enum?: unknown[];
  format?: string;
  pattern?: string;
  example?: unknown;
  default?: unknown;
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
}

export interface OperationObject {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
  responses: Record<string, unknown>;
  security?: Record<string, string[]>[];
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, Schema> };
  security?: Record<string, string[]>[];
}

export interface Operation {
  method: string;
  path: string;
  label: string;
  op: OperationObject;
  /** False for public routes (operation-level `security: []`). */
  secured: boolean;
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace']);

export function loadOpenApi(): OpenApiDocument {
  return JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8')) as OpenApiDocument;
}

/** Every path × method of the document. */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.has(method))
      .map(([method, op]) => ({
        method: method.toUpperCase(),
        path,
        label: `${method.toUpperCase()} ${path}`,
        op,
        secured: (op.security ?? doc.security ?? []).some((requirement) => Object.keys(requirement).length > 0),
      })),
  );
}

/** Small deterministic PRNG (mulberry32): the run is reproducible from its seed. */
export class Rng {
  constructor(private state: number) {}
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(maxExclusive: number): number {
    return Math.floor(this.next() * maxExclusive);
  }
  pick<T>(values: readonly T[]): T {
    return values[this.int(values.length)];
  }
  token(length = 10): string {
    let out = '';
    while (out.length < length) out += this.int(36).toString(36);
    return out;
  }
}

export const JSON_TYPES = ['string', 'number', 'boolean', 'array', 'object', 'null'] as const;
export type JsonType = (typeof JSON_TYPES)[number];

/** Schema-level problems end the operation's test with a message rather than skipping it. */
export class UnfuzzableError extends Error {}

/**
 * Follows $ref and folds allOf into one schema (NestJS emits `allOf: [{$ref}]` next to `nullable` and
 * `description`). oneOf/anyOf stay: callers choose a variant.
 */
export function resolve(doc: OpenApiDocument, schema: Schema | undefined, seen: string[] = []): Schema {
  if (!schema) return {};
  if (schema.$ref) {
    const name = schema.$ref.replace(/^#\/components\/schemas\//, '');
    const target = doc.components.schemas[name];
    if (!target) throw new UnfuzzableError(`unresolvable $ref ${schema.$ref}`);
    if (seen.includes(name)) return { type: 'object' }; // recursive schema: stop here
    const { $ref: _ref, ...rest } = schema;
    return resolve(doc, { ...target, ...rest }, [...seen, name]);
  }
  if (!schema.allOf) return schema;
  const { allOf, ...outer } = schema;
  const merged: Schema = { ...outer };
  for (const part of allOf.map((p) => resolve(doc, p, seen))) {
    merged.type = part.type ?? merged.type;
    merged.properties = { ...merged.properties, ...part.properties };
    merged.required = [...new Set([...(merged.required ?? []), ...(part.required ?? [])])];
    for (const key of ['enum', 'format', 'pattern', 'items', 'minimum', 'maximum', 'maxLength', 'minProperties', 'additionalProperties', 'oneOf'] as const) {
      if (part[key] !== undefined && merged[key] === undefined) (merged as Record<string, unknown>)[key] = part[key];
    }
  }
  return merged;
}

const variantsOf = (s: Schema): Schema[] | undefined => s.oneOf ?? s.anyOf;

/** The JSON types a value of this schema may have (all of them for `{}`). */
export function allowedTypes(doc: OpenApiDocument, raw: Schema | undefined): Set<JsonType> {
  const schema = resolve(doc, raw);
  const variants = variantsOf(schema);
  const out = new Set<JsonType>();
  if (variants) for (const v of variants) for (const t of allowedTypes(doc, v)) out.add(t);
  else if (schema.type) out.add(schema.type === 'integer' ? 'number' : (schema.type as JsonType));
  else if (schema.properties) out.add('object');
  else JSON_TYPES.forEach((t) => out.add(t));
  if (schema.nullable) out.add('null');
  return out;
}

/** The object form of a schema (the object variant of a oneOf), or undefined if it has none. */
export function objectSchemaOf(doc: OpenApiDocument, raw: Schema | undefined): Schema | undefined {
  const schema = resolve(doc, raw);
  const variants = variantsOf(schema);
  if (variants) return variants.map((v) => objectSchemaOf(doc, v)).find((v) => v !== undefined);
  return schema.type === 'object' || schema.properties ? schema : undefined;
}

/**
 * Where a mutation can go one level below `raw`: each declared property; a made-up key `fuzz` in a
 * free-form object (metadata), whose values end up in JSON columns; element 0 of an array.
 */
export function childrenOf(doc: OpenApiDocument, raw: Schema | undefined): [string | number, Schema][] {
  const object = objectSchemaOf(doc, raw);
  if (object) {
    if (object.properties && Object.keys(object.properties).length > 0) return Object.entries(object.properties);
    return object.additionalProperties === false ? [] : [['fuzz', {}]];
  }
  const schema = resolve(doc, raw);
  return schema.type === 'array' ? [[0, schema.items ?? {}]] : [];
}

/** A string matching simple anchored patterns such as ^lprg_[a-f0-9]+$ or ^\d+$; undefined otherwise. */
export function stringForPattern(pattern: string, rng: Rng): string | undefined {
  const match = /^\^([A-Za-z0-9_-]*)(\[[^\]]+\]|\\d|\\w)(\+|\*|\{\d+(?:,\d*)?\})?\$$/.exec(pattern);
  if (!match) return undefined;
  const [, literal, cls, quantifier] = match;
  let alphabet = '';
  if (cls === '\\d') alphabet = '0123456789';
  else if (cls === '\\w') alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789_';
  else {
    const body = cls.slice(1, -1);
    for (const [, from, to] of body.matchAll(/(.)(?:-(.))?/g)) {
      for (let c = from.charCodeAt(0); c <= (to ?? from).charCodeAt(0); c += 1) alphabet += String.fromCharCode(c);
    }
  }
  const count = quantifier?.startsWith('{') ? Number(/\d+/.exec(quantifier)?.[0]) : 12;
  let out = literal;
  for (let i = 0; i < count; i += 1) out += alphabet[rng.int(alphabet.length)];
  return out;
}

/**
 * A valid value for `raw`: required properties only, enums and oneOf variants picked at random (so a
 * run walks several branches), formats and simple patterns respected, fresh random strings so that
 * unique columns (names, source ids) do not collide between requests.
 */
export function sample(doc: OpenApiDocument, raw: Schema | undefined, rng: Rng, depth = 0): unknown {
  const schema = resolve(doc, raw);
  if (depth > 8) return null;
  const variants = variantsOf(schema)?.filter((v) => resolve(doc, v).type !== 'null');
  if (variants?.length) return sample(doc, rng.pick(variants), rng, depth + 1);
  if (schema.enum) return rng.pick(schema.enum.filter((v) => v !== null));
  const type = schema.type ?? (schema.properties ? 'object' : 'string');
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const properties = schema.properties ?? {};
      for (const name of schema.required ?? []) out[name] = sample(doc, properties[name], rng, depth + 1);
      // Discriminator convention ({type: 'customer_source_id', customer_source_id: …}): when a required
      // enum picked a value that names a sibling property, that sibling is filled too.
      for (const value of Object.values(out)) {
        if (typeof value === 'string' && properties[value] && !(value in out)) out[value] = sample(doc, properties[value], rng, depth + 1);
      }
      for (const name of Object.keys(properties)) {
        if (Object.keys(out).length >= (schema.minProperties ?? 0)) break;
        if (!(name in out)) out[name] = sample(doc, properties[name], rng, depth + 1);
      }
      return out;
    }
    case 'array': {
      const count = Math.min(Math.max(schema.minItems ?? 1, 1), schema.maxItems ?? 1);
      return Array.from({ length: count }, () => sample(doc, schema.items, rng, depth + 1));
    }
    case 'number':
    case 'integer':
      return schema.minimum ?? (schema.maximum !== undefined ? Math.min(1, schema.maximum) : 1);
    case 'boolean':
      return typeof schema.default === 'boolean' ? schema.default : false;
    default:
      return sampleString(schema, rng);
  }
}

function sampleString(schema: Schema, rng: Rng): string {
  if (schema.format === 'date-time') return new Date(Date.UTC(2024, 0, 1) + rng.int(1e9) * 1000).toISOString();
  if (schema.format === 'date') return '1990-04-30';
  if (schema.format === 'email') return `fuzz-${rng.token(8)}@example.com`;
  const fromPattern = schema.pattern ? stringForPattern(schema.pattern, rng) : undefined;
  if (fromPattern !== undefined) return fromPattern;
  // Space-free examples are tokens the server parses (ISO 8601 durations, code templates); examples
  // with spaces are prose (names, notes) that would collide on unique columns, so get a random string.
  if (typeof schema.example === 'string' && !schema.example.includes(' ')) return schema.example;
  const text = `fz-${rng.token(12)}`;
  return text.slice(0, schema.maxLength ?? text.length).padEnd(schema.minLength ?? 0, 'x');
}
