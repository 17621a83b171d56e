import { loadConfig } from '../../dist/config/app-config.js';
import { dropDatabase } from '../../dist/database/ensure-database.js';
import { deleteKeysWithPrefix } from '../../dist/queue/redis-keys.js';
import { recordedEventViolations } from './recorded-events.mjs';

export default async function globalTeardown() {
  const config = loadConfig();
  let violations;
  try {
    // Before the database goes: every event the run recorded keeps its type's contract.
    violations = await recordedEventViolations(config.databaseUrl);
  } finally {
    await dropDatabase(config.databaseUrl);
    await deleteKeysWithPrefix(config.redisUrl, config.queuePrefix);
  }
  if (violations.lines.length) {
    throw new Error(`${violations.lines.length} way(s) in which recorded events break their type's schema (of ${violations.checked} events; src/events/schemas/):\n  ${violations.lines.join('\n  ')}`);
  }
}
