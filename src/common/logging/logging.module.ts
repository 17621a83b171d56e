import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { AppLogger, createLoggers, type ProcessLoggers } from './app-logger.js';
import { RequestLogger } from './request-logger.js';

const LOGGERS = Symbol('process loggers');

/**
 * Structured JSON logs through pino (app-logger.ts): AppLogger is the process's Nest logger; the API's one
 * line per request is RequestLogger's, written from the edge middleware with the fields it picks (never
 * headers, so X-App-Token cannot reach the logs).
 */
@Global()
@Module({
  providers: [
    { provide: LOGGERS, inject: [AppConfig], useFactory: (config: AppConfig) => createLoggers(config.logLevel) },
    { provide: AppLogger, inject: [LOGGERS], useFactory: (loggers: ProcessLoggers) => new AppLogger(loggers.app) },
    { provide: RequestLogger, inject: [LOGGERS], useFactory: (loggers: ProcessLoggers) => new RequestLogger(loggers.requests) },
  ],
  exports: [AppLogger, RequestLogger],
})
export class LoggingModule {}
