import { type DynamicModule, Global, Module } from '@nestjs/common';
import { Metrics, type MetricsRole } from './metrics.js';

/**
 * Makes the application's one `Metrics` (its registry and instruments) injectable everywhere, as
 * AppConfigModule does for the configuration: features record into it (activations, webhook attempts)
 * without importing a metrics module, and nothing here imports a feature. A factory, not a value, so that
 * each application built from the same root module (the tests build several) gets a registry of its own.
 */
@Global()
@Module({})
export class MetricsModule {
  static forRoot(role: MetricsRole): DynamicModule {
    return { module: MetricsModule, providers: [{ provide: Metrics, useFactory: () => new Metrics(role) }], exports: [Metrics] };
  }
}
