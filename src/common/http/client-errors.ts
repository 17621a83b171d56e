import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from '../errors/api-error.js';
import { newRequestId, REQUEST_ID_HEADER } from './request-id.middleware.js';

/**
 * Requests that Node's HTTP parser refuses never reach Express: a malformed request line, headers over
 * Node's 16 KiB limit, a request that is too slow. Node would answer them with an empty body; this gives
 * them the same JSON error body and request id as every other answer.
 */
export function answerClientErrorsWithJson(server: Server, onError: (requestId: string, error: ApiError, cause: Error) => void): void {
  server.on('clientError', (cause: Error & { code?: string }, socket: Socket) => {
    if (cause.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const error = clientError(cause.code);
    const requestId = newRequestId();
    onError(requestId, error, cause);
    const body = JSON.stringify(error.toBody(requestId));
    socket.end(
      `HTTP/1.1 ${error.status} ${STATUS_TEXT[error.status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `${REQUEST_ID_HEADER}: ${requestId}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  });
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

function clientError(code: string | undefined): ApiError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError(431, 'request_header_fields_too_large', 'Request header fields too large', {
        details: 'The request line and headers together exceed 16 KiB',
      });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError(408, 'request_timeout', 'Request timeout', { details: 'The request was not received in time' });
    default:
      return new ApiError(400, 'invalid_request', 'Invalid request', {
        details: `The request is not valid HTTP/1.1${code ? ` (${code})` : ''}`,
      });
  }
}
