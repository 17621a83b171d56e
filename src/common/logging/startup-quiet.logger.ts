import type { LoggerService } from '@nestjs/common';

/**
 * Nest's own start-up chatter: a line per module initialised, per controller and per route mapped, and
 * "application started". Useful when wiring changes (LOG_LEVEL=debug shows it), noise otherwise: at info a
 * process says it is ready in one line of its own.
 */
const STARTUP_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestApplication']);

/** Wraps the process's logger so that Nest's start-up lines are logged at debug instead of info. */
export class StartupQuietLogger implements LoggerService {
  constructor(private readonly inner: LoggerService & Required<Pick<LoggerService, 'debug' | 'verbose' | 'fatal'>>) {}

  log(message: unknown, ...rest: unknown[]): void {
    const context = rest.at(-1);
    if (typeof context === 'string' && STARTUP_CONTEXTS.has(context)) this.inner.debug(message, ...rest);
    else this.inner.log(message, ...rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.inner.error(message, ...rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.inner.warn(message, ...rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.inner.debug(message, ...rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.inner.verbose(message, ...rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.inner.fatal(message, ...rest);
  }
}
