import { Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { IncomingMessage } from 'node:http';
import { AppConfig } from '../../config/app-config.js';

/**
 * Structured JSON logs through pino (nestjs-pino binds each line to its request). Request headers are
 * never serialised, so X-App-Token cannot reach the logs; the redact list is a second guard.
 */
@Module({
  imports: [
    LoggerModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        pinoHttp: {
          level: config.logLevel,
          genReqId: (req: IncomingMessage) => (req as IncomingMessage & { id?: string }).id ?? 'unknown',
          customProps: (req: IncomingMessage) => ({ request_id: (req as IncomingMessage & { id?: string }).id }),
          serializers: {
            req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
            res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
          },
          redact: {
            paths: ['req.headers', '*.headers["x-app-token"]', '*.appToken', '*.app_token', '*.token', '*.tokenHash'],
            censor: '[redacted]',
          },
          customLogLevel: (_req: IncomingMessage, res: { statusCode: number }, err?: Error) =>
            err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
        },
      }),
    }),
  ],
})
export class LoggingModule {}
