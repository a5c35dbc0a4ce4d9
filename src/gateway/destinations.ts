import { readFileSync } from 'node:fs';
import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { HTTP_METHODS, MAX_RESPONSE_BYTES_CEILING } from '../shared/gateway-wire.js';
import { GatewayConfigError, GatewayError } from './errors.js';
import { isForbiddenHeader } from './request-shape.js';

const HeaderName = Type.String({ pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" });

const DestinationEntry = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 128 }),
    origins: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
    pathPrefixes: Type.Array(Type.String({ pattern: '^/' }), { minItems: 1 }),
    methods: Type.Array(Type.Union(HTTP_METHODS.map((m) => Type.Literal(m))), { minItems: 1 }),
    requestHeaders: Type.Array(HeaderName),
    responseHeaders: Type.Array(HeaderName),
    timeoutMs: Type.Integer({ minimum: 1, maximum: 300_000 }),
    maxResponseBytes: Type.Integer({ minimum: 1, maximum: MAX_RESPONSE_BYTES_CEILING }),
    credential: Type.Object(
      { header: HeaderName, env: Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), prefix: Type.Optional(Type.String()) },
      { additionalProperties: false },
    ),
    providerRequestIdHeader: Type.Optional(HeaderName),
  },
  { additionalProperties: false },
);

const DestinationsFile = Type.Object({ destinations: Type.Array(DestinationEntry) }, { additionalProperties: false });
const checkFile = TypeCompiler.Compile(DestinationsFile);

export type HttpMethod = (typeof HTTP_METHODS)[number];

/** One upstream the gateway may reach, and what a call to it may carry. */
export interface Destination {
  id: string;
  /** Exact origins (`https://api.example.com`), compared as strings, never resolved here. */
  origins: ReadonlySet<string>;
  pathPrefixes: readonly string[];
  methods: ReadonlySet<HttpMethod>;
  requestHeaders: ReadonlySet<string>;
  responseHeaders: ReadonlySet<string>;
  timeoutMs: number;
  maxResponseBytes: number;
  credential: { header: string; env: string; prefix: string };
  providerRequestIdHeader: string | undefined;
}

/**
 * Reads the destinations file and checks every entry, so a mistake stops the
 * process at start rather than surfacing as a refused call. The file names the
 * variables that hold the secrets; the secrets themselves are read by
 * `credentialValues`, only in the gateway process.
 */
export function loadDestinations(path: string): Destination[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new GatewayConfigError(`ATRIUM_GATEWAY_DESTINATIONS: cannot read ${path} as JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  return parseDestinations(raw, path);
}

export function parseDestinations(raw: unknown, source: string): Destination[] {
  if (!checkFile.Check(raw)) {
    const first = checkFile.Errors(raw).First();
    throw new GatewayConfigError(`ATRIUM_GATEWAY_DESTINATIONS: ${source}: ${first ? `${first.path || '/'} ${first.message}` : 'malformed'}`);
  }
  const seen = new Set<string>();
  return (raw as Static<typeof DestinationsFile>).destinations.map((entry, i) => {
    const where = `ATRIUM_GATEWAY_DESTINATIONS: ${source}: destination ${JSON.stringify(entry.id)} (/destinations/${i})`;
    if (seen.has(entry.id)) throw new GatewayConfigError(`${where}: the id is used twice`);
    seen.add(entry.id);
    const requestHeaders = new Set(entry.requestHeaders.map((h) => h.toLowerCase()));
    const credentialHeader = entry.credential.header.toLowerCase();
    for (const name of requestHeaders) {
      if (isForbiddenHeader(name)) throw new GatewayConfigError(`${where}: requestHeaders may not allow ${name}`);
      if (name === credentialHeader) throw new GatewayConfigError(`${where}: requestHeaders may not allow the credential header ${name}`);
    }
    const responseHeaders = new Set(entry.responseHeaders.map((h) => h.toLowerCase()));
    const providerRequestIdHeader = entry.providerRequestIdHeader?.toLowerCase();
    return {
      id: entry.id,
      origins: new Set(entry.origins.map((o) => parseOrigin(o, where))),
      pathPrefixes: entry.pathPrefixes,
      methods: new Set(entry.methods),
      requestHeaders,
      responseHeaders,
      timeoutMs: entry.timeoutMs,
      maxResponseBytes: entry.maxResponseBytes,
      credential: { header: credentialHeader, env: entry.credential.env, prefix: entry.credential.prefix ?? '' },
      providerRequestIdHeader,
    };
  });
}

/** An origin is scheme, host and port only; anything more would be silently ignored by an origin comparison. */
function parseOrigin(text: string, where: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new GatewayConfigError(`${where}: origin ${JSON.stringify(text)} is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new GatewayConfigError(`${where}: origin ${JSON.stringify(text)} must use http or https`);
  if (url.origin !== text.replace(/\/$/, '')) {
    throw new GatewayConfigError(`${where}: origin ${JSON.stringify(text)} must be exactly scheme://host[:port], as ${url.origin}`);
  }
  return url.origin;
}

/**
 * The secret of each destination, from the variable it names. A variable that
 * is unset or empty stops the process at start, named but never shown.
 */
export function credentialValues(destinations: readonly Destination[], env: NodeJS.ProcessEnv): Map<string, string> {
  const values = new Map<string, string>();
  for (const d of destinations) {
    const value = env[d.credential.env];
    if (!value) throw new GatewayConfigError(`destination ${JSON.stringify(d.id)}: its credential variable ${d.credential.env} is not set`);
    values.set(d.id, value);
  }
  return values;
}

/**
 * The destination policy: the URL's origin exactly one of the destination's,
 * its path under one of the prefixes, the method one of its methods. A prefix
 * covers itself and what lies below it as a path segment (`/v1` covers `/v1`
 * and `/v1/chat`, not `/v1beta`); a prefix ending in `/` covers what starts with it.
 */
export function checkDestinationPolicy(destination: Destination, url: URL, method: HttpMethod): void {
  if (!destination.origins.has(url.origin)) throw new GatewayError('destination_denied', `${url.origin} is not an origin of destination ${destination.id}`);
  if (!destination.pathPrefixes.some((prefix) => pathIsUnder(url.pathname, prefix))) {
    throw new GatewayError('destination_denied', `path ${url.pathname} is not under an allowed prefix of destination ${destination.id}`);
  }
  if (!destination.methods.has(method)) throw new GatewayError('destination_denied', `method ${method} is not allowed for destination ${destination.id}`);
}

function pathIsUnder(path: string, prefix: string): boolean {
  if (prefix.endsWith('/')) return path.startsWith(prefix);
  return path === prefix || path.startsWith(`${prefix}/`);
}
