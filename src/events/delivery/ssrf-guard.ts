import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Ranges a webhook must never reach unless the operator allows them (WEBHOOK_ALLOWED_CIDRS): loopback,
 * private, link-local, shared (CGNAT), multicast, reserved, documentation and unspecified addresses. A
 * target's host is checked on every address it resolves to, at connect time, so a DNS name that points
 * (or is re-pointed) inside the network is refused as a literal IP would be. An IPv6 address that embeds an
 * IPv4 address (embeddedIpv4) is judged as that IPv4 address first.
 */
const BLOCKED_V4: [string, number][] = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
];
/**
 * Refused whatever IPv4 address they embed: IPv4-compatible (`::/96`) and IPv4-translated (`::ffff:0:0:0/96`)
 * addresses are deprecated and no public host has one; 6to4 (`2002::/16`) is deprecated (RFC 7526) and its
 * addresses can name hosts inside a network whose router has a public IPv4 address; Teredo (`2001::/32`,
 * inside `2001::/23`) embeds two obfuscated IPv4 addresses and is no webhook target either; the local-use NAT64
 * prefix (`64:ff9b:1::/48`) puts the IPv4 address where the network's operator chose. The well-known NAT64
 * prefix (`64:ff9b::/96`) and IPv4-mapped addresses are judged by their IPv4 address only: on an IPv6-only
 * network behind NAT64 every IPv4 target has such an address.
 */
const BLOCKED_V6: [string, number][] = [
  ['::', 96], ['::ffff:0:0:0', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 23], ['2001:db8::', 32], ['2002::', 16],
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

  /**
   * Whether a connection to this IP address is refused. An IPv6 address embedding an IPv4 address is allowed
   * when the list allows it or that IPv4 address, and refused when that IPv4 address or its own range is.
   */
  isBlocked(address: string): boolean {
    const ip = address.replace(/%.*$/, '');
    if (isIP(ip) === 4) return !this.allowed.check(ip, 'ipv4') && this.blocked.check(ip, 'ipv4');
    if (isIP(ip) !== 6) return true;
    if (this.allowed.check(ip, 'ipv6')) return false;
    const v4 = embeddedIpv4(ip);
    if (v4 !== null) {
      if (this.allowed.check(v4, 'ipv4')) return false;
      if (this.blocked.check(v4, 'ipv4')) return true;
    }
    return this.blocked.check(ip, 'ipv6');
  }

  /**
   * For a URL's host before any connection (the API's 400): a literal address that is blocked, or
   * `localhost`, unless the allow list covers it. Other names are checked when they resolve.
   */
  blockedLiteral(hostname: string): string | null {
    const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (isIP(host)) return this.isBlocked(host) ? host : null;
    // `localhost.` is the same name, fully qualified. It may resolve to either loopback address, and a
    // connection is refused if any address is blocked.
    const name = host.replace(/\.+$/, '');
    if (name === 'localhost' || name.endsWith('.localhost')) return this.isBlocked('127.0.0.1') || this.isBlocked('::1') ? host : null;
    return null;
  }

  /** A `lookup` for http.request: resolves, then refuses the connection if any address is blocked. */
  readonly lookup = (hostname: string, options: object, callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      const list = addresses;
      const bad = list.find((entry) => this.isBlocked(entry.address));
      if (bad) return callback(new BlockedAddressError(bad.address), '');
      if ((options as { all?: boolean }).all) return callback(null, list);
      return callback(null, list[0].address, list[0].family);
    });
  };
}

/**
 * The IPv4 address an IPv6 address carries, in the forms that carry one in a fixed place: IPv4-mapped
 * (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`, but not `::` or `::1`), IPv4-translated
 * (`::ffff:0:a.b.c.d`), the well-known NAT64 prefix (`64:ff9b::a.b.c.d`) and 6to4 (`2002:AABB:CCDD::/48`).
 * Each may be written in hex (`::7f00:1`) or dotted (`::127.0.0.1`). Null for any other address.
 */
export function embeddedIpv4(address: string): string | null {
  const g = ipv6Groups(address);
  if (g === null) return null;
  const zeros = (from: number, to: number) => g.slice(from, to).every((group) => group === 0);
  const low = (high: number, lowGroup: number) => `${high >> 8}.${high & 255}.${lowGroup >> 8}.${lowGroup & 255}`;
  if (zeros(0, 5) && g[5] === 0xffff) return low(g[6], g[7]);
  if (zeros(0, 6) && !(g[6] === 0 && g[7] <= 1)) return low(g[6], g[7]);
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return low(g[6], g[7]);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return low(g[6], g[7]);
  if (g[0] === 0x2002) return low(g[1], g[2]);
  return null;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing dotted IPv4 part as two groups). */
function ipv6Groups(address: string): number[] | null {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const head = parse(halves[0]);
  const tail = halves.length === 2 ? parse(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0) || [...head, ...tail].some((group) => !(group >= 0 && group <= 0xffff))) return null;
  return [...head, ...Array<number>(missing).fill(0), ...tail];
}
