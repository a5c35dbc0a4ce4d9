import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { judgeAddress, type AddressPolicy } from './address-policy.js';

/** An outgoing request refused before anything was sent, and why (safe to show its owner). */
export class EgressRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'EgressRefused';
  }
}

/** Every address a host name resolves to; injectable so tests resolve names without DNS. */
export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/**
 * Parses a receiver or destination URL as a browser would (WHATWG). Refuses
 * what can never be sent: another scheme, credentials in the URL, no host.
 * Whether `http` is acceptable depends on where the host resolves, which
 * `resolveTarget` decides at each attempt.
 */
export function parseTargetUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new EgressRefused('the URL is not an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new EgressRefused(`the URL must use https, not ${url.protocol.slice(0, -1)}`);
  if (url.username !== '' || url.password !== '') throw new EgressRefused('the URL must not carry a user name or password');
  if (url.hostname === '') throw new EgressRefused('the URL has no host');
  return url;
}

/** Where one attempt connects: the address that was checked, never a second lookup. */
export interface ResolvedTarget {
  url: URL;
  hostname: string;
  address: string;
  family: 4 | 6;
}

/**
 * Resolves the URL's host once and judges every address it resolves to: one
 * address that is not allowed refuses the whole target, since a later
 * connection could otherwise be steered to it (DNS rebinding). `http` is
 * accepted only when every address is allow-listed (a private receiver); a
 * public one must be reached with TLS.
 */
export async function resolveTarget(url: URL, policy: AddressPolicy, resolver: Resolver = systemResolver): Promise<ResolvedTarget> {
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  let addresses: Array<{ address: string; family: number }>;
  if (isIP(hostname) !== 0) {
    addresses = [{ address: hostname, family: isIP(hostname) }];
  } else {
    try {
      addresses = await resolver(hostname);
    } catch {
      throw new EgressRefused(`${hostname} could not be resolved`);
    }
    if (addresses.length === 0) throw new EgressRefused(`${hostname} could not be resolved`);
  }
  let allAllowListed = true;
  for (const { address } of addresses) {
    const judgement = judgeAddress(address, policy);
    if (!judgement.allowed) throw new EgressRefused(judgement.reason);
    allAllowListed &&= judgement.allowListed;
  }
  if (url.protocol === 'http:' && !allAllowListed) throw new EgressRefused('the URL must use https (http only reaches allow-listed ranges)');
  const first = addresses[0]!;
  return { url, hostname, address: first.address, family: first.family === 6 ? 6 : 4 };
}
