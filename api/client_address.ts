import { isIPv6 } from 'node:net';

/**
 * The key a per-address limit counts under. An IPv4 address is itself. An IPv6 address
 * counts as its /64 network: one subscriber is routinely handed a whole /64, and
 * keying by the full address would give one machine 2^64 allowances. An IPv4-mapped
 * IPv6 address (::ffff:a.b.c.d, as a dual-stack socket reports IPv4 clients) is its IPv4 address.
 */
export function clientAddressKey(ip: string): string {
  // Every IPv6 address has a colon: an IPv4 client (the common case, on every read) skips isIPv6's long pattern.
  if (!ip.includes(':')) return ip;
  const address = ip.split('%')[0]!; // a zone id names the local interface, not the client
  if (!isIPv6(address)) return ip;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1]!;
  return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of a valid IPv6 address, '::' expanded, each in lowercase hex without leading zeros. */
function ipv6Groups(address: string): string[] {
  const [head = '', tail] = address.split('::');
  const split = (part: string) => (part === '' ? [] : part.split(':'));
  // A trailing dotted IPv4 part fills the last two groups; it never reaches the /64 prefix, so it stays as written.
  const width = (groups: string[]) => groups.reduce((sum, group) => sum + (group.includes('.') ? 2 : 1), 0);
  const head_groups = split(head);
  const tail_groups = tail === undefined ? [] : split(tail);
  const zeros = tail === undefined ? [] : Array<string>(8 - width(head_groups) - width(tail_groups)).fill('0');
  return [...head_groups, ...zeros, ...tail_groups].map((group) =>
    group.includes('.') ? group : parseInt(group, 16).toString(16),
  );
}
