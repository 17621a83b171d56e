import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Ranges a webhook must never reach unless the operator allows them (WEBHOOK_ALLOWED_CIDRS): loopback,
 * private, link-local, shared (CGNAT), multicast, reserved, documentation and unspecified addresses. A
 * target's host is checked on every address it resolves to, at connect time, so a DNS name that points
 * (or is re-pointed) inside the network is refused as a literal IP would be.
 */
const BLOCKED_V4: [string, number][] = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
];
const BLOCKED_V6: [string, number][] = [
  ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 23], ['2001:db8::', 32], ['2002::', 16],
  ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
];

export class BlockedAddressError extends Error {
  constructor(readonly address: string) {
    super(`the target resolves to ${address}, a loopback, private, link-local or reserved address (see WEBHOOK_ALLOWED_CIDRS)`);
    this.name = 'BlockedAddressError';
  }
}

export class AddressGuard {
  private readonly blocked = new BlockList();
  private readonly allowed = new BlockList();

  constructor(allowedCidrs: readonly string[]) {
    for (const [net, prefix] of BLOCKED_V4) this.blocked.addSubnet(net, prefix, 'ipv4');
    for (const [net, prefix] of BLOCKED_V6) this.blocked.addSubnet(net, prefix, 'ipv6');
    for (const cidr of allowedCidrs) {
      const [net, prefix] = cidr.split('/');
      const family = isIP(net) === 6 ? 'ipv6' : 'ipv4';
      this.allowed.addSubnet(net, Number(prefix ?? (family === 'ipv6' ? 128 : 32)), family);
    }
  }

  /** Whether a connection to this IP address is refused. */
  isBlocked(address: string): boolean {
    const ip = unmapIpv4(address);
    const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
    if (this.allowed.check(ip, family)) return false;
    return this.blocked.check(ip, family);
  }

  /**
   * For a URL's host before any connection (the API's 400): a literal address that is blocked, or
   * `localhost`, unless the allow list covers it. Other names are checked when they resolve.
   */
  blockedLiteral(hostname: string): string | null {
    const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (isIP(host)) return this.isBlocked(host) ? host : null;
    // It may resolve to either loopback address, and a connection is refused if any address is blocked.
    if (host === 'localhost' || host.endsWith('.localhost')) return this.isBlocked('127.0.0.1') || this.isBlocked('::1') ? host : null;
    return null;
  }

  /** A `lookup` for http.request: resolves, then refuses the connection if any address is blocked. */
  readonly lookup = (hostname: string, options: object, callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      const list = addresses as LookupAddress[];
      const bad = list.find((entry) => this.isBlocked(entry.address));
      if (bad) return callback(new BlockedAddressError(bad.address), '');
      if ((options as { all?: boolean }).all) return callback(null, list);
      return callback(null, list[0].address, list[0].family);
    });
  };
}

/** `::ffff:10.0.0.1` (an IPv4 address in IPv6 form) is checked as `10.0.0.1`. */
function unmapIpv4(address: string): string {
  const match = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (match) return match[1];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (hex) {
    const high = parseInt(hex[1], 16);
    const low = parseInt(hex[2], 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return address;
}
