/**
 * The requests the fuzz test sends, generated from one operation's OpenAPI description: body
 * mutations (from the request body schema), path and query parameter mutations, and auth.
 */
import {
  type OpenApiDocument,
  type Operation,
  type Rng,
  type Schema,
  UnfuzzableError,
  allowedTypes,
  childrenOf,
  objectSchemaOf,
  resolve,
  sample,
} from './fuzz-schema.js';

export interface FuzzCase {
  /** Groups failures in the summary: `body:nul`, `query:array`, `path:%00`… */
  kind: string;
  /** What exactly was changed, for the summary. */
  what: string;
  method: string;
  /** Encoded path and query, sent byte for byte. */
  path: string;
  /** Raw JSON text (built lazily: some are 1 MB). */
  body?: () => string;
  auth: 'valid' | 'none' | 'wrong';
  /** Request headers besides the key's (the operation's header parameters). */
  headers?: Record<string, string>;
}

/**
 * JSON text with parts JSON.stringify cannot produce: `__proto__` as a real key (a JS object would
 * drop it or change its prototype), numbers such as 1e400, and 5,000-level nesting built as text.
 */
export class JsonText {
  private readonly raws: string[] = [];
  /** A placeholder (usable as a value or a key) replaced by `text` verbatim. */
  raw(text: string): string {
    return `@@raw${this.raws.push(text) - 1}@@`;
  }
  stringify(value: unknown): string {
    return JSON.stringify(value).replace(/"@@raw(\d+)@@"/g, (_, i: string) => this.raws[Number(i)]);
  }
}

type Value = (j: JsonText) => unknown;
interface ValueMutation {
  kind: string;
  name: string;
  value: Value;
}

const DEPTH = 5_000;
const WIDE_OBJECTS_PER_OPERATION = 4;
/** `{"k0":0,"k1":1,…}` with 20,000 keys, built once: every operation sends the same bytes, and building them per case cost the file more CPU than sending them. */
let wideObjectText: string | undefined;
const wideObject = (): string => (wideObjectText ??= JSON.stringify(Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i]))));
const WRONG_TYPE_VALUES: Record<string, unknown> = { string: 'fuzz', number: 12345, boolean: true, array: ['fuzz'], object: { fuzz: 1 }, null: null };

/** What a body property gets instead of a valid value. */
function valueMutations(doc: OpenApiDocument, schema: Schema): ValueMutation[] {
  const allowed = allowedTypes(doc, schema);
  const out: ValueMutation[] = Object.entries(WRONG_TYPE_VALUES)
    .filter(([type]) => !allowed.has(type as never))
    .map(([type, value]) => ({ kind: 'body:wrong-type', name: type === 'null' ? 'null' : `a ${type}`, value: () => value }));
  if (allowed.has('number')) {
    out.push(
      { kind: 'body:number-edge', name: '-1', value: () => -1 },
      { kind: 'body:number-edge', name: '1.5', value: () => 1.5 },
      { kind: 'body:number-edge', name: '1e400 (Infinity once parsed)', value: (j) => j.raw('1e400') },
      { kind: 'body:number-edge', name: '2^53+1', value: (j) => j.raw('9007199254740993') },
    );
  }
  out.push(
    { kind: 'body:nul', name: '"a\\u0000b"', value: () => 'a\u0000b' },
    // JSON.stringify escapes a lone surrogate as \ud800, exactly what a client sends.
    { kind: 'body:surrogate', name: '"x\\ud800y"', value: () => 'x\ud800y' },
    { kind: 'body:huge-string', name: '200,000-char string', value: () => 'x'.repeat(200_000) },
    { kind: 'body:deep-nesting', name: `array nested ${DEPTH} deep`, value: (j) => j.raw('['.repeat(DEPTH) + ']'.repeat(DEPTH)) },
    { kind: 'body:deep-nesting', name: `object nested ${DEPTH} deep`, value: (j) => j.raw('{"a":'.repeat(DEPTH) + '1' + '}'.repeat(DEPTH)) },
    { kind: 'body:wide-object', name: 'object with 20,000 keys', value: (j) => j.raw(wideObject()) },
  );
  if (allowed.has('object')) {
    out.push(
      { kind: 'body:odd-key', name: '{"a\\u0000b": 1}', value: () => ({ 'a\u0000b': 1 }) },
      { kind: 'body:odd-key', name: '{"x\\ud800y": 1}', value: () => ({ 'x\ud800y': 1 }) },
    );
  }
  return out;
}

type Path = (string | number)[];
const label = (path: Path) => path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('') || '(body)';
const isContainer = (v: unknown): v is Record<string | number, unknown> => typeof v === 'object' && v !== null;

export function bodySchemaOf(op: Operation): Schema {
  const content = op.op.requestBody?.content ?? {};
  const schema = content['application/json']?.schema;
  if (!schema) throw new UnfuzzableError(`${op.label}: request body has no application/json schema (content types: ${Object.keys(content).join(', ')})`);
  return schema;
}

/**
 * Body mutations: each property (top level and one level down) gets each bad value; then structure. A body
 * that is an array of objects (POST earning-rules) is mutated through its item, sent as a one-item array.
 */
export function bodyCases(doc: OpenApiDocument, op: Operation, rng: Rng, pathWithIds: string): FuzzCase[] {
  const declared = resolve(doc, bodySchemaOf(op));
  const arrayOfItems = declared.type === 'array' ? declared.items : undefined;
  const root = arrayOfItems ?? bodySchemaOf(op);
  if (!objectSchemaOf(doc, root)) throw new UnfuzzableError(`${op.label}: request body schema is not an object nor an array of objects`);
  const wrap = (body: unknown) => (arrayOfItems ? [body] : body);
  const childSchema = (schema: Schema, key: string | number) => childrenOf(doc, schema).find(([k]) => k === key)?.[1] ?? {};

  /** A fresh valid body, with containers created along `path` (the object variant of a oneOf). */
  const bodyAt = (path: Path): { body: Record<string, unknown>; container: Record<string | number, unknown> } => {
    const body = sample(doc, objectSchemaOf(doc, root), rng) as Record<string, unknown>;
    let container: Record<string | number, unknown> = body;
    let schema = root;
    for (const key of path) {
      schema = childSchema(schema, key);
      if (!isContainer(container[key])) container[key] = sample(doc, objectSchemaOf(doc, schema) ?? schema, rng);
      container = container[key] as Record<string | number, unknown>;
    }
    return { body, container };
  };
  /** `build` returns the body (serialised with `j`), or a string sent verbatim. */
  const make = (kind: string, what: string, build: (j: JsonText) => unknown): FuzzCase => ({
    kind,
    what,
    method: op.method,
    path: pathWithIds,
    auth: 'valid',
    body: () => {
      const j = new JsonText();
      const built = build(j);
      return typeof built === 'string' ? built : j.stringify(wrap(built));
    },
  });

  const slots: [Path, Schema][] = [];
  const levels: [Path, Schema][] = [[[], root]]; // objects whose keys we drop, add or poison
  for (const [key, schema] of childrenOf(doc, root)) {
    slots.push([[key], schema]);
    if (objectSchemaOf(doc, schema)) levels.push([[key], schema]);
    for (const [sub, subSchema] of childrenOf(doc, schema)) slots.push([[key, sub], subSchema]);
  }

  const cases: FuzzCase[] = [];
  for (const [path, schema] of slots) {
    for (const m of valueMutations(doc, schema)) {
      cases.push(
        make(m.kind, `${label(path)} = ${m.name}`, (j) => {
          const { body, container } = bodyAt(path.slice(0, -1));
          container[path[path.length - 1]] = m.value(j);
          return body;
        }),
      );
    }
  }
  for (const [path, schema] of levels) {
    const object = objectSchemaOf(doc, schema) as Schema;
    for (const name of object.required ?? []) {
      cases.push(
        make('body:missing-required', `without ${label([...path, name])}`, () => {
          const { body, container } = bodyAt(path);
          delete container[name];
          return body;
        }),
      );
    }
    cases.push(
      make('body:unknown-field', `${label([...path, 'fuzz_unknown_field'])} added`, () => {
        const { body, container } = bodyAt(path);
        container.fuzz_unknown_field = 'x';
        return body;
      }),
    );
    // Sent as text so the key really is in the body; the values would pollute Object.prototype if
    // the server merged them naively (the test checks that afterwards).
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      cases.push(
        make('body:special-key', `${label([...path, key])} added`, (j) => {
          const { body, container } = bodyAt(path);
          container[j.raw(JSON.stringify(key))] = key === 'constructor' ? { prototype: { polluted: 'yes' } } : { polluted: 'yes' };
          return body;
        }),
      );
    }
  }
  for (const text of ['[]', '[{"a":1}]', '"fuzz"', '42', 'null', 'true', '', ...(arrayOfItems ? ['{}', '[[]]', '[null]', `[${Array(1001).fill('{}').join(',')}]`] : [])]) {
    cases.push(make('body:not-an-object', `body is ${text.length > 20 ? `${text.slice(0, 20)}…` : text || 'empty'}`, () => text));
  }
  // A 20,000-key object costs the server ~0.3 s of CPU today (class-transformer's key handling is
  // quadratic), so only a seeded sample of the slots gets one; raise the cap once that is fixed.
  const wide = cases.filter((c) => c.kind === 'body:wide-object');
  const keep = new Set(wide.map((c) => [rng.next(), c] as const).sort((a, b) => a[0] - b[0]).slice(0, WIDE_OBJECTS_PER_OPERATION).map(([, c]) => c));
  return cases.filter((c) => c.kind !== 'body:wide-object' || keep.has(c));
}

const manyKeys = new Map<number, string>();

/** A valid body with 119,000 top-level keys, just under the 1 MiB limit (keys are 3 base-62 chars); built once per count. */
export function manyKeysBody(count = 119_000): string {
  const built = manyKeys.get(count);
  if (built) return built;
  const digits = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
  const keys = Array.from({ length: count }, (_, i) => `"${digits[Math.floor(i / 3844)]}${digits[Math.floor(i / 62) % 62]}${digits[i % 62]}":0`);
  const text = `{${keys.join(',')}}`;
  manyKeys.set(count, text);
  return text;
}

/** Replaces each {name} of the template with its value (already encoded). */
export function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => values[name]);
}

export const PATH_VALUES: [kind: string, value: string][] = [
  ['path:%00', '%00'],
  ['path:%FF', '%FF'],
  ['path:surrogate', '%ED%A0%80'],
  ['path:bad-escape', '%E0%A4%A'],
  ['path:long', 'x'.repeat(5_000)],
  ['path:dot-dot', '..'],
  ['path:spaces-unicode', encodeURIComponent('a b\tc é € 😀 ﬁ')],
  ['path:empty', ''],
];

/** Each path parameter in turn gets each malformed value (and one valid-looking unknown id). */
export function pathCases(op: Operation, ids: Record<string, string>, unknownId: (name: string) => string): FuzzCase[] {
  const names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  return names.flatMap((name) =>
    [...PATH_VALUES, ['path:unknown-id', encodeURIComponent(unknownId(name))] as [string, string]].map(([kind, value]) => ({
      kind,
      what: `${name} = ${value.length > 40 ? `${value.slice(0, 12)}… (${value.length} chars)` : JSON.stringify(value)}`,
      method: op.method,
      path: fillPath(op.path, { ...ids, [name]: value }),
      auth: 'valid' as const,
    })),
  );
}

/** Query strings for one key (`limit`, or a leaf of a deep object such as `filters[status][conditions][$is]`). */
const QUERY_VALUES: [kind: string, fragment: (k: string) => string][] = [
  ['query:type-wrong', (k) => `${k}=abc`],
  ['query:type-wrong', (k) => `${k}=true`],
  ['query:number-syntax', (k) => `${k}=1e1`],
  ['query:number-syntax', (k) => `${k}=0x10`],
  ['query:number-syntax', (k) => `${k}=%2010`],
  ['query:number-syntax', (k) => `${k}=-1`],
  ['query:number-syntax', (k) => `${k}=99999999999999999999`],
  ['query:empty', (k) => `${k}=`],
  ['query:empty', (k) => `${k}=,,`],
  ['query:array', (k) => `${k}[]=1&${k}[]=2`],
  ['query:array', (k) => `${k}=1&${k}=2`],
  ['query:object', (k) => `${k}[a]=1`],
  ['query:proto', (k) => `${k}[__proto__]=1`],
  ['query:proto', (k) => `${k}[constructor][prototype][polluted]=1`],
  ['query:deep', (k) => `${k}[a][b][c][d][e][f][g][h][i][j]=1`],
  ['query:nul', (k) => `${k}=a%00b`],
  ['query:bad-encoding', (k) => `${k}=%FF`],
  ['query:bad-encoding', (k) => `${k}=x%ED%A0%80y`],
  ['query:bad-encoding', (k) => `${k}=%`],
  ['query:long', (k) => `${k}=${'x'.repeat(5_000)}`],
];

/** Leaves of a deep-object query parameter: `filters[status][conditions][$is]`… */
function leaves(doc: OpenApiDocument, schema: Schema, key: string, depth = 0): [string, Schema][] {
  const object = objectSchemaOf(doc, schema);
  if (!object?.properties || depth > 4) return depth === 0 ? [] : [[key, schema]];
  return Object.entries(object.properties).flatMap(([name, s]) => leaves(doc, s, `${key}[${name}]`, depth + 1));
}

/** qs's deep-object style, which the service parses (`filters[status][conditions][$in][]=ACTIVE`). */
function toQuery(key: string, value: unknown): string {
  if (Array.isArray(value)) return value.map((v) => toQuery(`${key}[]`, v)).join('&');
  if (isContainer(value)) return Object.entries(value).map(([k, v]) => toQuery(`${key}[${k}]`, v)).join('&');
  return `${key}=${encodeURIComponent(String(value))}`;
}

/** Every declared query parameter (and its deep-object leaves) and one unknown parameter get every value. */
export function queryCases(doc: OpenApiDocument, op: Operation, rng: Rng, pathWithIds: string): FuzzCase[] {
  const declared = (op.op.parameters ?? []).filter((p) => p.in === 'query');
  const keys: [string, Schema][] = [...declared.map((p): [string, Schema] => [p.name, p.schema ?? {}]), ['fuzz_unknown', {}]];
  for (const p of declared) keys.push(...leaves(doc, resolve(doc, p.schema), p.name));
  const at = (kind: string, query: string): FuzzCase => ({
    kind,
    what: query.length > 80 ? `${query.slice(0, 60)}… (${query.length} chars)` : query,
    method: op.method,
    path: `${pathWithIds}?${query}`,
    auth: 'valid',
  });
  return keys.flatMap(([key, schema]) => [
    ...(key === 'fuzz_unknown' ? [] : [at('query:valid', toQuery(key, sample(doc, schema, rng)))]),
    ...QUERY_VALUES.map(([kind, fragment]) => at(kind, fragment(key))),
  ]);
}

export function authCases(op: Operation, pathWithIds: string): FuzzCase[] {
  if (!op.secured) return [];
  return (['none', 'wrong'] as const).map((auth) => ({ kind: `auth:${auth}`, what: `${auth} credentials`, method: op.method, path: pathWithIds, auth }));
}

/**
 * An optional header parameter (Idempotency-Key): sent with a valid body, as a valid value, and as values
 * outside its schema (empty, too long, not printable ASCII), each a new value so that none replays another.
 */
export function headerCases(doc: OpenApiDocument, op: Operation, rng: Rng, pathWithIds: string): FuzzCase[] {
  const params = (op.op.parameters ?? []).filter((p) => p.in === 'header');
  const body = op.op.requestBody ? () => JSON.stringify(sample(doc, bodySchemaOf(op), rng)) : undefined;
  const values: [string, () => string][] = [
    ['valid', () => `fuzz-${rng.next().toString(36).slice(2)}`],
    ['empty', () => ''],
    ['too long', () => 'k'.repeat(256)],
    ['latin-1', () => `clé-${rng.next().toString(36).slice(2)}`],
    ['tab', () => `a\tb-${rng.next().toString(36).slice(2)}`],
  ];
  return params.flatMap((param) =>
    values.map(([kind, value]) => ({ kind: `header:${kind}`, what: `${param.name}: ${kind}`, method: op.method, path: pathWithIds, auth: 'valid' as const, body, headers: { [param.name]: value() } })),
  );
}

/** Required header parameters or cookies would need mutations of their own: refuse rather than skip them. */
export function assertFuzzable(op: Operation): void {
  const other = (op.op.parameters ?? []).filter((p) => p.in !== 'path' && p.in !== 'query' && !(p.in === 'header' && !p.required));
  if (other.length) throw new UnfuzzableError(`${op.label}: parameters in ${other.map((p) => `${p.in} (${p.name})`).join(', ')} are not fuzzed yet`);
  const declared = new Set((op.op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name));
  const missing = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).filter((n) => !declared.has(n));
  if (missing.length) throw new UnfuzzableError(`${op.label}: path parameters ${missing.join(', ')} are not declared`);
}
