import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger as Pino } from 'pino';
import { RequestLogger } from './request-logger.js';

/** A pino stand-in that keeps what it is asked to write. */
function lines(): { pino: Pino; written: [string, Record<string, unknown>, string][] } {
  const written: [string, Record<string, unknown>, string][] = [];
  const level = (name: string) => (fields: Record<string, unknown>, msg: string) => written.push([name, fields, msg]);
  return { pino: { info: level('info'), warn: level('warn'), error: level('error') } as unknown as Pino, written };
}

function response(statusCode: number, writableFinished: boolean): ServerResponse {
  return Object.assign(new EventEmitter(), { statusCode, writableFinished }) as unknown as ServerResponse;
}

const request = { method: 'GET', url: '/v2/loyalties/programs/p/members?limit=10' } as IncomingMessage;

describe('RequestLogger', () => {
  it('writes one line for an answer, though close follows finish', () => {
    const { pino, written } = lines();
    const res = response(200, true);
    new RequestLogger(pino).watch('v-1', request, res);
    res.emit('finish');
    res.emit('close');
    expect(written).toEqual([['info', expect.objectContaining({ request_id: 'v-1', method: 'GET', url: request.url, status: 200 }), 'request completed']]);
  });

  it('warns for a 4xx, errs for a 5xx, and warns once for a client that left first', () => {
    const { pino, written } = lines();
    const logger = new RequestLogger(pino);
    for (const [status, finished] of [[404, true], [503, true], [200, false]] as const) {
      const res = response(status, finished);
      logger.watch(`v-${status}`, request, res);
      res.emit(finished ? 'finish' : 'close');
      res.emit('close');
    }
    expect(written.map(([level, fields, msg]) => [level, fields.request_id, msg])).toEqual([
      ['warn', 'v-404', 'request completed'],
      ['error', 'v-503', 'request completed'],
      ['warn', 'v-200', 'request aborted'],
    ]);
  });
});
