import type { ArgumentsHost } from '@nestjs/common';
import { HttpException, Logger, NotFoundException } from '@nestjs/common';
import { AllExceptionsFilter } from './all-exceptions.filter.js';
import { ApiError } from '../errors/api-error.js';
import { databaseBusy, unavailableDependency } from '../errors/infrastructure-errors.js';

function render(exception: unknown, body?: unknown) {
  const sent: { status?: number; body?: Record<string, unknown>; headers: Record<string, string> } = { headers: {} };
  const response = {
    headersSent: false,
    setHeader: (name: string, value: string) => (sent.headers[name] = value),
    status(code: number) {
      sent.status = code;
      return this;
    },
    json(body: Record<string, unknown>) {
      sent.body = body;
    },
  };
  const request = { id: 'v-00112233445566778899', method: 'GET', path: '/v1/x', url: '/v1/x', log: {}, body };
  const host = {
    getType: () => 'http',
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => response }),
  } as unknown as ArgumentsHost;
  new AllExceptionsFilter().catch(exception, host);
  return sent;
}

describe('AllExceptionsFilter', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('turns an unexpected error into a 500 without its message or stack', () => {
    const sent = render(new Error('password=hunter2 at db.ts:12'));
    expect(sent.status).toBe(500);
    expect(sent.body).toMatchObject({ code: 500, key: 'internal_server_error', request_id: 'v-00112233445566778899' });
    expect(JSON.stringify(sent.body)).not.toMatch(/hunter2|db\.ts/);
  });

  it('renders ApiError as given', () => {
    const sent = render(ApiError.notFound('campaign', 'camp_1'));
    expect(sent.body).toEqual({
      code: 404,
      key: 'not_found',
      message: 'Resource not found',
      details: 'Cannot find campaign with id camp_1',
      request_id: 'v-00112233445566778899',
      resource_id: 'camp_1',
      resource_type: 'campaign',
    });
  });

  it('keeps the 401 body exactly as Voucherify sends it', () => {
    expect(render(ApiError.unauthorized()).body).toEqual({ code: 401, key: 'unauthorized', message: 'Unauthorized' });
  });

  it('maps a route miss to not_found', () => {
    expect(render(new NotFoundException('Cannot GET /v1/x')).body).toMatchObject({ key: 'not_found', details: 'Cannot find route GET /v1/x' });
  });

  it('maps a PostgreSQL data error (22xxx, 54000) to 400 naming the problem, by where the input came from', () => {
    const json = Object.assign(new Error('query failed'), { driverError: { code: '22P02', message: 'invalid input syntax for type json' } });
    expect(render(json, { a: 1 })).toMatchObject({ status: 400, body: { key: 'invalid_payload', details: 'A value in the request cannot be stored: invalid input syntax for type json' } });
    expect(render(json)).toMatchObject({ status: 400, body: { key: 'invalid_query_params' } });
    const index = Object.assign(new Error('query failed'), { driverError: { code: '54000', message: 'index row size 3000 exceeds btree version 4 maximum 2704' } });
    expect(render(index, {}).status).toBe(400);
    const other = Object.assign(new Error('query failed'), { driverError: { code: '42P01', message: 'relation does not exist' } });
    expect(render(other, {}).status).toBe(500);
  });

  it('unwraps an ApiError wrapped by the body parser, and names 415s', () => {
    const wrapped = new HttpException('x', 400, { cause: ApiError.invalidPayload('a nests objects or arrays more than 32 levels deep') });
    expect(render(wrapped).body).toMatchObject({ key: 'invalid_payload', details: 'a nests objects or arrays more than 32 levels deep' });
    expect(render(new HttpException('unsupported charset "UTF-7"', 415)).body).toMatchObject({ code: 415, key: 'unsupported_media_type' });
  });

  it('maps connection failures to 503 with Retry-After', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const sent = render(refused);
    expect(sent.status).toBe(503);
    expect(sent.headers['Retry-After']).toBe('5');
    expect(sent.body).toMatchObject({ key: 'service_unavailable', details: 'PostgreSQL is unreachable; retry later' });
  });

  it('maps a busy database (no free connection, a lock or statement timeout, a lost deadlock) to 503 database_busy with Retry-After: 1', () => {
    const cases: [unknown, string][] = [
      [new Error('timeout exceeded when trying to connect'), 'no connection of the pool became free in time'],
      [{ driverError: { code: '55P03' } }, 'a row it needs stayed locked by another request too long'],
      [{ driverError: { code: '57014' } }, 'a statement ran past its time limit'],
      [{ driverError: { code: '40P01' } }, 'it lost a lock conflict with concurrent requests on every attempt'],
      [Object.assign(new Error('sorry, too many clients already'), { code: '53300' }), 'the database server had no connection slot free'],
    ];
    for (const [busy, reason] of cases) {
      const sent = render(busy);
      expect(sent.status).toBe(503);
      expect(sent.headers['Retry-After']).toBe('1');
      expect(sent.body).toMatchObject({ key: 'database_busy', message: 'Database busy', details: `The database is busy (${reason}) and nothing was changed; retry after the Retry-After seconds` });
    }
  });
});

describe('databaseBusy', () => {
  it('tells a busy PostgreSQL from an unreachable one and from a bad query', () => {
    expect(databaseBusy(new Error('timeout exceeded when trying to connect'))).toBe('pool');
    expect(databaseBusy({ cause: { code: '40001' } })).toBe('conflict');
    expect(databaseBusy({ driverError: { code: '55P03' } })).toBe('lock');
    expect(databaseBusy(new Error('Connection terminated due to connection timeout'))).toBeNull();
    expect(databaseBusy(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBeNull();
    expect(databaseBusy({ driverError: { code: '23505' } })).toBeNull();
    expect(databaseBusy({ code: 'toString' })).toBeNull();
  });
});

describe('unavailableDependency', () => {
  it('recognises PostgreSQL and Redis outages, and nothing else', () => {
    expect(unavailableDependency(new Error('Connection terminated due to connection timeout'))).toBe('postgres');
    expect(unavailableDependency({ driverError: { code: '57P01', message: 'terminating connection' } })).toBe('postgres');
    expect(unavailableDependency(new Error("Stream isn't writeable and enableOfflineQueue options is false"))).toBe('redis');
    expect(unavailableDependency(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBeNull();
    expect(unavailableDependency(new TypeError('x is undefined'))).toBeNull();
  });
});
