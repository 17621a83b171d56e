import type { LoggerService } from '@nestjs/common';
import pino, { type Logger as Pino } from 'pino';
import { redactPostgresError } from '../errors/postgres-redaction.js';

/**
 * The process's logs: JSON lines through pino to stdout, written asynchronously (sonic-boom, `sync:
 * false`): a synchronous write per request cost a third of the API's throughput in the member list
 * benchmark. Under load, lines written while a write is pending go out together; pino flushes what is left
 * when the process exits.
 *
 * Two loggers share the one destination: `app` for everything the code logs (with a redact list, so a
 * token passed to a log call by mistake is censored) and `requests` for the one line per HTTP request,
 * whose fields the request logger picks itself (no headers, no body), so it skips the redaction pass.
 */
export interface ProcessLoggers {
  app: Pino;
  requests: Pino;
}

/**
 * The app logger's options. Besides credentials, a failed query's `parameters` (TypeORM's QueryFailedError
 * carries them, and pino logs an error's own fields) are redacted: they are tenants' values, and a failed
 * secret rotation logged its new `whsec_…` (issue 26). So is what PostgreSQL quotes of a row or a value in an
 * error (`detail`, a data exception's message: redactPostgresError, issue 36), by the `err` serializer, and by
 * the paths below for an error logged under another field.
 */
export function appLoggerOptions(level: string): pino.LoggerOptions {
  return {
    level,
    serializers: { err: (error: unknown) => redactPostgresError(pino.stdSerializers.err(error as Error)) },
    redact: {
      paths: [
        'req.headers',
        '*.headers["x-app-token"]',
        '*.appToken',
        '*.app_token',
        '*.token',
        '*.tokenHash',
        'err.parameters',
        'err.cause.parameters',
        'err.driverError.parameters',
        '*.err.parameters',
        '*.err.detail',
        '*.err.driverError.detail',
        '*.err.where',
        '*.err.driverError.where',
      ],
      censor: '[redacted]',
    },
  };
}

export function createLoggers(level: string): ProcessLoggers {
  const destination = pino.destination({ dest: 1, sync: false });
  const app = pino(appLoggerOptions(level), destination);
  return { app, requests: pino({ level }, destination) };
}

type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/**
 * Nest's LoggerService over pino, with the fields Nest's `Logger` passes: the last argument is the
 * context (the class or component name, logged as `context`); an object message is merged into the line,
 * an Error becomes `err`, and the (message, stack, context) form Nest's exception handlers use becomes an
 * `err` with that stack.
 */
export class AppLogger implements LoggerService {
  constructor(readonly pino: Pino) {}

  verbose(message: unknown, ...rest: unknown[]): void {
    this.call('trace', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.call('debug', message, rest);
  }
  log(message: unknown, ...rest: unknown[]): void {
    this.call('info', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.call('warn', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.call('error', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.call('fatal', message, rest);
  }

  private call(level: Level, message: unknown, rest: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    const fields: Record<string, unknown> = {};
    const params = rest.slice(0, -1);
    if (rest.length) fields.context = rest.at(-1);
    if (message instanceof Error) {
      fields.err = message;
      this.pino[level](fields, ...(params as []));
    } else if (typeof message === 'object' && message !== null) {
      this.pino[level](Object.assign(fields, message), ...(params as []));
    } else if (level === 'error' && params.length === 1 && typeof params[0] === 'string' && /\n\s*at /.test(params[0])) {
      const err = new Error(String(message));
      err.stack = params[0];
      this.pino[level](Object.assign(fields, { err }));
    } else {
      this.pino[level](fields, String(message), ...(params as []));
    }
  }
}
