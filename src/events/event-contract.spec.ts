import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { envelopeOf } from './delivery/webhook-envelope.js';
import type { AttemptContext } from './delivery/delivery.types.js';
import { EVENT_CATALOGUE, EVENT_TYPES } from './event-catalogue.js';
import { loadEventSchemas } from './event-schemas.js';

// ajv-formats is CommonJS: under Node's ESM loader its default import is module.exports, the plugin itself.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as typeof addFormatsModule.default;

/** The event types' contract: each type's sample, as every test delivery sends it, is a valid instance of its schema. */
describe('event contract', () => {
  const schemas = loadEventSchemas();
  const ajv = new Ajv({ allErrors: true, allowUnionTypes: true, strict: true });
  addFormats(ajv, ['date', 'date-time']);
  ajv.addKeyword({ keyword: 'x-upstream', schemaType: 'array' });
  for (const schema of schemas) ajv.addSchema(schema);

  /** One line per broken rule: where in the value, and what. */
  const violations = (schema: string, value: unknown): string[] => {
    const validate = ajv.getSchema(schema);
    if (!validate) return [`no schema ${schema}`];
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${schema} ${e.instancePath || '/'} ${e.message ?? e.keyword}`);
  };

  /** A test delivery of `trigger`, as the worker reads it. */
  const testDelivery = (trigger: string): AttemptContext => ({
    id: 'whs_0123456789abcdef01',
    projectId: 'proj_0123456789abcdef01',
    createdAt: new Date('2026-11-23T15:13:36.577Z'),
    attemptsCount: 0,
    firstAttemptAt: null,
    manual: true,
    test: true,
    distributionId: 'distr_0123456789abcdef01',
    targetUrl: 'https://example.com/hooks',
    customHeaders: {},
    eventName: null,
    trigger,
    event: null,
    secret: null,
  });

  it('has every schema once, and every type names one of them', () => {
    const ids = schemas.map((schema) => schema.$id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(() => ajv.getSchema(id)).not.toThrow(); // compiles, every $ref found
    expect(EVENT_TYPES.map((type) => EVENT_CATALOGUE[type].schema).filter((id) => !ids.includes(id))).toEqual([]);
  });

  it('makes every test delivery a valid instance of its type (its data), in a valid envelope', () => {
    const found = EVENT_TYPES.flatMap((type) => {
      const body = JSON.parse(envelopeOf(testDelivery(type))) as { data: unknown };
      return [...violations('WebhookDistributionPayload', body), ...violations(EVENT_CATALOGUE[type].schema, body.data)].map((line) => `${type}: ${line}`);
    });
    expect(found).toEqual([]);
  });
});
