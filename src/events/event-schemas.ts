import { readdirSync, readFileSync } from 'node:fs';
import { EVENT_CATALOGUE, type EventType } from './event-catalogue.js';

/** A JSON Schema (draft 2020-12 as ajv reads it) of src/events/schemas/, named by its `$id`. */
export interface JsonSchema {
  $id: string;
  [keyword: string]: unknown;
}

/**
 * The schemas of the events' payloads, the server side of the event catalogue (whose entries name their
 * type's schema by `$id`; the catalogue itself has no imports, for the dashboard's build). The files are
 * Voucherify's fragments (structure only, `x-upstream` naming the upstream schemas; docs/decisions.md,
 * "Answers that match Voucherify's schemas") and ours for the types Voucherify has not (`$comment` says so):
 * `events/` holds each type's `data` and the webhook envelope, `common/` the pieces they reference by `$id`.
 * The build copies them next to the compiled code (scripts/compile.mjs), as it does the SQL functions.
 *
 * Nothing validates against them at run time (ajv is a development dependency): the unit test checks every
 * type's sample, the e2e runs check every event they record (test/setup/recorded-events.mjs), and the
 * contract test checks the webhooks it receives.
 */
export const EVENT_SCHEMAS_DIRECTORY = new URL('./schemas/', import.meta.url);

/** Every schema of src/events/schemas/ (the event types' and the pieces they reference). */
export function loadEventSchemas(directory: URL = EVENT_SCHEMAS_DIRECTORY): JsonSchema[] {
  return readdirSync(directory, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => JSON.parse(readFileSync(new URL(file, directory), 'utf8')) as JsonSchema);
}

/** The `$id` of the schema of a type's `data`. */
export function eventSchemaId(type: EventType): string {
  return EVENT_CATALOGUE[type].schema;
}
