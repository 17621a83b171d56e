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

  it('refuses every IPv6 form that embeds a refused IPv4 address, as that address', () => {
    const forms = [
      // IPv4-compatible (::/96, deprecated), hex and dotted
      '::7f00:1', '::127.0.0.1', '::a9fe:a9fe', '::169.254.169.254', '::a00:1', '::0:c0a8:101',
      // IPv4-mapped (::ffff:0:0/96)
      '::ffff:127.0.0.1', '::ffff:7f00:1', '::FFFF:A9FE:A9FE', '0:0:0:0:0:ffff:7f00:1',
      // IPv4-translated (::ffff:0:0:0/96, RFC 2765)
      '::ffff:0:7f00:1', '::ffff:0:127.0.0.1', '::ffff:0:a9fe:a9fe', '0:0:0:0:ffff:0:a00:1',
      // NAT64 well-known prefix (64:ff9b::/96, RFC 6052)
      '64:ff9b::7f00:1', '64:ff9b::10.0.0.1', '64:ff9b::a9fe:a9fe', '64:ff9b::c0a8:101',
      // 6to4 (2002::/16, RFC 3056): the IPv4 address in the second and third groups
      '2002:7f00:1::', '2002:a9fe:a9fe::1', '2002:c0a8:101:1::1', '2002:a00:1::',
      // Teredo (2001::/32): refused whatever it embeds
      '2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001::7f00:1',
    ];
    for (const address of forms) expect([address, guard.isBlocked(address)]).toEqual([address, true]);
  });

  it('lets an embedded public IPv4 address through in the forms that reach it (mapped, NAT64), not in the deprecated ones', () => {
    for (const address of ['::ffff:8.8.8.8', '::ffff:808:808', '64:ff9b::8.8.8.8', '64:ff9b::808:808']) expect([address, guard.isBlocked(address)]).toEqual([address, false]);
    // IPv4-compatible and -translated addresses are deprecated, 6to4 relays are (RFC 7526): never a webhook's target.
    for (const address of ['::8.8.8.8', '::ffff:0:808:808', '2002:808:808::1']) expect([address, guard.isBlocked(address)]).toEqual([address, true]);
  });

  it('an embedded IPv4 address allowed by WEBHOOK_ALLOWED_CIDRS is allowed in every form, and only that one', () => {
    const allowing = new AddressGuard(['127.0.0.1/32', '10.0.0.0/8']);
    for (const address of ['::127.0.0.1', '::7f00:1', '::ffff:7f00:1', '::ffff:0:7f00:1', '64:ff9b::7f00:1', '2002:7f00:1::1', '::ffff:10.9.8.7', '2002:a09:807::']) {
      expect([address, allowing.isBlocked(address)]).toEqual([address, false]);
    }
    for (const address of ['::7f00:2', '::ffff:7f00:2', '64:ff9b::a9fe:a9fe', '2002:c0a8:101::', '::1']) expect([address, allowing.isBlocked(address)]).toEqual([address, true]);
    // An IPv6 range in the list is checked on the address as written.
    expect(new AddressGuard(['::1/128']).isBlocked('::1')).toBe(false);
    expect(new AddressGuard(['2002::/16']).isBlocked('2002:c0a8:101::')).toBe(false);
  });

  it('names literal targets before any connection; other names wait for their lookup', () => {
    expect(guard.blockedLiteral('[::1]')).toBe('::1');
    expect(guard.blockedLiteral('10.0.0.1')).toBe('10.0.0.1');
    expect(guard.blockedLiteral('LOCALHOST')).toBe('localhost');
    expect(guard.blockedLiteral('api.localhost')).toBe('api.localhost');
    // A trailing dot (the fully qualified form) names the same host.
    expect(guard.blockedLiteral('localhost.')).toBe('localhost.');
    expect(guard.blockedLiteral('api.localhost.')).toBe('api.localhost.');
    expect(guard.blockedLiteral('LOCALHOST..')).toBe('localhost..');
    expect(guard.blockedLiteral('[::7f00:1]')).toBe('::7f00:1');
    expect(guard.blockedLiteral('[::ffff:0:a9fe:a9fe]')).toBe('::ffff:0:a9fe:a9fe');
    expect(guard.blockedLiteral('example.com.')).toBeNull();
    expect(guard.blockedLiteral('example.com')).toBeNull();
    expect(new AddressGuard(['127.0.0.1/32', '::1/128']).blockedLiteral('localhost')).toBeNull();
    // localhost may resolve to ::1 too, and a connection is refused if any address is blocked.
    expect(new AddressGuard(['127.0.0.1/32']).blockedLiteral('localhost')).toBe('localhost');
  });
});
