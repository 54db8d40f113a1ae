import { BlockList, isIP } from 'node:net';

/** Normalises `::ffff:1.2.3.4` (IPv4 seen through an IPv6 socket) to `1.2.3.4`. */
export function normaliseIp(ip: string | undefined): string | undefined {
  if (!ip) return undefined;
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return v4 ? v4[1] : ip;
}

/** Parses `10.0.0.0/8`, `2001:db8::/32` or a bare address; returns undefined when malformed. */
export function parseCidr(
  cidr: string,
): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [address = '', prefixText] = cidr.trim().split('/');
  const version = isIP(address);
  if (version === 0) return undefined;
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > max || (prefixText ?? '').match(/\D/))
    return undefined;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** An empty allowlist allows every address; a non-empty one refuses unknown or unlisted callers. */
export function ipAllowed(allowlist: readonly string[], ip: string | undefined): boolean {
  if (allowlist.length === 0) return true;
  const caller = normaliseIp(ip);
  const version = caller ? isIP(caller) : 0;
  if (!caller || version === 0) return false;
  const list = new BlockList();
  for (const entry of allowlist) {
    const parsed = parseCidr(entry);
    if (parsed) list.addSubnet(parsed.address, parsed.prefix, parsed.family);
  }
  return list.check(caller, version === 4 ? 'ipv4' : 'ipv6');
}
