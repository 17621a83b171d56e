#!/usr/bin/env node
/**
 * Voucherify's published OpenAPI documents, pinned to one commit, and a check of our contract fragments
 * (test/contract/voucherify/: the answers'; src/events/schemas/: the events' and the pieces both use) against them.
 *
 *   node scripts/voucherify-schemas.mjs fetch [dir]   downloads the pinned files into dir (default .cache/voucherify-openapi)
 *   node scripts/voucherify-schemas.mjs check [dir]   compares every fragment with its upstream schemas; exit 1 on an
 *                                                     unlisted difference or a listed one that no longer occurs
 *   node scripts/voucherify-schemas.mjs examples [dir] validates Voucherify's own examples of those schemas against our
 *                                                     fragments and prints where they disagree (information: their
 *                                                     examples and their schemas do not always agree)
 *
 * The documents are not copied into this repository (docs/decisions.md, "Answers that match Voucherify's
 * schemas"): `fetch` downloads them, and `check` reads a directory of files named by the keys of FILES below
 * (ro.json, doc-loyalties.json, …). The fragments are ours: structure only, for what we answer.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const REPOSITORY = 'voucherifyio/voucherify-openapi';
export const COMMIT = '65c33a7ab4384e3df9e382751157aca4b1352cd6';
/** Our key (file name without .json) → the path in the repository. */
export const FILES = {
  ro: 'production/readOnly-openAPI.json',
  'doc-loyalties': 'documentation/openapi/loyalties.json',
  'doc-loyalties-v2': 'documentation/openapi/loyalties-v2.json',
  'doc-customers': 'documentation/openapi/customers.json',
  'doc-orders': 'documentation/openapi/orders.json',
  'doc-async-actions': 'documentation/openapi/async-actions.json',
  'doc-rewards': 'documentation/openapi/rewards.json',
  wh: 'reference/OpenAPIWebhooks.json',
};

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const FRAGMENTS_DIR = join(ROOT, 'test/contract/voucherify');
/** Where every fragment is: the answers' and the events' (with the event catalogue, which names its types' schemas). */
export const FRAGMENT_DIRS = [FRAGMENTS_DIR, join(ROOT, 'src/events/schemas')];
const DEFAULT_DIR = join(ROOT, '.cache/voucherify-openapi');
const DIFFERENCES_FILE = join(FRAGMENTS_DIR, 'upstream-differences.json');

// ---------------------------------------------------------------- loading

/** Every fragment under FRAGMENT_DIRS (JSON files with an `$id`), by `$id`. */
export async function loadFragments(dirs = FRAGMENT_DIRS) {
  const fragments = new Map();
  for (const dir of dirs) {
    for (const entry of await readdir(dir, { recursive: true })) {
      if (!entry.endsWith('.json') || entry === 'upstream-differences.json') continue;
      const schema = JSON.parse(await readFile(join(dir, entry), 'utf8'));
      if (!schema.$id) continue;
      if (fragments.has(schema.$id)) throw new Error(`two fragments have $id ${schema.$id}`);
      fragments.set(schema.$id, { file: relative(ROOT, join(dir, entry)), schema });
    }
  }
  return fragments;
}

export async function loadUpstream(dir) {
  const docs = {};
  for (const key of Object.keys(FILES)) {
    try {
      docs[key] = JSON.parse(await readFile(join(dir, `${key}.json`), 'utf8'));
    } catch (error) {
      throw new Error(`cannot read ${key}.json in ${dir} (run "fetch" first): ${error.message}`, { cause: error });
    }
  }
  return docs;
}

// ---------------------------------------------------------------- schemas, normalised

/**
 * One schema node with $ref and allOf resolved (`resolve(ref)` gives the schema a $ref names): the non-null
 * types, nullability (3.0 `nullable`, 3.1 `type: [..., "null"]` or a `{type: "null"}` branch), format, enum
 * (const as a one-value enum), pattern, properties (raw, normalised on demand), required, items, the
 * anyOf/oneOf branches that are not null, and the $refs met (`refs`).
 * @typedef {{ refs: string[], types: Set<string>, nullable: boolean, format: string | undefined, enum: unknown[] | undefined,
 *   pattern: string | undefined, properties: Map<string, object>, additional: object | undefined, required: Set<string>,
 *   items: object | undefined, branches: object[] | undefined }} Normalised
 */
function normaliseWith(resolve, schema) {
  /** @type {Normalised} */
  const out = { refs: [], types: new Set(), nullable: false, format: undefined, enum: undefined, pattern: undefined, properties: new Map(), additional: undefined, required: new Set(), items: undefined, branches: undefined };
  const visit = (s) => {
    if (!s || typeof s !== 'object') return;
    if (s.$ref) {
      out.refs.push(s.$ref);
      visit(resolve(s.$ref));
    }
    if (s.nullable === true) out.nullable = true;
    for (const t of [s.type ?? []].flat()) t === 'null' ? (out.nullable = true) : out.types.add(t);
    if (s.format && !out.format) out.format = s.format;
    if (s.pattern && !out.pattern) out.pattern = s.pattern;
    const values = s.enum ?? (s.const !== undefined ? [s.const] : undefined);
    if (values) {
      if (values.includes(null)) out.nullable = true;
      const nonNull = values.filter((v) => v !== null);
      out.enum = out.enum ? out.enum.filter((v) => nonNull.includes(v)) : nonNull;
    }
    for (const [name, prop] of Object.entries(s.properties ?? {})) {
      // A property given twice (own and through allOf) must satisfy both.
      const before = out.properties.get(name);
      out.properties.set(name, before ? { allOf: [before, prop] } : prop);
    }
    for (const name of s.required ?? []) out.required.add(name);
    if (s.additionalProperties && typeof s.additionalProperties === 'object') out.additional = s.additionalProperties;
    if (s.items) out.items = out.items ? { allOf: [out.items, s.items] } : s.items;
    for (const part of s.allOf ?? []) visit(part);
    const alternatives = s.anyOf ?? s.oneOf;
    if (alternatives) {
      const real = alternatives.filter((alt) => !(alt.type === 'null' || (Array.isArray(alt.type) && alt.type.length === 1 && alt.type[0] === 'null')));
      if (real.length < alternatives.length) out.nullable = true;
      // One real alternative (`oneOf: [X, {type: null}]`) is X, nullable.
      if (real.length === 1) visit(real[0]);
      else if (real.length > 1) out.branches = [...(out.branches ?? []), ...real];
    }
  };
  visit(schema);
  if (out.types.size === 0 && out.properties.size > 0) out.types.add('object');
  return out;
}

/** An upstream schema node ($refs to the document's components); `names` are the schemas its $refs name. */
export function normalise(doc, schema) {
  const out = normaliseWith((ref) => {
    const target = doc.components.schemas[ref.split('/').pop()];
    if (!target) throw new Error(`unresolved ${ref}`);
    return target;
  }, schema);
  return { ...out, names: out.refs.map((ref) => ref.split('/').pop()) };
}

/** A fragment node with its $ref (to another fragment, by $id) resolved, in the same shape as `normalise`. */
export function normaliseFragment(fragments, schema) {
  return normaliseWith((ref) => {
    const target = fragments.get(ref);
    if (!target) throw new Error(`fragment $ref ${ref} does not exist`);
    return target.schema;
  }, schema);
}

// ---------------------------------------------------------------- comparison

const fmt = (values) => JSON.stringify(values);

/**
 * The differences between our fragment node and an upstream node, looser-than-upstream only: a property
 * we declare that upstream lacks, another type, format, pattern or enum value, nullable where upstream is
 * not, a property upstream requires that we do not. Stricter is fine (integer for number, a subset of an
 * enum, required where upstream is optional, not nullable where upstream is).
 */
export function compare(ctx, ours, theirs, path, depth = 0) {
  const { fragments, doc, key } = ctx;
  const diffs = [];
  if (depth > 40) return diffs;
  // A fragment that names this upstream schema is checked on its own: not again here.
  if (ours.$ref) {
    const own = fragments.get(ours.$ref)?.schema['x-upstream'] ?? [];
    if (normalise(doc, theirs).names.some((name) => own.includes(`${key}:${name}`))) return diffs;
  }
  const f = normaliseFragment(fragments, ours);
  const u = normalise(doc, theirs);
  const add = (rule, detail) => diffs.push({ path: path || '(root)', rule, detail });

  if (f.branches) {
    // Each of our variants must match one of theirs (or the whole when they have none).
    for (const [i, branch] of f.branches.entries()) {
      const candidates = u.branches ?? [theirs];
      const tries = candidates.map((candidate) => compare(ctx, branch, candidate, `${path}<${i}>`, depth + 1));
      diffs.push(...tries.reduce((best, d) => (d.length < best.length ? d : best)));
    }
    return diffs;
  }
  if (u.branches) {
    const tries = u.branches.map((candidate) => compare(ctx, ours, withNullable(candidate, u.nullable), path, depth + 1));
    const best = tries.reduce((b, d) => (d.length < b.length ? d : b));
    if (best.length) diffs.push(...best.map((d) => ({ ...d, detail: `${d.detail} (closest of ${u.branches.length} upstream variants)` })));
    return diffs;
  }

  for (const t of f.types) {
    if (u.types.size === 0 || u.types.has(t) || (t === 'integer' && u.types.has('number'))) continue;
    add('type', `ours ${t}, upstream ${[...u.types].join('|')}`);
  }
  if (f.nullable && !u.nullable) add('nullable', 'nullable here, not upstream');
  if (u.format && f.format !== u.format) add('format', `ours ${f.format ?? 'none'}, upstream ${u.format}`);
  if (u.pattern && f.pattern !== u.pattern) add('pattern', `ours ${f.pattern ?? 'none'}, upstream ${u.pattern}`);
  if (u.enum) {
    if (!f.enum) add('enum', `ours none, upstream ${fmt(u.enum)}`);
    else {
      const extra = f.enum.filter((v) => !u.enum.includes(v));
      if (extra.length) add('enum', `ours has ${fmt(extra)}, upstream ${fmt(u.enum)}`);
    }
  }
  for (const name of u.required) if (!f.required.has(name)) add('required', `upstream requires "${name}"`);
  for (const [name, prop] of f.properties) {
    const theirsProp = u.properties.get(name);
    const at = path ? `${path}.${name}` : name;
    if (!theirsProp) {
      // A free-form upstream object (metadata) has no properties to compare with.
      if (u.properties.size > 0) diffs.push({ path: at, rule: 'missing', detail: 'not in the upstream schema' });
      continue;
    }
    diffs.push(...compare(ctx, prop, theirsProp, at, depth + 1));
  }
  if (f.additional) {
    if (u.additional) diffs.push(...compare(ctx, f.additional, u.additional, `${path}{*}`, depth + 1));
    else if (u.properties.size > 0) add('additionalProperties', 'upstream has named properties only');
  }
  if (f.items) {
    if (u.items) diffs.push(...compare(ctx, f.items, u.items, `${path}[]`, depth + 1));
    else if (u.types.size && !u.types.has('array')) add('items', 'upstream is not an array');
  }
  return diffs;
}

function withNullable(schema, nullable) {
  return nullable ? { anyOf: [schema, { type: 'null' }] } : schema;
}

/** Every difference of every fragment that names its upstream schemas (`x-upstream`: ["ro:Name", …]). */
export function checkAll(fragments, docs) {
  const found = [];
  for (const [id, { schema }] of fragments) {
    for (const source of schema['x-upstream'] ?? []) {
      const [key, name] = source.split(':');
      const doc = docs[key];
      if (!doc) throw new Error(`${id}: unknown upstream file "${key}"`);
      const upstream = doc.components.schemas[name];
      if (!upstream) {
        found.push({ fragment: id, source, path: '(root)', rule: 'missing', detail: `no schema ${name} in ${key}` });
        continue;
      }
      for (const d of compare({ fragments, doc, key }, schema, upstream, '')) found.push({ fragment: id, source, ...d });
    }
  }
  return found;
}

const keyOf = (d) => `${d.fragment} ${d.source} ${d.path} ${d.rule}`;

async function check(dir) {
  const [fragments, docs] = [await loadFragments(), await loadUpstream(dir)];
  const listed = JSON.parse(await readFile(DIFFERENCES_FILE, 'utf8'));
  const found = checkAll(fragments, docs);
  const deliberate = new Map(listed.map((d) => [keyOf(d), d]));
  const unlisted = found.filter((d) => !deliberate.has(keyOf(d)));
  const foundKeys = new Set(found.map(keyOf));
  const stale = listed.filter((d) => !foundKeys.has(keyOf(d)));
  const roots = [...fragments.values()].filter((f) => f.schema['x-upstream']).length;
  console.log(`${fragments.size} fragments, ${roots} with upstream schemas, compared with ${REPOSITORY}@${COMMIT.slice(0, 12)} in ${dir}`);
  for (const d of found.filter((x) => deliberate.has(keyOf(x)))) console.log(`  deliberate  ${d.fragment} [${d.source}] ${d.path}: ${d.rule}: ${d.detail} — ${deliberate.get(keyOf(d)).reason}`);
  for (const d of unlisted) console.log(`  DIFFERENCE  ${d.fragment} [${d.source}] ${d.path}: ${d.rule}: ${d.detail}`);
  for (const d of stale) console.log(`  STALE       ${d.fragment} [${d.source}] ${d.path}: ${d.rule}: listed in upstream-differences.json but no longer found`);
  if (unlisted.length || stale.length) {
    console.log(`${unlisted.length} unlisted difference(s), ${stale.length} stale entry(ies)`);
    process.exitCode = 1;
  } else console.log(`no difference beyond the ${listed.length} listed in test/contract/voucherify/upstream-differences.json`);
}

/** Voucherify's examples of a schema: of the responses and webhooks whose body is that schema, and the schema's own. */
function examplesOf(doc, name) {
  const found = [];
  const isIt = (schema) => schema && (schema.$ref?.split('/').pop() === name || (schema.type === 'array' && schema.items?.$ref?.split('/').pop() === name));
  const collect = (where, content, schema) => {
    for (const [label, example] of Object.entries(content.examples ?? {})) found.push({ where: `${where} (${label})`, value: example.value, array: schema.type === 'array' });
    if (content.example !== undefined) found.push({ where, value: content.example, array: schema.type === 'array' });
  };
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      for (const [status, response] of Object.entries(operation?.responses ?? {})) {
        const content = response.content?.['application/json'];
        if (content && isIt(content.schema)) collect(`${method.toUpperCase()} ${path} ${status}`, content, content.schema);
      }
    }
  }
  for (const [event, item] of Object.entries(doc.webhooks ?? {})) {
    const content = item.post?.requestBody?.content?.['application/json'];
    if (content && isIt(content.schema)) collect(`webhook ${event}`, content, content.schema);
  }
  const own = doc.components.schemas[name];
  if (own?.example !== undefined) found.push({ where: `schema ${name}`, value: own.example, array: false });
  return found;
}

async function examples(dir) {
  const { Ajv } = await import('ajv');
  const addFormats = (await import('ajv-formats')).default;
  const [fragments, docs] = [await loadFragments(), await loadUpstream(dir)];
  const ajv = new Ajv({ allErrors: true, allowUnionTypes: true, strict: true });
  (addFormats.default ?? addFormats)(ajv, ['date', 'date-time']);
  ajv.addKeyword({ keyword: 'x-upstream', schemaType: 'array' });
  for (const { schema } of fragments.values()) ajv.addSchema(schema);
  let count = 0;
  const lines = new Map();
  for (const [id, { schema }] of fragments) {
    for (const source of schema['x-upstream'] ?? []) {
      const [key, name] = source.split(':');
      for (const example of examplesOf(docs[key], name)) {
        const validate = ajv.getSchema(id);
        for (const value of example.array && Array.isArray(example.value) ? example.value : [example.value]) {
          count += 1;
          if (validate(value)) continue;
          const errors = validate.errors;
          // Our fragments describe the variants we answer: an example of another variant is no contradiction.
          const variants = errors.filter((e) => e.keyword === 'anyOf' && !errors.some((x) => x.keyword === 'type' && x.params.type === 'null' && x.instancePath === e.instancePath)).map((e) => e.instancePath);
          for (const e of errors) {
            if (e.keyword === 'anyOf' || (e.keyword === 'type' && e.params.type === 'null')) continue;
            if (variants.some((v) => e.instancePath === v || e.instancePath.startsWith(`${v}/`))) continue;
            const detail = e.keyword === 'required' ? `lacks "${e.params.missingProperty}"` : `${e.message}${e.keyword === 'enum' ? ` ${JSON.stringify(e.params.allowedValues)}` : ''}`;
            const line = `${id}: ${example.where}: ${e.instancePath || '/'} ${detail}`;
            lines.set(line, [...new Set([...(lines.get(line) ?? []), key])]);
          }
        }
      }
    }
  }
  for (const [line, keys] of lines) console.log(`${line} [${keys.join(', ')}]`);
  console.log(`${count} examples validated`);
}

async function fetchAll(dir) {
  await mkdir(dir, { recursive: true });
  for (const [key, path] of Object.entries(FILES)) {
    const url = `https://raw.githubusercontent.com/${REPOSITORY}/${COMMIT}/${path}`;
    const res = await fetch(url).catch((error) => {
      throw new Error(`${url}: ${error.message}${error.cause ? ` (${error.cause.code ?? error.cause.message})` : ''}`);
    });
    if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
    const text = await res.text();
    JSON.parse(text); // refuse to store anything but JSON
    await writeFile(join(dir, `${key}.json`), text);
    console.log(`${key}.json  ← ${path} (${text.length} bytes)`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [command, dir = DEFAULT_DIR] = process.argv.slice(2);
  const run = { fetch: fetchAll, check, examples }[command];
  if (!run) {
    console.error('usage: node scripts/voucherify-schemas.mjs fetch|check|examples [dir]');
    process.exit(2);
  }
  run(dir).catch((error) => {
    console.error(error.message);
    process.exit(1);
  });
}
