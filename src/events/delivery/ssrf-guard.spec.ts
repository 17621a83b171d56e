import { AddressGuard } from './ssrf-guard.js';

describe('AddressGuard', () => {
  const guard = new AddressGuard([]);

  it('refuses loopback, private, link-local, shared, multicast, reserved and unspecified addresses, v4 and v6', () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '240.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fc00::1', 'fd12::1', 'ff02::1', '::ffff:10.0.0.1', '::ffff:7f00:1', '2001:db8::1']) {
      expect([address, guard.isBlocked(address)]).toEqual([address, true]);
    }
  });

  it('lets public addresses through', () => {
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8']) expect([address, guard.isBlocked(address)]).toEqual([address, false]);
  });

  it('lets through what WEBHOOK_ALLOWED_CIDRS allows, and only that', () => {
    const allowing = new AddressGuard(['127.0.0.1/32', '10.0.0.0/8']);
    expect(allowing.isBlocked('127.0.0.1')).toBe(false);
    expect(allowing.isBlocked('10.200.0.1')).toBe(false);
    expect(allowing.isBlocked('127.0.0.2')).toBe(true);
    expect(allowing.isBlocked('192.168.0.1')).toBe(true);
  });

  it('names literal targets before any connection; other names wait for their lookup', () => {
    expect(guard.blockedLiteral('[::1]')).toBe('::1');
    expect(guard.blockedLiteral('10.0.0.1')).toBe('10.0.0.1');
    expect(guard.blockedLiteral('LOCALHOST')).toBe('localhost');
    expect(guard.blockedLiteral('api.localhost')).toBe('api.localhost');
    expect(guard.blockedLiteral('example.com')).toBeNull();
    expect(new AddressGuard(['127.0.0.1/32', '::1/128']).blockedLiteral('localhost')).toBeNull();
    // localhost may resolve to ::1 too, and a connection is refused if any address is blocked.
    expect(new AddressGuard(['127.0.0.1/32']).blockedLiteral('localhost')).toBe('localhost');
  });
});
