import ipaddr from 'ipaddr.js';

/**
 * Which addresses outgoing requests (webhook challenges and deliveries,
 * credential gateway calls) may reach. By default only public unicast: a URL
 * that names or resolves to the host itself, the private network, a link-local
 * metadata service or a multicast group is refused, so a member cannot aim
 * Atrium at what sits behind it. An operator may exempt ranges
 * (`ATRIUM_EGRESS_ALLOW_CIDRS`) for receivers on a private network, and tests
 * use it for loopback.
 *
 * This module imports nothing from the service: the credential gateway, a
 * separate process, shares it.
 */
export interface AddressPolicy {
  readonly allow: ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]>;
}

export type AddressJudgement = { allowed: true; allowListed: boolean } | { allowed: false; reason: string };

/** Parses the exempt ranges; a malformed entry is a configuration error, reported by name. */
export function addressPolicy(cidrs: readonly string[]): AddressPolicy {
  return {
    allow: cidrs.map((cidr) => {
      try {
        return ipaddr.parseCIDR(cidr);
      } catch {
        throw new Error(`ATRIUM_EGRESS_ALLOW_CIDRS: ${JSON.stringify(cidr)} is not an IPv4 or IPv6 CIDR such as 10.0.0.0/8`);
      }
    }),
  };
}

/**
 * Judges one IP address. An IPv4-mapped IPv6 address is judged as the IPv4
 * address it carries. Every other IPv6 form that embeds an IPv4 address
 * (IPv4-compatible, NAT64, 6to4, Teredo) is refused outright unless
 * allow-listed as IPv6: through a translator or tunnel it can reach any IPv4
 * address, private ones included, and no receiver needs one when it has an
 * address of its own.
 */
export function judgeAddress(text: string, policy: AddressPolicy): AddressJudgement {
  if (!ipaddr.isValid(text)) return { allowed: false, reason: `${text} is not an IP address` };
  let address = parseAddress(text);
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) address = (address as ipaddr.IPv6).toIPv4Address();
  if (policy.allow.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits))) {
    return { allowed: true, allowListed: true };
  }
  const range = rangeOf(address);
  if (range === 'unicast') return { allowed: true, allowListed: false };
  return { allowed: false, reason: `${text} is not a public address (${describeRange(range)})` };
}

/**
 * ipaddr.js reads the old notation `::a.b.c.d` as IPv4-mapped
 * (`::ffff:a.b.c.d`), but a socket connects to the IPv4-compatible address
 * it spells (::/96), and Node's resolver prints an AAAA answer in ::/96 that
 * way (`::808:808` comes back as `::8.8.8.8`). One zero group written out
 * makes ipaddr.js read the address the socket would use.
 */
function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 {
  return ipaddr.parse(/^::[^:]*\./.test(text) ? `::0:${text.slice(2)}` : text);
}

/** ::/96, IPv4-compatible (RFC 4291, deprecated); ipaddr.js names only `::` and `::1` in it. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

function rangeOf(address: ipaddr.IPv4 | ipaddr.IPv6): string {
  const range = address.range();
  if (range === 'unicast' && address.kind() === 'ipv6' && address.match(IPV4_COMPATIBLE)) return 'ipv4Compatible';
  return range;
}

const RANGE_NAMES: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT',
  private: 'private network',
  reserved: 'reserved',
  uniqueLocal: 'unique local',
  ipv4Compatible: 'IPv4-compatible',
  rfc6052: 'NAT64',
  rfc6145: 'IPv4-translated',
  '6to4': '6to4',
  teredo: 'Teredo',
};

function describeRange(range: string): string {
  return RANGE_NAMES[range] ?? `special-purpose: ${range}`;
}
