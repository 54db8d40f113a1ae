import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

// Loopback, private, link-local, CGNAT, multicast, documentation and other non-public ranges.
const blocked = new BlockList();
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
  blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(net, prefix, 'ipv6');

export const isPublicAddress = (raw: string): boolean => {
  // IPv4-mapped IPv6 (::ffff:10.0.0.1) is judged by the IPv4 address inside it.
  const address = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(raw)?.[1] ?? raw;
  const family = isIP(address);
  return family !== 0 && !blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
};

export type UrlVerdict =
  { ok: true; url: URL; address?: { address: string; family: number } } | { ok: false; reason: string };

/**
 * The target policy: https only, and every address the host resolves to must be public, unless
 * private targets are allowed (dev), which also allows http. Checked at creation and before every
 * attempt; the attempt then connects to the very address checked here, so DNS rebinding cannot
 * swap in a private one between check and connect.
 */
export async function checkTarget(raw: string, allowPrivate: boolean): Promise<UrlVerdict> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not a valid URL' };
  }
  if (url.username || url.password) return { ok: false, reason: 'credentials in the URL are not allowed' };
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) return { ok: false, reason: 'the URL must use https' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string; family: number }[];
  try {
    addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true });
  } catch {
    return { ok: false, reason: `the host ${host} does not resolve` };
  }
  if (addresses.length === 0) return { ok: false, reason: `the host ${host} does not resolve` };
  if (!allowPrivate) {
    const bad = addresses.find((a) => !isPublicAddress(a.address));
    if (bad)
      return { ok: false, reason: `the host ${host} resolves to a non-public address (${bad.address})` };
  }
  return { ok: true, url, address: addresses[0] };
}
