// Every event a test run recorded, checked against its type's schema before the run's database is dropped
// (global-teardown.mjs): whatever suite made it, through the API, the worker or a test's own INSERT. A type's
// schema is the one its event catalogue entry names (src/events/schemas/); `event_source` is checked too.
// Like global setup, this file runs outside jest's module graph, on the compiled service.
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import pg from 'pg';
import { EVENT_CATALOGUE } from '../../dist/events/event-catalogue.js';
import { loadEventSchemas } from '../../dist/events/event-schemas.js';

// ajv-formats is CommonJS: under Node's ESM loader its default import is module.exports, the plugin itself.
const addFormats = addFormatsModule.default ?? addFormatsModule;
/** Rows read per round trip, through a cursor: memory stays bounded whatever the run recorded. */
const BATCH = 2_000;
/** At most this many lines are listed (each a place and rule, counted over the events that break it). */
const MAX_LINES = 50;

/**
 * One Ajv per process, its validators compiled on first use: a jest worker checks file after file, and
 * compiling the schemas again for each cost more than checking its events.
 */
let shared;
function eventsAjv() {
  if (shared) return shared;
  const ajv = new Ajv({ allErrors: true, allowUnionTypes: true, strict: true });
  addFormats(ajv, ['date', 'date-time']);
  ajv.addKeyword({ keyword: 'x-upstream', schemaType: 'array' });
  for (const schema of loadEventSchemas()) ajv.addSchema(schema);
  shared = ajv;
  return ajv;
}

/**
 * The violations of the events in `databaseUrl`'s `events` table: one line per type, place and rule, with
 * how many events break it and one of them. Empty when every event keeps its contract.
 */
export async function recordedEventViolations(databaseUrl) {
  const ajv = eventsAjv();
  const eventSource = ajv.getSchema('EventSource');
  const found = new Map();
  const add = (key, eventId) => found.set(key, { count: (found.get(key)?.count ?? 0) + 1, example: found.get(key)?.example ?? eventId });
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let checked = 0;
  try {
    await client.query('BEGIN READ ONLY');
    await client.query('DECLARE recorded NO SCROLL CURSOR FOR SELECT id, type, event_source, data::text AS data FROM events');
    for (;;) {
      const { rows } = await client.query(`FETCH ${BATCH} FROM recorded`);
      for (const row of rows) {
        checked += 1;
        const entry = Object.hasOwn(EVENT_CATALOGUE, row.type) ? EVENT_CATALOGUE[row.type] : undefined;
        if (!entry) {
          add(`${row.type}  type: not in the event catalogue`, row.id);
          continue;
        }
        const validate = ajv.getSchema(entry.schema);
        for (const [schema, check, value] of [[entry.schema, validate, JSON.parse(row.data)], ['EventSource', eventSource, row.event_source]]) {
          if (check(value)) continue;
          for (const e of check.errors) add(`${row.type}  ${e.instancePath.replace(/\/\d+(?=\/|$)/g, '/*') || '/'}  ${e.message}${e.keyword === 'enum' ? ` ${JSON.stringify(e.params.allowedValues)}` : ''}  [${schema}]`, row.id);
        }
      }
      if (rows.length < BATCH) break;
    }
    await client.query('COMMIT');
  } finally {
    await client.end();
  }
  const lines = [...found].map(([key, { count, example }]) => `${key}  ×${count}, e.g. ${example}`).sort();
  return { checked, lines: lines.length > MAX_LINES ? [...lines.slice(0, MAX_LINES), `… and ${lines.length - MAX_LINES} more`] : lines };
}
