import type { DynamicModule, Type } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { AuthService, type ProjectContext } from '../../src/auth/auth.service.js';
import { AuthModule } from '../../src/auth/auth.module.js';
import { AppValidationPipe } from '../../src/common/http/validation.pipe.js';
import type { AppConfig } from '../../src/config/app-config.js';
import { AppConfigModule } from '../../src/config/config.module.js';
import { DatabaseModule } from '../../src/app/database/database.module.js';
import { MetricsModule } from '../../src/metrics/metrics.module.js';
import { QueueModule } from '../../src/queue/queue.module.js';
import { testConfig } from './harness.js';
import { PointsDb } from './points.js';

export interface ServiceOptions {
  /** The feature modules under test (their services, repositories and what they import). */
  imports: (Type | DynamicModule)[];
  /** Providers of a process's own module under test (the worker's services, without its queue processors). */
  providers?: Type[];
  /** Overrides of the run's configuration. */
  config?: Record<string, string>;
}

export interface Services {
  readonly config: AppConfig;
  /** Direct reads of the run's database, for what a service wrote. */
  readonly db: PointsDb;
  /** A provider of the module (a service or repository under test). */
  get<T>(token: Type<T>): T;
  /** A new project (its row, as the CLI makes it), as services see the caller. */
  project(name?: string): Promise<ProjectContext>;
}

/**
 * The service tier: the feature modules under test on the run's real PostgreSQL (migrated by global-setup),
 * without HTTP and without BullMQ workers. The queues are the API's producer-only registration (a real
 * Redis queue: services that schedule jobs can run, and nothing here processes them). Registered as the
 * describe block's beforeAll/afterAll, like useStack.
 */
export function useServices(options: ServiceOptions): Services {
  const config = testConfig(options.config);
  const db = new PointsDb();
  let moduleRef: TestingModule | undefined;

  const started = (): TestingModule => {
    if (!moduleRef) throw new Error('useServices: the module is not started yet');
    return moduleRef;
  };

  beforeAll(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [AppConfigModule.forRoot(config), MetricsModule.forRoot('api'), DatabaseModule, QueueModule.register('api'), AuthModule, ...options.imports],
      providers: options.providers ?? [],
    }).compile();
    moduleRef.useLogger(false);
    await moduleRef.init();
    await db.connect();
  });

  afterAll(async () => {
    await db.end();
    await moduleRef?.close();
  });

  return {
    config,
    db,
    get: <T>(token: Type<T>) => started().get(token, { strict: false }),
    project: async (name = 'Service test project') => ({ id: (await started().get(AuthService).createProject(name)).project.id, features: { areasAndStores: false } }),
  };
}

/** A request body as the API's validation pipe hands it to a controller: validated, and an instance of its DTO. */
export async function body<T>(dto: Type<T>, plain: object): Promise<T> {
  return (await new AppValidationPipe().transform(plain, { type: 'body', metatype: dto })) as T;
}
