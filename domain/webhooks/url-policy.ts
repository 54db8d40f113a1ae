import { Resolver } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { ipv6ToBigInt } from '../identity';

// Loopback, private, link-local, CGNAT, multicast, documentation and other non-public IPv4 ranges.
const blockedV4 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blockedV4.addSubnet(net, prefix, 'ipv4');

// Inside global unicast (2000::/3), the IANA special-purpose blocks: IETF protocol assignments
// (Teredo, ORCHID, benchmarking...) and documentation.
const blockedV6 = new BlockList();
for (const [net, prefix] of [
  ['2001::', 23],
  ['2001:db8::', 32],
  ['3fff::', 20],
] as const)
  blockedV6.addSubnet(net, prefix, 'ipv6');

const v4Text = (n: bigint) => [24n, 16n, 8n, 0n].map((s) => Number((n >> s) & 255n)).join('.');
const top = (n: bigint, bits: number) => n >> BigInt(128 - bits);

/**
 * The IPv4 address an IPv6 form carries to an IPv4 host: IPv4-mapped (`::ffff:a.b.c.d`),
 * IPv4-compatible (`::a.b.c.d`), NAT64 (`64:ff9b::/96` and the local-use `64:ff9b:1::/48`) and 6to4
 * (`2002::/16`). Where such routes exist each reaches that IPv4 host, so it is judged as IPv4.
 */
function embeddedIpv4(n: bigint): string | undefined {
  if (top(n, 96) === 0n || top(n, 96) === 0xffffn) return v4Text(n & 0xffffffffn);
  if (top(n, 96) === 0x0064ff9b0000000000000000n || top(n, 48) === 0x0064ff9b0001n)
    return v4Text(n & 0xffffffffn);
  if (top(n, 16) === 0x2002n) return v4Text((n >> 80n) & 0xffffffffn);
  return undefined;
}

/** Public means reachable on the internet: IPv4 outside the special ranges; IPv6 global unicast outside them. */
export const isPublicAddress = (raw: string): boolean => {
  const family = isIP(raw);
  if (family === 4) return !blockedV4.check(raw, 'ipv4');
  if (family !== 6 || raw.includes('%')) return false;
  const n = ipv6ToBigInt(raw);
  const v4 = embeddedIpv4(n);
  if (v4 !== undefined) return isPublicAddress(v4);
  return top(n, 3) === 1n && !blockedV6.check(raw, 'ipv6');
};

export type UrlVerdict =
  | { ok: true; url: URL; address?: { address: string; family: number } }
  | { ok: false; reason: string; kind: 'blocked' | 'dns' | 'timeout' };

export type ResolveOptions = {
  /** The attempt's deadline (and its cancellation): resolution stops when it fires. */
  signal?: AbortSignal;
  /** DNS servers to ask instead of the system's (tests run one on loopback). */
  dnsServers?: string[];
};

// Per query; the caller's deadline bounds the whole resolution anyway.
const DNS_QUERY_TIMEOUT_MS = 2_500;
const DNS_TRIES = 2;

class ResolutionTimeout extends Error {}

/**
 * A host's A and AAAA records, asked with c-ares on the event loop, not `dns.lookup` on libuv's four
 * threads: slow resolvers then cost sockets, not the thread pool everything else shares. `localhost`
 * is loopback by definition (RFC 6761), without asking anyone.
 */
async function resolveHost(
  host: string,
  opts: ResolveOptions,
): Promise<{ address: string; family: number }[]> {
  if (host === 'localhost' || host.endsWith('.localhost'))
    return [
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ];
  const resolver = new Resolver({ timeout: DNS_QUERY_TIMEOUT_MS, tries: DNS_TRIES });
  if (opts.dnsServers) resolver.setServers(opts.dnsServers);
  const { signal } = opts;
  signal?.throwIfAborted();
  let onAbort = () => undefined as void;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => {
      resolver.cancel();
      reject(new ResolutionTimeout());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const [v4, v6] = await Promise.race([
      Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]),
      aborted,
    ]);
    const addresses = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
    ];
    const timedOut = [v4, v6].some(
      (r) => r.status === 'rejected' && (r.reason as { code?: string }).code === 'ETIMEOUT',
    );
    if (addresses.length === 0 && timedOut) throw new ResolutionTimeout();
    return addresses;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * The target policy: https only, and every address the host resolves to must be public, unless
 * private targets are allowed (dev), which also allows http. Checked at creation and before every
 * attempt; the attempt then connects to the very address checked here, so DNS rebinding cannot
 * swap in a private one between check and connect.
 */
export async function checkTarget(
  raw: string,
  allowPrivate: boolean,
  opts: ResolveOptions = {},
): Promise<UrlVerdict> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not a valid URL', kind: 'blocked' };
  }
  if (url.username || url.password)
    return { ok: false, reason: 'credentials in the URL are not allowed', kind: 'blocked' };
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol))
    return { ok: false, reason: 'the URL must use https', kind: 'blocked' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string; family: number }[];
  try {
    addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await resolveHost(host, opts);
  } catch (err) {
    if (err instanceof ResolutionTimeout)
      return { ok: false, reason: `resolving ${host} took too long`, kind: 'timeout' };
    addresses = [];
  }
  if (addresses.length === 0) return { ok: false, reason: `the host ${host} does not resolve`, kind: 'dns' };
  if (!allowPrivate) {
    const bad = addresses.find((a) => !isPublicAddress(a.address));
    if (bad)
      return {
        ok: false,
        reason: `the host ${host} resolves to a non-public address (${bad.address})`,
        kind: 'blocked',
      };
  }
  return { ok: true, url, address: addresses[0] };
}
