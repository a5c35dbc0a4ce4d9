import ipaddr from 'ipaddr.js';

/**
 * The client a network address stands for, as the per-client limits count it
 * (docs/http.md, "Sharing the server fairly"). An IPv4 address is one client;
 * an IPv4-mapped IPv6 address is the IPv4 address it carries (a dual-stack
 * listener sees `::ffff:192.0.2.1`). An IPv6 address counts by its /64: that
 * is the smallest block a provider hands one subscriber, so anyone holding one
 * holds 2^64 addresses, and counting them one by one would limit nothing.
 */
export function clientKey(address: string | undefined): string {
  if (address === undefined || !ipaddr.isValid(address)) return address ?? 'unknown';
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  const parts = v6.parts.slice(0, 4);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`;
}
