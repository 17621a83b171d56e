import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { AsyncActionsModule } from '../async-actions/async-actions.module.js';
import { AppKeyGuard } from '../auth/app-key.guard.js';
import { AuthModule } from '../auth/auth.module.js';
import { BootstrapKeyService } from '../auth/bootstrap-key.service.js';
import { CampaignsModule } from '../campaigns/campaigns.module.js';
import { CustomersApiModule } from '../customers/customers-api.module.js';
import { FeatureQuestionsModule } from './feature-questions.module.js';
import { AllExceptionsFilter } from '../common/http/all-exceptions.filter.js';
import { JsonBodyGuard } from '../common/http/json-body.guard.js';
import { AppValidationPipe } from '../common/http/validation.pipe.js';
import { LoggingModule } from '../common/logging/logging.module.js';
import { AppConfig } from '../config/app-config.js';
import { AppConfigModule } from '../config/config.module.js';
import { DashboardModule } from '../dashboard/dashboard.module.js';
import { DatabaseModule } from './database/database.module.js';
import { DiagnosticsModule } from '../diagnostics/diagnostics.module.js';
import { HealthModule } from '../health/health.module.js';
import { EventsModule } from '../events/events.module.js';
import { MembersApiModule } from '../members/members-api.module.js';
import { ApiMetricsModule } from '../metrics/api-metrics.module.js';
import { MetricsModule } from '../metrics/metrics.module.js';
import { PointsModule } from '../points/points.module.js';
import { QueueModule } from '../queue/queue.module.js';
import { ProjectRateLimitGuard } from '../rate-limit/project-rate-limit.guard.js';
import { RateLimitModule } from '../rate-limit/rate-limit.module.js';
import { RedemptionsModule } from '../redemptions/redemptions.module.js';
import { RewardsModule } from '../rewards/rewards.module.js';

/**
 * The HTTP API process: controllers, the key guard, the rate limiter, validation and the error filter. No
 * processors. Global guards run in the order they are listed: the limiter needs the project the key guard found,
 * and the body is read only for requests both let through.
 */
@Module({})
export class ApiModule {
  static forRoot(config: AppConfig): DynamicModule {
    const rateLimited = config.rateLimitPerSecond > 0;
    const redisBuckets = rateLimited || config.authFailureLimit > 0;
    return {
      module: ApiModule,
      imports: [
        AppConfigModule.forRoot(config),
        LoggingModule,
        MetricsModule.forRoot('api'),
        DatabaseModule,
        QueueModule.register('api'),
        AuthModule,
        HealthModule,
        DiagnosticsModule,
        AsyncActionsModule,
        CampaignsModule,
        CustomersApiModule,
        MembersApiModule,
        EventsModule,
        PointsModule,
        RewardsModule,
        RedemptionsModule,
        FeatureQuestionsModule,
        DashboardModule,
        ApiMetricsModule.forRoot(config),
        ...(redisBuckets ? [RateLimitModule] : []),
      ],
      providers: [
        BootstrapKeyService,
        { provide: APP_GUARD, useClass: AppKeyGuard },
        ...(rateLimited ? [{ provide: APP_GUARD, useClass: ProjectRateLimitGuard }] : []),
        { provide: APP_GUARD, useClass: JsonBodyGuard },
        { provide: APP_PIPE, useClass: AppValidationPipe },
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
      ],
    };
  }
}
