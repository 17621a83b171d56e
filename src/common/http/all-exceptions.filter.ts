import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiError } from '../errors/api-error.js';
import { dataError, databaseBusy, unavailableDependency } from '../errors/infrastructure-errors.js';
import { BODY_LIMIT_BYTES } from './body-limit.js';

const DEPENDENCY_NAMES = { postgres: 'PostgreSQL', redis: 'Redis' } as const;

/**
 * The one place where errors become HTTP answers: every non-2xx response has the docs/errors.md
 * shape, and nothing internal (stack, SQL, driver message) reaches the client.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw exception;
    const request = host.switchToHttp().getRequest<Request>();
    const response = host.switchToHttp().getResponse<Response>();
    const requestId = typeof request.id === 'string' ? request.id : undefined;
    const error = this.toApiError(exception, request, requestId);

    if (response.headersSent) {
      response.end();
      return;
    }
    if (error.status === 503) response.setHeader('Retry-After', error.key === 'database_busy' ? '1' : '5');
    response.status(error.status).json(error.toBody(requestId));
  }

  private toApiError(exception: unknown, request: Request, requestId: string | undefined): ApiError {
    if (exception instanceof ApiError) return exception;
    // An ApiError thrown inside Express's body parser (the edge checks) arrives wrapped in an HTTP error.
    if (exception instanceof HttpException && exception.cause instanceof ApiError) return exception.cause;
    if (exception instanceof HttpException) return this.fromHttpException(exception, request);

    const busy = databaseBusy(exception);
    if (busy) {
      this.logger.warn({ request_id: requestId, reason: busy, err: exception }, 'PostgreSQL busy');
      return ApiError.databaseBusy(busy);
    }
    const dependency = unavailableDependency(exception);
    if (dependency) {
      this.logger.warn({ request_id: requestId, err: exception }, `${DEPENDENCY_NAMES[dependency]} unreachable`);
      return ApiError.serviceUnavailable(`${DEPENDENCY_NAMES[dependency]} is unreachable; retry later`);
    }

    // A value the edge checks and the DTOs let through but PostgreSQL refuses (22xxx data exceptions, an
    // index row too large) is the client's input, not our fault: 400, logged so the gap can be closed.
    const data = dataError(exception);
    if (data) {
      this.logger.warn({ request_id: requestId, pg_code: data.code, err: exception }, 'PostgreSQL refused a value from the request');
      const details = `A value in the request cannot be stored: ${data.message}`;
      return hasBody(request) ? ApiError.invalidPayload(details) : ApiError.invalidQueryParams(details);
    }

    this.logger.error({ request_id: requestId, err: exception }, 'Unhandled error');
    return new ApiError(500, 'internal_server_error', 'Internal server error', {
      details: 'An unexpected error occurred; quote the request_id when reporting it',
    });
  }

  private fromHttpException(exception: HttpException, request: Request): ApiError {
    const status = exception.getStatus();
    switch (status) {
      case 400:
        // Nest maps body-parser's SyntaxError to a BadRequestException carrying the parser error as cause.
        if (exception.cause instanceof SyntaxError) {
          return ApiError.invalidPayload('Request body is not valid JSON');
        }
        // Express's router could not decode a path parameter (the edge check normally answers first).
        if (exception.cause instanceof URIError) return ApiError.invalidQueryParams('The path is not valid percent-encoded UTF-8');
        return ApiError.invalidPayload(messageOf(exception));
      case 401:
        return ApiError.unauthorized();
      case 404:
        return new ApiError(404, 'not_found', 'Resource not found', {
          details: `Cannot find route ${request.method} ${request.path}`,
        });
      case 413:
        return new ApiError(413, 'payload_too_large', 'Payload too large', {
          details: `Request body exceeds the limit of ${BODY_LIMIT_BYTES} bytes`,
        });
      case 415:
        // body-parser: a charset or Content-Encoding it cannot decode.
        return new ApiError(415, 'unsupported_media_type', 'Unsupported media type', {
          details: `${messageOf(exception)}; send JSON as UTF-8, with Content-Encoding identity, gzip, deflate or br`,
        });
      case 503:
        return ApiError.serviceUnavailable(messageOf(exception));
      default:
        if (status >= 500) {
          this.logger.error({ err: exception }, 'HTTP exception with server status');
          return new ApiError(500, 'internal_server_error', 'Internal server error');
        }
        return new ApiError(status, status === 429 ? 'too_many_requests' : 'invalid_request', messageOf(exception), { details: messageOf(exception) });
    }
  }
}

/** The JSON parser leaves `body` undefined when the request has none. */
function hasBody(request: Request): boolean {
  return request.body !== undefined;
}

function messageOf(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : exception.message;
}
