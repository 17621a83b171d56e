import { Writable } from 'node:stream';
import pino from 'pino';
import pg from 'pg';
import { QueryFailedError } from 'typeorm';
import { appLoggerOptions } from './app-logger.js';

describe('the app logger', () => {
  it("does not log a failed query's parameters (tenants' values, a new webhook secret), and keeps the rest", () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(chunk.toString()), done()) });
    const logger = pino(appLoggerOptions('info'), sink);
    const failed = new QueryFailedError('UPDATE webhook_secrets SET secret = $2 WHERE project_id = $1', ['proj_1', 'whsec_live'], Object.assign(new Error('deadlock detected'), { code: '40P01' }));
    logger.warn({ err: failed, request: { err: failed } }, 'query failed');
    const line = JSON.parse(lines[0]) as { err: { parameters: unknown; message: string; query: string }; request: { err: { parameters: unknown } } };
    expect(lines[0]).not.toContain('whsec_live');
    expect(line.err).toMatchObject({ parameters: '[redacted]', message: 'deadlock detected', query: 'UPDATE webhook_secrets SET secret = $2 WHERE project_id = $1' });
    expect(line.request.err.parameters).toBe('[redacted]');
  });

  it("does not log what PostgreSQL quotes of a row or a value (detail, a data exception's message and where), and keeps the rest (issue 36)", () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(chunk.toString()), done()) });
    const logger = pino(appLoggerOptions('info'), sink);
    const pgError = (message: string, fields: Record<string, string>) => Object.assign(new pg.DatabaseError(message, 0, 'error'), { severity: 'ERROR', ...fields });
    const unique = pgError('duplicate key value violates unique constraint "uq_orders_source"', { code: '23505', detail: 'Key (project_id, source_id)=(proj_1, secret-order) already exists.', constraint: 'uq_orders_source', table: 'orders' });
    const check = pgError('new row for relation "vouchers" violates check constraint "CHK_vouchers_points_safe"', { code: '23514', detail: 'Failing row contains (v_1, secret-code, 9007199254740992).', constraint: 'CHK_vouchers_points_safe' });
    const data = pgError('invalid input syntax for type json', { code: '22P02', detail: 'Token "secret" is invalid.', where: 'JSON data, line 1: {"secret...' });
    const quoted = pgError('invalid input value for enum order_status: "secret-status"', { code: '22P02' });
    for (const driverError of [unique, check, data, quoted]) {
      logger.error({ err: new QueryFailedError('INSERT INTO orders VALUES ($1, $2)', ['proj_1', 'secret-order'], driverError), nested: { err: new QueryFailedError('SELECT 1', [], driverError) } }, 'query failed');
    }
    logger.warn({ err: unique }, 'bare driver error');
    const logged = lines.map((line) => JSON.parse(line) as { err: Record<string, unknown> & { driverError: Record<string, unknown> } });
    expect(lines.filter((line) => line.includes('secret'))).toEqual([]);
    expect(logged[0].err).toMatchObject({ code: '23505', detail: '[redacted]', constraint: 'uq_orders_source', table: 'orders', message: 'duplicate key value violates unique constraint "uq_orders_source"', driverError: { detail: '[redacted]', code: '23505' } });
    expect(logged[1].err).toMatchObject({ code: '23514', detail: '[redacted]', constraint: 'CHK_vouchers_points_safe', message: 'new row for relation "vouchers" violates check constraint "CHK_vouchers_points_safe"' });
    expect(logged[2].err).toMatchObject({ code: '22P02', detail: '[redacted]', where: '[redacted]', message: 'invalid input syntax for type json' });
    expect(logged[3].err).toMatchObject({ code: '22P02', message: 'invalid input value for enum order_status: "[redacted]"' });
    expect(String(logged[3].err.stack)).toMatch(/^QueryFailedError: invalid input value for enum order_status: "\[redacted\]"\n/);
    expect(logged[4].err).toMatchObject({ code: '23505', detail: '[redacted]', type: 'DatabaseError' });
  });
});
