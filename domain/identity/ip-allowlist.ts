import { isIP } from 'node:net';

/** Normalises `::ffff:1.2.3.4` (IPv4 seen through an IPv6 socket) to `1.2.3.4`. */
export function normaliseIp(ip: string | undefined): string | undefined {
  if (!ip) return undefined;
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return v4 ? v4[1] : ip;
}

export type Cidr = { address: string; prefix: number; family: 'ipv4' | 'ipv6' };

/** An IPv6 address as a 128-bit number (`::`, embedded IPv4 and zone-less forms). */
export function ipv6ToBigInt(address: string): bigint {
  let text = address;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4[1]!.split('.').map(Number) as [number, number, number, number];
    text = text.slice(0, -v4[1]!.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const zeros = Array.from({ length: 8 - left.length - right.length }, () => '0');
  const groups = tail === undefined ? left : [...left, ...zeros, ...right];
  return groups.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
}

/** The canonical text (RFC 5952, as the WHATWG URL parser writes it) of a 128-bit number. */
const bigIntToIpv6 = (n: bigint): string => {
  const groups = Array.from({ length: 8 }, (_, i) => ((n >> BigInt((7 - i) * 16)) & 0xffffn).toString(16));
  return new URL(`http://[${groups.join(':')}]`).hostname.slice(1, -1);
};

/** The network an address and prefix name: `10.1.2.3/8` is `10.0.0.0/8`. */
function networkOf(address: string, prefix: number, family: 'ipv4' | 'ipv6'): string {
  if (family === 'ipv4') {
    const n = address.split('.').reduce((acc, o) => acc * 256 + Number(o), 0);
    const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
    const net = (n & mask) >>> 0;
    return [24, 16, 8, 0].map((s) => (net >>> s) & 255).join('.');
  }
  const mask = prefix === 0 ? 0n : ((1n << 128n) - 1n) ^ ((1n << BigInt(128 - prefix)) - 1n);
  return bigIntToIpv6(ipv6ToBigInt(address) & mask);
}

/**
 * Parses `10.0.0.0/8`, `2001:db8::/32` or a bare address, strictly: anything else (`203.0.113.5/`,
 * `10.0.0.0/8/32`, a prefix with a sign or leading zeros) is malformed and answers undefined, never a
 * wider network. The address is the network's own (`10.1.2.3/8` gives `10.0.0.0`).
 */
export function parseCidr(cidr: string): Cidr | undefined {
  const match = /^([^/\s]+)(?:\/(0|[1-9]\d{0,2}))?$/.exec(cidr.trim());
  if (!match) return undefined;
  const address = match[1]!;
  const version = isIP(address);
  if (version === 0 || address.includes('%')) return undefined;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const max = version === 4 ? 32 : 128;
  const prefix = match[2] === undefined ? max : Number(match[2]);
  if (prefix > max) return undefined;
  return { address: networkOf(address, prefix, family), prefix, family };
}

/** The form an allowlist entry is stored in: the network and its prefix (`10.0.0.0/8`, `2001:db8::/32`). */
export const normaliseCidr = (entry: string): string | undefined => {
  const c = parseCidr(entry);
  return c && `${c.address}/${c.prefix}`;
};
