import { writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { NestFactory } from '@nestjs/core';
import { Module } from '@nestjs/common';
import { AuthModule } from '../../auth/auth.module.js';
import { FIRST_KEY_NAME } from '../../auth/app-key.entity.js';
import { AuthService } from '../../auth/auth.service.js';
import { loadConfigOrExit } from '../../config/app-config.js';
import { AppConfigModule } from '../../config/config.module.js';
import { DatabaseModule } from '../database/database.module.js';
import { migrateDatabase, migrateOnStart } from '../database/migrate.js';

const USAGE = `Usage: node dist/cli.js <command>

Commands:
  migrate                          create the database if missing and apply pending migrations (on
                                   DATABASE_SESSION_URL), whatever MIGRATE_ON_START says; the other
                                   commands migrate first unless MIGRATE_ON_START=false
  create-project [--name <name>] [--key-name <name>]
                                   create a project and print its first application key as JSON; the key
                                   is named Primary unless --key-name names it (events carry the name)
  rotate-key <project_id> [--name <name>]
                                   add an application key to the project and print it as JSON (the token
                                   is shown only this once); the project's other keys stay valid until revoked.
                                   Without --name: Primary if the project has no other key, else Key <date>
  list-keys <project_id>           print the project's keys (app id, name, creation time; never tokens) as JSON
  revoke-key <app_id> [--last]     delete an application key; API processes stop accepting it within
                                   APP_KEY_CACHE_MS. A project's last key is kept unless --last is given
  set-feature <project_id> areas_and_stores on|off
                                   turn a per-project feature on or off (Areas and Stores: campaigns
                                   accept access_settings and show access_settings_assignments)
  set-time-zone <project_id> <zone>
                                   the IANA time zone of the project's days (default UTC): points expire
                                   at 00:00 after their last day there; buckets not yet expired follow
  expiry-set-aside [--project <project_id>] [--release <card_id>]... [--release-all]
                                   the cards whose point expiry failed and that the worker set aside (as
                                   JSON, at most 1,000); with --release (repeatable) or --release-all (of
                                   --project, or of every project), release them: the next sweep expires
                                   their due buckets (docs/points-expiry.md)
  openapi [<file>]                 write the OpenAPI document (sorted keys) to <file> or stdout
  worker-health [--any]            exit 0 if a worker on this host (any host with --any) wrote its heartbeat
                                   to Redis in the last 15 s, else 1; prints the live ones as JSON
  encrypt-secrets                  rewrite every webhook secret and distribution custom headers not stored
                                   under the current DATA_ENCRYPTION_KEY (plain ones, and those sealed under
                                   DATA_ENCRYPTION_PREVIOUS_KEYS); with no key set, store them plain again.
                                   Safe beside a running service, and to run again; prints counts as JSON
                                   and exits 1 if a value could not be decrypted (docs/operations.md)
  seed --members <n> [--project-name <name>]
                                   for benchmarks: a new project and key, an AUTO_UPDATE loyalty campaign
                                   and <n> members (1-10,000,000), each with a customer and a card, bulk
                                   inserted; prints {project_id, app_id, app_token, campaign_id,
                                   program_id, members, seconds} as one JSON line (progress on stderr)
`;

// Each command imports the modules it wires when it runs (`await import`): loading the whole API for a
// command that needs the auth module alone cost most of a short command's start.

/** Runs `work` with the auth module on a migrated database. */
async function withAuth(work: (auth: AuthService) => Promise<void>): Promise<void> {
  const config = loadConfigOrExit();
  await migrateOnStart(config);
  @Module({ imports: [AppConfigModule.forRoot(config), DatabaseModule, AuthModule] })
  class CliModule {}
  const app = await NestFactory.createApplicationContext(CliModule, { logger: ['error'] });
  try {
    await work(app.get(AuthService));
  } finally {
    await app.close();
  }
}

/** A project's or a key's name: 1-200 characters once trimmed. */
function checkedName(option: string, value: string): string {
  const name = value.trim();
  if (!name || name.length > 200) throw new Error(`${option} must be 1-200 characters`);
  return name;
}

async function createProject(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { name: { type: 'string', default: 'My project' }, 'key-name': { type: 'string', default: FIRST_KEY_NAME } } });
  const name = checkedName('--name', values.name);
  const keyName = checkedName('--key-name', values['key-name']);
  await withAuth(async (auth) => {
    const created = await auth.createProject(name, keyName);
    process.stdout.write(`${JSON.stringify(created, null, 2)}\n`);
  });
}

async function rotateKey(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { name: { type: 'string' } } });
  if (positionals.length !== 1) throw new Error('usage: rotate-key <project_id> [--name <name>]');
  const name = values.name === undefined ? null : checkedName('--name', values.name);
  await withAuth(async (auth) => {
    const created = await auth.addKey(positionals[0], name);
    process.stdout.write(`${JSON.stringify(created, null, 2)}\n`);
  });
}

async function listKeys(argv: string[]): Promise<void> {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, options: {} });
  if (positionals.length !== 1) throw new Error('usage: list-keys <project_id>');
  await withAuth(async (auth) => {
    const keys = await auth.listKeys(positionals[0]);
    const listed = keys.map((key) => ({ app_id: key.appId, name: key.name, created_at: key.createdAt.toISOString() }));
    process.stdout.write(`${JSON.stringify({ project_id: positionals[0], keys: listed }, null, 2)}\n`);
  });
}

async function revokeKey(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { last: { type: 'boolean', default: false } } });
  if (positionals.length !== 1) throw new Error('usage: revoke-key <app_id> [--last]');
  const appId = positionals[0];
  await withAuth(async (auth) => {
    const outcome = await auth.revokeKey(appId, values.last);
    if (outcome.revoked) {
      process.stdout.write(`${JSON.stringify({ revoked: appId, project_id: outcome.projectId })}\n`);
      return;
    }
    throw new Error(
      outcome.reason === 'unknown'
        ? `No application key ${appId}`
        : `${appId} is its project's last key: revoking it leaves the project unreachable. Create another with rotate-key first, or pass --last`,
    );
  });
}

async function setFeature(argv: string[]): Promise<void> {
  const [projectId, feature, state] = argv;
  if (!projectId || feature !== 'areas_and_stores' || (state !== 'on' && state !== 'off')) {
    throw new Error('usage: set-feature <project_id> areas_and_stores on|off');
  }
  await withAuth(async (auth) => {
    await auth.setAreasAndStores(projectId, state === 'on');
    process.stdout.write(`${feature} is ${state} for ${projectId}\n`);
  });
}

async function setTimeZone(argv: string[]): Promise<void> {
  const [projectId, zone] = argv;
  if (!projectId || !zone) throw new Error('usage: set-time-zone <project_id> <zone>');
  const [{ DatabaseKitModule }, { CardsModule }, { BucketRepository }, { BucketScheduleService }] = await Promise.all([
    import('../../database/database-kit.module.js'),
    import('../../cards/cards.module.js'),
    import('../../points/buckets/bucket.repository.js'),
    import('../../points/buckets/bucket-schedule.service.js'),
  ]);
  const config = loadConfigOrExit();
  await migrateOnStart(config);
  @Module({ imports: [AppConfigModule.forRoot(config), DatabaseModule, DatabaseKitModule, CardsModule, AuthModule], providers: [BucketRepository, BucketScheduleService] })
  class TimeZoneModule {}
  const app = await NestFactory.createApplicationContext(TimeZoneModule, { logger: ['error'] });
  try {
    await app.get(AuthService).setTimeZone(projectId, zone);
    const moved = await app.get(BucketScheduleService).reschedule(projectId);
    process.stdout.write(`time zone of ${projectId} is ${zone} (${moved} point buckets rescheduled)\n`);
  } finally {
    await app.close();
  }
}

/** The cards the point expiry set aside, listed or released (docs/points-expiry.md, "Cards set aside"). */
async function expirySetAside(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { project: { type: 'string' }, release: { type: 'string', multiple: true }, 'release-all': { type: 'boolean', default: false } },
  });
  if (values.release?.length && values['release-all']) throw new Error('usage: expiry-set-aside [--project <project_id>] [--release <card_id>]... [--release-all]');
  const [{ DatabaseKitModule }, { CardsModule }, { ExpiryRepository }, { ExpiryService }] = await Promise.all([
    import('../../database/database-kit.module.js'),
    import('../../cards/cards.module.js'),
    import('../../points/buckets/expiry.repository.js'),
    import('../../points/buckets/expiry.service.js'),
  ]);
  const config = loadConfigOrExit();
  await migrateOnStart(config);
  @Module({ imports: [AppConfigModule.forRoot(config), DatabaseModule, DatabaseKitModule, CardsModule], providers: [ExpiryRepository, ExpiryService] })
  class ExpirySetAsideModule {}
  const app = await NestFactory.createApplicationContext(ExpirySetAsideModule, { logger: ['error'] });
  try {
    const expiry = app.get(ExpiryService);
    if (values.release?.length || values['release-all']) {
      const released = await expiry.release({ cardIds: values.release, projectId: values.project });
      process.stdout.write(`${JSON.stringify({ released })}\n`);
      return;
    }
    const cards = await expiry.setAsideCards(values.project ?? null);
    const listed = cards.map((card) => ({ id: card.id, project_id: card.projectId, code: card.code, error: card.error, set_aside_at: card.setAsideAt.toISOString() }));
    process.stdout.write(`${JSON.stringify({ cards: listed }, null, 2)}\n`);
  } finally {
    await app.close();
  }
}

async function openapi(argv: string[]): Promise<void> {
  const [{ createApiApp }, { buildOpenApiDocument, serializeOpenApi }] = await Promise.all([import('../http-app.js'), import('../openapi.js')]);
  const config = loadConfigOrExit({ LOG_LEVEL: 'warn' });
  await migrateOnStart(config);
  const app = await createApiApp(config);
  try {
    const text = serializeOpenApi(buildOpenApiDocument(app));
    if (argv[0]) await writeFile(argv[0], text);
    else process.stdout.write(text);
  } finally {
    await app.close();
  }
}

async function seed(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { members: { type: 'string' }, 'project-name': { type: 'string', default: 'Seed' } } });
  const [{ MAX_SEED_MEMBERS, MemberSeedService }, { MemberSeedRepository }, { QueueModule }, { CampaignsModule }] = await Promise.all([
    import('../../members/member-seed.service.js'),
    import('../../members/member-seed.repository.js'),
    import('../../queue/queue.module.js'),
    import('../../campaigns/campaigns.module.js'),
  ]);
  const raw = values.members?.replace(/_/g, '');
  const members = raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(members) || members < 1 || members > MAX_SEED_MEMBERS) {
    throw new Error(`--members must be a whole number from 1 to ${MAX_SEED_MEMBERS.toLocaleString('en')}${values.members === undefined ? ' (it is required)' : `; got '${values.members}'`}`);
  }
  const name = values['project-name'].trim();
  if (!name || name.length > 200) throw new Error('--project-name must be 1-200 characters');
  // One statement inserts 100,000 rows (or vacuums a million): longer than a request's cap on a slow disk,
  // and nobody but the operator waits on it.
  const config = loadConfigOrExit({ DATABASE_QUERY_TIMEOUT_MS: '0' });
  await migrateOnStart(config);
  // The campaign is made by CampaignsService, which needs the queue module even though a campaign with
  // no cards to generate enqueues nothing.
  @Module({
    imports: [AppConfigModule.forRoot(config), DatabaseModule, QueueModule.register('api'), AuthModule, CampaignsModule],
    providers: [MemberSeedService, MemberSeedRepository],
  })
  class SeedModule {}
  const app = await NestFactory.createApplicationContext(SeedModule, { logger: ['error'] });
  try {
    const result = await app.get(MemberSeedService).seed(members, name, (done) => {
      process.stderr.write(`seeded ${done.toLocaleString('en')} / ${members.toLocaleString('en')}\n`);
    });
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await app.close();
  }
}

/** Secrets at rest: every stored secret rewritten under the current key (or plain without one). */
async function encryptSecrets(): Promise<void> {
  const [{ DataCipher, keyId }, { WebhookSecretRepository }, { DistributionRepository }, { SecretsAtRestService }] = await Promise.all([
    import('../../common/crypto/data-cipher.js'),
    import('../../events/secrets/webhook-secret.repository.js'),
    import('../../events/distributions/distribution.repository.js'),
    import('../../events/secrets/secrets-at-rest.service.js'),
  ]);
  const config = loadConfigOrExit();
  await migrateOnStart(config);
  @Module({ imports: [AppConfigModule.forRoot(config), DatabaseModule], providers: [DataCipher, WebhookSecretRepository, DistributionRepository, SecretsAtRestService] })
  class EncryptSecretsModule {}
  const app = await NestFactory.createApplicationContext(EncryptSecretsModule, { logger: ['error'] });
  try {
    const done = await app.get(SecretsAtRestService).reseal();
    const key = config.dataEncryption.key;
    process.stdout.write(`${JSON.stringify({ key_id: key ? keyId(key) : null, ...done })}\n`);
    if (done.webhook_secrets.unreadable + done.distributions.unreadable > 0) {
      process.stderr.write('Some values could not be decrypted: add the key they were sealed with to DATA_ENCRYPTION_PREVIOUS_KEYS and run again\n');
      process.exitCode = 1;
    }
  } finally {
    await app.close();
  }
}

/** For a container's health check: is a worker of this host (or of any, with --any) alive? */
async function workerHealth(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { any: { type: 'boolean', default: false } } });
  const { workerHeartbeats } = await import('../../queue/worker-heartbeat.js');
  const config = loadConfigOrExit();
  const live = await workerHeartbeats(config.redis, config.queuePrefix, values.any ? undefined : hostname());
  process.stdout.write(`${JSON.stringify({ workers: live })}\n`);
  process.exitCode = live.length ? 0 : 1;
}

/** `node dist/cli.js <command> [args]`: `argv` is what follows the script's name. */
export async function runCli(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'migrate': {
      const config = loadConfigOrExit();
      const applied = await migrateDatabase(config);
      process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Nothing to migrate\n');
      return;
    }
    case 'create-project':
      return createProject(rest);
    case 'rotate-key':
      return rotateKey(rest);
    case 'list-keys':
      return listKeys(rest);
    case 'revoke-key':
      return revokeKey(rest);
    case 'set-feature':
      return setFeature(rest);
    case 'set-time-zone':
      return setTimeZone(rest);
    case 'expiry-set-aside':
      return expirySetAside(rest);
    case 'openapi':
      return openapi(rest);
    case 'seed':
      return seed(rest);
    case 'encrypt-secrets':
      return encryptSecrets();
    case 'worker-health':
      return workerHealth(rest);
    default:
      process.stderr.write(USAGE);
      process.exitCode = command === undefined || command === 'help' || command === '--help' ? 0 : 2;
  }
}
