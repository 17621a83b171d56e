import { basicPasswordMatches, bearerTokenMatches } from './credentials.js';

const basic = (userAndPassword: string) => `Basic ${Buffer.from(userAndPassword).toString('base64')}`;

describe('bearerTokenMatches', () => {
  const token = 'metrics-token-0123456789';
  it.each([
    [`Bearer ${token}`, true],
    [`bearer ${token}`, true],
    [`Bearer  ${token} `, true],
    [`Bearer ${token}x`, false],
    [`Bearer ${token.slice(1)}`, false],
    [`Bearer ${token} extra`, false],
    [`Basic ${token}`, false],
    [token, false],
    ['Bearer', false],
    ['', false],
    [undefined, false],
  ])('%s → %s', (header, expected) => {
    expect(bearerTokenMatches(header, token)).toBe(expected);
  });
});

describe('basicPasswordMatches', () => {
  const password = 'admin:token/0123456789';
  it.each([
    [basic(`admin:${password}`), true],
    [basic(`:${password}`), true],
    [basic(`someone else:${password}`), true],
    [basic(`admin:${password}x`), false],
    [basic(password), false],
    [basic('admin:'), false],
    [basic('admin'), false],
    [`Bearer ${password}`, false],
    ['Basic !!!', false],
    ['', false],
    [undefined, false],
  ])('%s → %s', (header, expected) => {
    expect(basicPasswordMatches(header, password)).toBe(expected);
  });
});
