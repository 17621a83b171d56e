import 'reflect-metadata';
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { NestFactory } from '@nestjs/core';
import { Module } from '@nestjs/common';
import { createApiApp } from './app/http-app.js';
import { buildOpenApiDocument, serializeOpenApi } from './app/openapi.js';
import { AuthModule } from './auth/auth.module.js';
import { AuthService } from './auth/auth.service.js';
import { loadConfigOrExit } from './config/app-config.js';
import { AppConfigModule } from './config/config.module.js';
import { DatabaseModule } from './database/database.module.js';
import { migrateDatabase } from './database/migrate.js';

const USAGE = `Usage: node dist/cli.js <command>

Commands:
  migrate                          create the database if missing and apply pending migrations
  create-project [--name <name>]   create a project and print a new application key as JSON
  set-feature <project_id> areas_and_stores on|off
                                   turn a per-project feature on or off (Areas and Stores: campaigns
                                   accept access_settings and show access_settings_assignments)
  openapi [<file>]                 write the OpenAPI document (sorted keys) to <file> or stdout
`;

/** Runs `work` with the auth module on a migrated database. */
async function withAuth(work: (auth: AuthService) => Promise<void>): Promise<void> {
  const config = loadConfigOrExit();
  await migrateDatabase(config);
  @Module({ imports: [AppConfigModule.forRoot(config), DatabaseModule, AuthModule] })
  class CliModule {}
  const app = await NestFactory.createApplicationContext(CliModule, { logger: ['error'] });
  try {
    await work(app.get(AuthService));
  } finally {
    await app.close();
  }
}

async function createProject(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { name: { type: 'string', default: 'My project' } } });
  const name = values.name.trim();
  if (!name || name.length > 200) throw new Error('--name must be 1-200 characters');
  await withAuth(async (auth) => {
    const created = await auth.createProject(name);
    process.stdout.write(`${JSON.stringify(created, null, 2)}\n`);
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

async function openapi(argv: string[]): Promise<void> {
  const config = loadConfigOrExit({ LOG_LEVEL: 'warn' });
  await migrateDatabase(config);
  const app = await createApiApp(config);
  try {
    const text = serializeOpenApi(buildOpenApiDocument(app));
    if (argv[0]) await writeFile(argv[0], text);
    else process.stdout.write(text);
  } finally {
    await app.close();
  }
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  switch (command) {
    case 'migrate': {
      const config = loadConfigOrExit();
      const applied = await migrateDatabase(config);
      process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Nothing to migrate\n');
      return;
    }
    case 'create-project':
      return createProject(rest);
    case 'set-feature':
      return setFeature(rest);
    case 'openapi':
      return openapi(rest);
    default:
      process.stderr.write(USAGE);
      process.exitCode = command === undefined || command === 'help' || command === '--help' ? 0 : 2;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
