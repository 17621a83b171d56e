import { Writable } from 'node:stream';
import pino from 'pino';
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
});
