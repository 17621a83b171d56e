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
  openapi [<file>]                 write the OpenAPI document (sorted keys) to <file> or stdout
`;

async function createProject(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { name: { type: 'string', default: 'My project' } } });
  const name = values.name.trim();
  if (!name || name.length > 200) throw new Error('--name must be 1-200 characters');
  const config = loadConfigOrExit();
  await migrateDatabase(config);
  @Module({ imports: [AppConfigModule.forRoot(config), DatabaseModule, AuthModule] })
  class CliModule {}
  const app = await NestFactory.createApplicationContext(CliModule, { logger: ['error'] });
  try {
    const created = await app.get(AuthService).createProject(name);
    process.stdout.write(`${JSON.stringify(created, null, 2)}\n`);
  } finally {
    await app.close();
  }
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
