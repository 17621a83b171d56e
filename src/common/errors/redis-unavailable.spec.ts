import { ReplyError } from 'ioredis';
import { unavailableDependency } from './infrastructure-errors.js';

describe('a Redis that refuses a command is unavailable (503), not a bug (500)', () => {
  it.each([
    "READONLY You can't write against a read only replica.",
    'MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to no.',
    'LOADING Redis is loading the dataset in memory',
    'CLUSTERDOWN The cluster is down',
    'TRYAGAIN Multiple keys request during rehashing of slot',
  ])('%s', (message) => {
    expect(unavailableDependency(new ReplyError(message))).toBe('redis');
    expect(unavailableDependency(new Error('wrapped', { cause: new ReplyError(message) }))).toBe('redis');
  });

  it('and the client that cannot find one', () => {
    expect(unavailableDependency(new Error('All sentinels are unreachable. Retrying from scratch after 10ms.'))).toBe('redis');
    expect(unavailableDependency(new Error('Command timed out'))).toBe('redis');
  });

  it('but not an ordinary reply error', () => {
    expect(unavailableDependency(new ReplyError('ERR wrong number of arguments'))).toBeNull();
  });
});
