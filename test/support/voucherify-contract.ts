import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { loadEventSchemas } from '../../src/events/event-schemas.js';

// ajv-formats is CommonJS: under Node's ESM loader its default import is module.exports, the plugin itself.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as typeof addFormatsModule.default;

/**
 * Our fragments of Voucherify's schemas (docs/decisions.md, "Answers that match Voucherify's schemas"): the
 * answers' here, the events' (and the pieces both use) with the event catalogue, src/events/schemas/.
 */
export const FRAGMENTS_DIR = new URL('../contract/voucherify/', import.meta.url).pathname;

/** One way an answer breaks a fragment. */
export interface Mismatch {
  /** The operation or webhook, e.g. `GET /v1/loyalties/members/{memberId}`. */
  operation: string;
  /** Where in the body, e.g. `$.data[0].activates_at`. */
  at: string;
  /** The fragment whose rule is broken, and the rule's place in it: `LoyaltyPendingPoints activates_at`. */
  schema: string;
  path: string;
  /** The JSON Schema keyword (`required`, `type`, `format`, `enum`, `status`…) and what happened. */
  rule: string;
  detail: string;
}

/** A difference we keep on purpose: the fragment, the place in it, the rule, and why. */
export interface Deliberate {
  schema: string;
  path: string;
  rule: string;
  reason: string;
}

export function loadFragments(dir = FRAGMENTS_DIR): object[] {
  const answers = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.json') && !file.endsWith('upstream-differences.json'))
    .map((file) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as object);
  return [...answers, ...loadEventSchemas()];
}

/** Validates bodies against the fragments and collects every mismatch (none is thrown). */
export class ContractChecker {
  readonly mismatches: Mismatch[] = [];
  private readonly ajv = new Ajv({ allErrors: true, allowUnionTypes: true, strict: true });
  private readonly fragments = new Map<string, Fragment>();

  constructor(fragments = loadFragments()) {
    addFormats(this.ajv, ['date', 'date-time']);
    this.ajv.addKeyword({ keyword: 'x-upstream', schemaType: 'array' });
    for (const fragment of fragments) {
      this.ajv.addSchema(fragment);
      this.fragments.set((fragment as Fragment).$id ?? '', fragment);
    }
    // Compiled now, so that a broken fragment fails before the scenario runs.
    for (const id of this.fragments.keys()) this.validator(id);
  }

  private validator(id: string): ValidateFunction {
    const validate = this.ajv.getSchema(id);
    if (!validate) throw new Error(`no fragment ${id}`);
    return validate;
  }

  /** Checks one answer: its status, then (if that is the expected one) its body against the fragment `schema`, if any. */
  answer(operation: string, schema: string | undefined, res: { status: number; body: unknown }, status = 200): void {
    if (res.status !== status) this.add({ operation, at: '(status)', schema: schema ?? '-', path: '(status)', rule: 'status', detail: `expected ${status}, got ${res.status}: ${JSON.stringify(res.body).slice(0, 200)}` });
    else if (schema) this.body(operation, schema, res.body);
  }

  body(operation: string, schema: string, body: unknown): void {
    const validate = this.validator(schema);
    if (validate(body)) return;
    for (const error of relevant(validate.errors ?? [], body)) this.add({ operation, ...describe(this.fragments, schema, error, body) });
  }

  add(mismatch: Mismatch): void {
    this.mismatches.push(mismatch);
  }

  /**
   * Every mismatch not listed as deliberate, one line each, and every deliberate entry that matched
   * nothing in this run (the list must stay honest): empty when the answers keep the contract.
   */
  report(deliberate: Deliberate[]): string[] {
    const listed = (m: Mismatch) => deliberate.find((d) => d.schema === m.schema && d.path === m.path && d.rule === m.rule);
    // One line per operation, place and rule: the array indexes where it happens are counted, not listed.
    const lines: string[] = [];
    const seen = new Map<string, number>();
    for (const m of this.mismatches.filter((x) => !listed(x))) {
      const line = `${m.operation}  ${m.at.replace(/\[\d+\]/g, '[*]')}  ${m.rule}: ${m.detail.replace(/"\d{4}-\d\d-\d\dT[^"]*"/g, '"<date-time>"').replace(/"v_[A-Za-z0-9]+"/g, '"v_…"')}  [${m.schema} ${m.path}]`;
      if (!seen.has(line)) lines.push(line);
      seen.set(line, (seen.get(line) ?? 0) + 1);
    }
    for (const [i, line] of lines.entries()) if ((seen.get(line) ?? 1) > 1) lines[i] = `${line} (×${seen.get(line)})`;
    // Operations in the order they ran; within one, sorted (items of a list, webhooks of a type arrive in any order).
    const order = [...new Set(this.mismatches.map((m) => m.operation))];
    const rank = (line: string) => order.findIndex((op) => line.startsWith(`${op}  `));
    lines.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
    for (const d of deliberate) {
      if (!this.mismatches.some((m) => listed(m) === d)) lines.push(`DELIBERATE entry no longer occurs: [${d.schema} ${d.path}] ${d.rule} (${d.reason})`);
    }
    return lines;
  }
}

/** ajv's errors less the noise of nullable references: the `null` branch and the anyOf summary of a value that is not null. */
function relevant(errors: ErrorObject[], body: unknown): ErrorObject[] {
  const others = (e: ErrorObject) => errors.some((x) => x !== e && x.keyword !== 'anyOf' && !(x.keyword === 'type' && x.params.type === 'null') && x.instancePath.startsWith(e.instancePath));
  return errors.filter((e) => {
    const value = valueAt(body, e.instancePath);
    if (e.keyword === 'type' && e.params.type === 'null' && value !== null && /\/anyOf\/\d+\/type$/.test(e.schemaPath)) return false;
    if (e.keyword === 'anyOf' && others(e)) return false;
    return true;
  });
}

function valueAt(body: unknown, pointer: string): unknown {
  let value = body;
  for (const part of pointer.split('/').slice(1)) value = (value as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return value;
}

/** `/data/0/activates_at` → `$.data[0].activates_at`. */
function jsonPath(pointer: string, extra?: string): string {
  const parts = pointer.split('/').slice(1);
  if (extra) parts.push(extra);
  return `$${parts.map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`)).join('')}`;
}

type Fragment = { $id?: string; $ref?: string; properties?: Record<string, Fragment>; items?: Fragment; additionalProperties?: Fragment | boolean; anyOf?: Fragment[]; allOf?: Fragment[] };

/**
 * The fragment that holds the rule an error broke, and the rule's place in it: the instance path walked
 * through the fragments from `root` (ajv's own schemaPath is relative to whichever schema it compiled
 * separately, so it does not say which).
 */
function locate(fragments: Map<string, Fragment>, root: string, pointer: string): { schema: string; path: string } {
  let schema = root;
  let node: Fragment | undefined = fragments.get(root);
  let path = '';
  const deref = () => {
    for (let hops = 0; node && hops < 10; hops += 1) {
      if (node.$ref) {
        schema = node.$ref;
        path = '';
        node = fragments.get(node.$ref);
      } else if (node.anyOf) {
        const branches: Fragment[] = node.anyOf.filter((b) => (b as { type?: unknown }).type !== 'null');
        const [first] = branches;
        if (branches.length > 1) return; // several variants: the place stays at the anyOf
        node = first;
      } else return;
    }
  };
  for (const part of pointer.split('/').slice(1)) {
    deref();
    // A fragment that extends another (`allOf: [{$ref}]` beside its own properties): the other holds the rest.
    if (node?.allOf && !node.properties?.[part]) {
      node = node.allOf[0];
      deref();
    }
    if (!node) break;
    if (/^\d+$/.test(part) && node.items) {
      node = node.items;
      path += '[]';
    } else if (node.properties?.[part]) {
      node = node.properties[part];
      path += `${path ? '.' : ''}${part}`;
    } else if (node.additionalProperties && typeof node.additionalProperties === 'object') {
      node = node.additionalProperties;
      path += '{*}';
    } else {
      path += `${path ? '.' : ''}${part}`;
      node = undefined;
    }
  }
  deref();
  return { schema, path };
}

function describe(fragments: Map<string, Fragment>, root: string, e: ErrorObject, body: unknown): Omit<Mismatch, 'operation'> {
  const { schema, path } = locate(fragments, root, e.instancePath);
  const value = valueAt(body, e.instancePath);
  const shown = (v: unknown) => (v === undefined ? 'nothing' : JSON.stringify(v)?.slice(0, 80));
  switch (e.keyword) {
    case 'required': {
      const name = String(e.params.missingProperty);
      return { at: jsonPath(e.instancePath, name), schema, path: path ? `${path}.${name}` : name, rule: 'required', detail: 'missing' };
    }
    case 'type':
      return { at: jsonPath(e.instancePath), schema, path: path || '(root)', rule: 'type', detail: `must be ${e.params.type}, is ${shown(value)}` };
    case 'format':
      return { at: jsonPath(e.instancePath), schema, path: path || '(root)', rule: 'format', detail: `must be a ${e.params.format}, is ${shown(value)}` };
    case 'enum':
      return { at: jsonPath(e.instancePath), schema, path: path || '(root)', rule: 'enum', detail: `${shown(value)} is not one of ${JSON.stringify(e.params.allowedValues)}` };
    case 'pattern':
      return { at: jsonPath(e.instancePath), schema, path: path || '(root)', rule: 'pattern', detail: `${shown(value)} does not match ${e.params.pattern}` };
    default:
      return { at: jsonPath(e.instancePath), schema, path: path || '(root)', rule: e.keyword, detail: e.message ?? '' };
  }
}
