import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../config/app-config.js';
import { DataCipher, UnreadableValueError, isSealed, keyId } from './data-cipher.js';

const key1 = randomBytes(32);
const key2 = randomBytes(32);
const cipherWith = (key?: Buffer, previous: Buffer[] = []) =>
  new DataCipher(loadConfig({ DATA_ENCRYPTION_KEY: key?.toString('base64'), DATA_ENCRYPTION_PREVIOUS_KEYS: previous.map((k) => k.toString('base64url')).join(',') || undefined }));

describe('DataCipher', () => {
  it('seals under the current key (AES-256-GCM, a fresh IV each time) and opens what it sealed', () => {
    const cipher = cipherWith(key1);
    const sealed = cipher.seal('whsec_secret', 'webhook_secrets:proj_1');
    expect(sealed).toMatch(new RegExp(`^enc:v1:${keyId(key1)}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$`));
    expect(sealed).not.toContain('whsec_secret');
    expect(cipher.seal('whsec_secret', 'webhook_secrets:proj_1')).not.toBe(sealed);
    expect(cipher.open(sealed, 'webhook_secrets:proj_1')).toBe('whsec_secret');
    expect(cipher.isCurrent(sealed)).toBe(true);
  });

  it('refuses a value opened for another row, altered, or sealed under a key it does not have', () => {
    const cipher = cipherWith(key1);
    const sealed = cipher.seal('value', 'row:a');
    expect(() => cipher.open(sealed, 'row:b')).toThrow(UnreadableValueError);
    const altered = `${sealed.slice(0, -2)}${sealed.endsWith('AA') ? 'BB' : 'AA'}`;
    expect(() => cipher.open(altered, 'row:a')).toThrow(UnreadableValueError);
    expect(() => cipherWith(key2).open(sealed, 'row:a')).toThrow(UnreadableValueError);
    expect(() => cipherWith().open(sealed, 'row:a')).toThrow(UnreadableValueError);
  });

  it('reads plain values as they are, with or without a key; without a key it stores plain', () => {
    expect(cipherWith(key1).open('whsec_plain', 'row:a')).toBe('whsec_plain');
    expect(cipherWith().seal('whsec_plain', 'row:a')).toBe('whsec_plain');
    expect(cipherWith().isCurrent('whsec_plain')).toBe(true);
    expect(cipherWith(key1).isCurrent('whsec_plain')).toBe(false);
    expect(isSealed('whsec_plain')).toBe(false);
  });

  it('after a rotation, opens values sealed under a previous key; they are not current until sealed again', () => {
    const old = cipherWith(key1).seal('value', 'row:a');
    const rotated = cipherWith(key2, [key1]);
    expect(rotated.open(old, 'row:a')).toBe('value');
    expect(rotated.isCurrent(old)).toBe(false);
    expect(rotated.isCurrent(rotated.seal('value', 'row:a'))).toBe(true);
    // Encryption turned off with the old key kept to read: values are stored plain again.
    const off = cipherWith(undefined, [key2]);
    expect(off.open(rotated.seal('value', 'row:a'), 'row:a')).toBe('value');
    expect(off.isCurrent(old)).toBe(false);
  });

  it('the keys are checked at start: 32 bytes of base64, one current key, a list of previous ones', () => {
    expect(() => loadConfig({ DATA_ENCRYPTION_KEY: 'short' })).toThrow(/DATA_ENCRYPTION_KEY must be the base64 of 32 random bytes/);
    expect(() => loadConfig({ DATA_ENCRYPTION_KEY: randomBytes(16).toString('base64') })).toThrow(/DATA_ENCRYPTION_KEY/);
    expect(() => loadConfig({ DATA_ENCRYPTION_KEY: `${key1.toString('base64')},${key2.toString('base64')}` })).toThrow(/DATA_ENCRYPTION_KEY/);
    expect(() => loadConfig({ DATA_ENCRYPTION_PREVIOUS_KEYS: `${key1.toString('base64')},nope` })).toThrow(/DATA_ENCRYPTION_PREVIOUS_KEYS must be a comma-separated list/);
    expect(loadConfig({}).dataEncryption).toEqual({ key: null, previousKeys: [] });
    expect(loadConfig({ DATA_ENCRYPTION_KEY: key1.toString('base64url'), DATA_ENCRYPTION_PREVIOUS_KEYS: ` ${key2.toString('base64')} ` }).dataEncryption).toEqual({ key: key1, previousKeys: [key2] });
  });
});
