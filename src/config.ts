import { dirname, join, resolve } from 'node:path';
import { addressPolicy } from './egress/address-policy.js';
import { DEFAULT_CALL_BUFFER_BYTES, MIN_CALL_BUFFER_BYTES } from './credentials/call-limits.js';

/**
 * Deployment configuration: the variables a deployment (and a black-box test) sets,
 * each documented in docs/configuration.md. Values may come
 * from a `.env` file; the process environment wins (dotenv never overrides).
 */
export interface Config {
  host: string;
  port: number;
  baseUrl: string;
  databaseUrl: string;
  stewardKey: string | undefined;
  /** `GET /metrics`: off, open (for a scraper on a private network), or guarded by its own bearer key. */
  metrics: { enabled: false } | { enabled: true; key: string | undefined };
  smtpUrl: string | undefined;
  mailFrom: string;
  egressAllowCidrs: string[];
  /** Seals the webhook signing keys at rest (webhooks/signing-keys.ts); unset: a file in the data directory. */
  webhookSealingKey: string | undefined;
  /** One outgoing webhook request's time limit (challenge or delivery attempt). */
  webhookTimeoutMs: number;
  /** Seconds between a delivery's attempts: 1 + its length attempts, then the delivery is dead (docs/webhooks.md). */
  webhookRetrySchedule: number[];
  /** Delivery attempts on the wire at once to one endpoint, all nodes together (docs/webhooks.md, "Fair sending"). */
  webhookConcurrencyPerEndpoint: number;
  /** Delivery attempts on the wire at once for one member's subscriptions, all nodes together. */
  webhookConcurrencyPerMember: number;
  /** Days a delivered, dead or cancelled webhook delivery is kept (the janitor, docs/operations.md); each subscription keeps its newest 100 regardless. */
  webhookDeliveryRetentionDays: number;
  /** Seconds between the janitor's runs on the leading node. */
  janitorIntervalSeconds: number;
  /** Challenges one endpoint may be sent per 10 minutes (429 beyond). */
  webhookVerifyRateLimitPerEndpoint: number;
  /** Challenges one member's endpoints may be sent per hour, all together (429 beyond). */
  webhookVerifyRateLimitPerMember: number;
  repositoryPath: string | undefined;
  /** Path of the host's credential connections file (gateway/connections); unset: no connections. */
  credentialConnectionsPath: string | undefined;
  /**
   * Where the credential gateway listens and the secret the service presents to
   * its `/v1/tickets`. `url` is ATRIUM_GATEWAY_URL, else the embedded gateway's
   * `http://127.0.0.1:<port>`; `issuerKey` is ATRIUM_GATEWAY_ISSUER_KEY, which
   * `atrium serve` fills with a fresh key when it starts the embedded gateway.
   * `destinationsPath` is read here only to decide whether to embed one: the
   * service never reads the destinations or the secrets they name.
   */
  gateway: { url: string; explicitUrl: boolean; port: number; issuerKey: string | undefined; destinationsPath: string | undefined };
  /**
   * Credential calls (`call_external_service`) this process lets run at once,
   * per member and per connection (429 beyond), and the bytes their answers may
   * hold together, whoever asks (503 beyond; src/credentials/call-limits.ts).
   * The gateway reads the same count variables and bounds what reaches it the same way.
   */
  credentialCalls: { perMember: number; perConnection: number; bufferBytes: number };
  openSignup: boolean;
  /**
   * Which proxies to believe about the client's address (X-Forwarded-For), as
   * Fastify's `trustProxy`: false (default), true, or the proxies' addresses/CIDRs.
   * Per-address limits count the wrong address behind a proxy without it.
   */
  trustProxy: boolean | string[];
  /** Anonymous agent registrations one network address may make per hour (429 beyond). */
  agentRegistrationRateLimit: number;
  /** OAuth Dynamic Client Registrations one network address may make per hour (429 beyond; docs/oauth.md). */
  oauthRegistrationRateLimit: number;
  /** Authorizations (`GET /oauth/authorize`) one network address may start per hour. */
  oauthAuthorizationRateLimit: number;
  /** Searches one network address may make per minute without a credential (429 beyond; docs/search.md). */
  anonymousSearchRateLimit: number;
  /** Whether this process's writes keep the search index, and its backfill runs (ATRIUM_SEARCH_INDEX; docs/configuration.md). */
  searchIndex: boolean;
  /** Client activations one network address may create per 15 minutes (429 beyond). */
  activationRateLimit: number;
  /** Seconds a client activation asks pollers to wait between polls. */
  activationPollSeconds: number;
  /** Time budget for finding the mentions in one message, counted from its arrival (422 beyond; mention-parser.ts). */
  mentionParseTimeoutMs: number;
  /** Worker threads that find mentions (mention-parser.ts). */
  mentionParseWorkers: number;
  /** Message bodies that may wait for a mention parser at once, host-wide (refused beyond). */
  mentionParseQueueLimit: number;
  /** Message bodies of one member that may wait or be parsed at once (refused beyond). */
  mentionParsePerMember: number;
  /** JSON-RPC messages one MCP request may carry (docs/mcp.md). */
  mcpMaxBatch: number;
  /** A request's headers and body must have arrived within this many ms (408 / closed beyond). */
  requestTimeoutMs: number;
  /** A request's headers must have arrived within this many ms. */
  headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this many ms. */
  keepAliveTimeoutMs: number;
  /** Open client connections the server accepts at once; further ones are closed at once. */
  maxConnections: number;
  /** Open client connections one network peer may hold at once. */
  maxConnectionsPerAddress: number;
  /** Long polls held open at once: in all, per client address, per member (answered at once with Retry-After beyond). */
  longPolls: { total: number; perAddress: number; perMember: number };
  /** Client activation polls one network address may make per minute (429 beyond). */
  activationPollRateLimit: number;
  /** Largest Markdown Resource version, in bytes of UTF-8 (422 beyond; docs/resources.md). */
  resourceMaxBytes: number;
  /** Directory for files (outbox mail, the running server's address): ATRIUM_DATA_DIR, else the SQLite file's directory, else ./data. */
  dataDir: string;
  /** SQLite only: how long a write waits for a lock another process holds before it is retried, then answered 503 (src/storage/busy.ts). */
  sqliteBusyTimeoutMs: number;
  logLevel: string;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const host = env.ATRIUM_HOST || '127.0.0.1';
  const port = parsePort(env.ATRIUM_PORT ?? '8080');
  // Files live in ATRIUM_DATA_DIR when it is set, the embedded database among them unless ATRIUM_DATABASE_URL says otherwise.
  const explicitDataDir = env.ATRIUM_DATA_DIR ? resolve(env.ATRIUM_DATA_DIR) : undefined;
  const databaseUrl = env.ATRIUM_DATABASE_URL || `sqlite:${explicitDataDir ? join(explicitDataDir, 'atrium.db') : './data/atrium.db'}`;
  const baseUrl = trimTrailingSlash(env.ATRIUM_BASE_URL || `http://localhost:${port}`);
  try {
    new URL(baseUrl);
  } catch {
    throw new ConfigError(`ATRIUM_BASE_URL is not a URL: ${baseUrl}`);
  }
  return {
    host,
    port,
    baseUrl,
    databaseUrl,
    stewardKey: env.ATRIUM_STEWARD_KEY || undefined,
    metrics: parseMetrics(env.ATRIUM_METRICS, env.ATRIUM_METRICS_KEY),
    smtpUrl: env.ATRIUM_SMTP_URL || undefined,
    mailFrom: env.ATRIUM_MAIL_FROM || 'atrium@localhost',
    egressAllowCidrs: parseEgressAllowCidrs(env.ATRIUM_EGRESS_ALLOW_CIDRS ?? ''),
    webhookSealingKey: parseSealingKey(env.ATRIUM_WEBHOOK_SEALING_KEY || undefined),
    webhookTimeoutMs: parsePositiveInt('ATRIUM_WEBHOOK_TIMEOUT_MS', env.ATRIUM_WEBHOOK_TIMEOUT_MS ?? '15000'),
    webhookRetrySchedule: parseRetrySchedule(env.ATRIUM_WEBHOOK_RETRY_SCHEDULE ?? DEFAULT_RETRY_SCHEDULE),
    webhookConcurrencyPerEndpoint: parsePositiveInt('ATRIUM_WEBHOOK_CONCURRENCY_PER_ENDPOINT', env.ATRIUM_WEBHOOK_CONCURRENCY_PER_ENDPOINT ?? '4'),
    webhookConcurrencyPerMember: parsePositiveInt('ATRIUM_WEBHOOK_CONCURRENCY_PER_MEMBER', env.ATRIUM_WEBHOOK_CONCURRENCY_PER_MEMBER ?? '8'),
    webhookDeliveryRetentionDays: parsePositiveInt('ATRIUM_WEBHOOK_DELIVERY_RETENTION_DAYS', env.ATRIUM_WEBHOOK_DELIVERY_RETENTION_DAYS ?? '30'),
    janitorIntervalSeconds: parsePositiveInt('ATRIUM_JANITOR_INTERVAL_SECONDS', env.ATRIUM_JANITOR_INTERVAL_SECONDS ?? '600'),
    webhookVerifyRateLimitPerEndpoint: parsePositiveInt('ATRIUM_WEBHOOK_VERIFY_RATE_LIMIT_PER_ENDPOINT', env.ATRIUM_WEBHOOK_VERIFY_RATE_LIMIT_PER_ENDPOINT ?? '5'),
    webhookVerifyRateLimitPerMember: parsePositiveInt('ATRIUM_WEBHOOK_VERIFY_RATE_LIMIT_PER_MEMBER', env.ATRIUM_WEBHOOK_VERIFY_RATE_LIMIT_PER_MEMBER ?? '30'),
    repositoryPath: env.ATRIUM_REPOSITORY_PATH || undefined,
    credentialConnectionsPath: env.ATRIUM_CREDENTIAL_CONNECTIONS || undefined,
    gateway: parseGateway(env),
    credentialCalls: {
      perMember: parsePositiveInt('ATRIUM_CREDENTIAL_CALLS_PER_MEMBER', env.ATRIUM_CREDENTIAL_CALLS_PER_MEMBER ?? '2'),
      perConnection: parsePositiveInt('ATRIUM_CREDENTIAL_CALLS_PER_CONNECTION', env.ATRIUM_CREDENTIAL_CALLS_PER_CONNECTION ?? '4'),
      bufferBytes: parseCallBufferBytes(env.ATRIUM_CREDENTIAL_BUFFER_BYTES ?? String(DEFAULT_CALL_BUFFER_BYTES)),
    },
    openSignup: env.ATRIUM_OPEN_SIGNUP === 'true',
    trustProxy: parseTrustProxy(env.ATRIUM_TRUST_PROXY ?? ''),
    agentRegistrationRateLimit: parsePositiveInt('ATRIUM_AGENT_REGISTRATION_RATE_LIMIT', env.ATRIUM_AGENT_REGISTRATION_RATE_LIMIT ?? '20'),
    oauthRegistrationRateLimit: parsePositiveInt('ATRIUM_OAUTH_REGISTRATION_RATE_LIMIT', env.ATRIUM_OAUTH_REGISTRATION_RATE_LIMIT ?? '20'),
    oauthAuthorizationRateLimit: parsePositiveInt('ATRIUM_OAUTH_AUTHORIZATION_RATE_LIMIT', env.ATRIUM_OAUTH_AUTHORIZATION_RATE_LIMIT ?? '120'),
    anonymousSearchRateLimit: parsePositiveInt('ATRIUM_SEARCH_ANONYMOUS_RATE_LIMIT', env.ATRIUM_SEARCH_ANONYMOUS_RATE_LIMIT ?? '60'),
    searchIndex: parseOnOff('ATRIUM_SEARCH_INDEX', env.ATRIUM_SEARCH_INDEX ?? 'on'),
    activationRateLimit: parsePositiveInt('ATRIUM_ACTIVATION_RATE_LIMIT', env.ATRIUM_ACTIVATION_RATE_LIMIT ?? '20'),
    activationPollSeconds: parsePositiveInt('ATRIUM_ACTIVATION_POLL_SECONDS', env.ATRIUM_ACTIVATION_POLL_SECONDS ?? '5'),
    mentionParseTimeoutMs: parsePositiveInt('ATRIUM_MENTION_PARSE_TIMEOUT_MS', env.ATRIUM_MENTION_PARSE_TIMEOUT_MS ?? '2000'),
    mentionParseWorkers: parsePositiveInt('ATRIUM_MENTION_PARSE_WORKERS', env.ATRIUM_MENTION_PARSE_WORKERS ?? '2'),
    mentionParseQueueLimit: parsePositiveInt('ATRIUM_MENTION_PARSE_QUEUE_LIMIT', env.ATRIUM_MENTION_PARSE_QUEUE_LIMIT ?? '64'),
    mentionParsePerMember: parsePositiveInt('ATRIUM_MENTION_PARSE_PER_MEMBER', env.ATRIUM_MENTION_PARSE_PER_MEMBER ?? '2'),
    mcpMaxBatch: parsePositiveInt('ATRIUM_MCP_MAX_BATCH', env.ATRIUM_MCP_MAX_BATCH ?? '20'),
    requestTimeoutMs: parsePositiveInt('ATRIUM_REQUEST_TIMEOUT_MS', env.ATRIUM_REQUEST_TIMEOUT_MS ?? '30000'),
    headersTimeoutMs: parsePositiveInt('ATRIUM_HEADERS_TIMEOUT_MS', env.ATRIUM_HEADERS_TIMEOUT_MS ?? '10000'),
    keepAliveTimeoutMs: parsePositiveInt('ATRIUM_KEEP_ALIVE_TIMEOUT_MS', env.ATRIUM_KEEP_ALIVE_TIMEOUT_MS ?? '5000'),
    maxConnections: parsePositiveInt('ATRIUM_MAX_CONNECTIONS', env.ATRIUM_MAX_CONNECTIONS ?? '768'),
    maxConnectionsPerAddress: parsePositiveInt('ATRIUM_MAX_CONNECTIONS_PER_ADDRESS', env.ATRIUM_MAX_CONNECTIONS_PER_ADDRESS ?? '256'),
    longPolls: parseLongPolls(env),
    activationPollRateLimit: parsePositiveInt('ATRIUM_ACTIVATION_POLL_RATE_LIMIT', env.ATRIUM_ACTIVATION_POLL_RATE_LIMIT ?? '120'),
    resourceMaxBytes: parseResourceMaxBytes(env.ATRIUM_RESOURCE_MAX_BYTES ?? String(DEFAULT_RESOURCE_MAX_BYTES)),
    dataDir: explicitDataDir ?? dataDirFor(databaseUrl),
    sqliteBusyTimeoutMs: parsePositiveInt('ATRIUM_SQLITE_BUSY_TIMEOUT_MS', env.ATRIUM_SQLITE_BUSY_TIMEOUT_MS ?? '5000'),
    logLevel: env.ATRIUM_LOG_LEVEL || 'info',
  };
}

/**
 * By default long polls may hold half the connections, so the other half is
 * always there for reads, writes and the request that would wake them.
 */
function parseLongPolls(env: NodeJS.ProcessEnv): Config['longPolls'] {
  const maxConnections = parsePositiveInt('ATRIUM_MAX_CONNECTIONS', env.ATRIUM_MAX_CONNECTIONS ?? '768');
  const total = parsePositiveInt('ATRIUM_MAX_LONG_POLLS', env.ATRIUM_MAX_LONG_POLLS ?? String(Math.max(1, Math.floor(maxConnections / 2))));
  if (total >= maxConnections) throw new ConfigError(`ATRIUM_MAX_LONG_POLLS (${total}) must be below ATRIUM_MAX_CONNECTIONS (${maxConnections}), or nothing is left for other requests`);
  return {
    total,
    perAddress: parsePositiveInt('ATRIUM_MAX_LONG_POLLS_PER_ADDRESS', env.ATRIUM_MAX_LONG_POLLS_PER_ADDRESS ?? '64'),
    perMember: parsePositiveInt('ATRIUM_MAX_LONG_POLLS_PER_MEMBER', env.ATRIUM_MAX_LONG_POLLS_PER_MEMBER ?? '16'),
  };
}

function parseMetrics(switchValue: string | undefined, key: string | undefined): Config['metrics'] {
  if (key) {
    if (key.length < 16) throw new ConfigError('ATRIUM_METRICS_KEY must be at least 16 characters');
    return { enabled: true, key };
  }
  const value = (switchValue ?? 'off').trim();
  if (value === 'on') return { enabled: true, key: undefined };
  if (value === 'off' || value === '') return { enabled: false };
  throw new ConfigError(`ATRIUM_METRICS must be on or off, got ${switchValue}`);
}

function parseOnOff(name: string, raw: string): boolean {
  const value = raw.trim();
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new ConfigError(`${name} must be on or off, got ${raw}`);
}

function parsePort(raw: string, name = 'ATRIUM_PORT'): number {
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`${name} must be an integer 0-65535, got ${raw}`);
  }
  return port;
}

function parseGateway(env: NodeJS.ProcessEnv): Config['gateway'] {
  const port = parsePort(env.ATRIUM_GATEWAY_PORT ?? '8081', 'ATRIUM_GATEWAY_PORT');
  const explicit = env.ATRIUM_GATEWAY_URL || undefined;
  if (explicit !== undefined) {
    try {
      new URL(explicit);
    } catch {
      throw new ConfigError(`ATRIUM_GATEWAY_URL is not a URL: ${explicit}`);
    }
  }
  return {
    url: explicit ? trimTrailingSlash(explicit) : `http://127.0.0.1:${port}`,
    explicitUrl: explicit !== undefined,
    port,
    issuerKey: env.ATRIUM_GATEWAY_ISSUER_KEY || undefined,
    destinationsPath: env.ATRIUM_GATEWAY_DESTINATIONS || undefined,
  };
}

function parseTrustProxy(raw: string): boolean | string[] {
  const value = raw.trim();
  if (value === '' || value === 'false') return false;
  if (value === 'true') return true;
  return value.split(',').map((s) => s.trim()).filter(Boolean);
}

export const DEFAULT_RETRY_SCHEDULE = '5,300,1800,7200,18000,36000,36000';

/**
 * Comma-separated seconds, each a non-negative number (fractions allowed, so a
 * test can retry within milliseconds); empty means no retries: one attempt.
 */
function parseRetrySchedule(raw: string): number[] {
  if (raw.trim() === '') return [];
  return raw.split(',').map((part) => {
    const value = Number(part.trim());
    if (part.trim() === '' || !Number.isFinite(value) || value < 0 || value > 7 * 24 * 3600) {
      throw new ConfigError(`ATRIUM_WEBHOOK_RETRY_SCHEDULE must be comma-separated seconds (0 to 604800 each), got ${raw}`);
    }
    return value;
  });
}

/** Every call must be able to run alone: the service does not know which destination's answers are the longest, so it assumes the ceiling. */
function parseCallBufferBytes(raw: string): number {
  const value = parsePositiveInt('ATRIUM_CREDENTIAL_BUFFER_BYTES', raw);
  if (value < MIN_CALL_BUFFER_BYTES) {
    throw new ConfigError(`ATRIUM_CREDENTIAL_BUFFER_BYTES (${value}) must be at least ${MIN_CALL_BUFFER_BYTES}, what one call at the longest answer a gateway may send can hold`);
  }
  return value;
}

function parsePositiveInt(name: string, raw: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new ConfigError(`${name} must be a positive integer, got ${raw}`);
  return value;
}

/** 1 MiB of UTF-8: the protocol leaves the Markdown Resource size to the host (protocol: Limits). */
export const DEFAULT_RESOURCE_MAX_BYTES = 1024 * 1024;
/**
 * A version is held in memory whole (decoded, hashed, and twice over as JSON at
 * the edge, whose body limit follows this one), so a typo such as an extra zero
 * must not turn into a gigabyte-sized request buffer.
 */
export const RESOURCE_MAX_BYTES_CEILING = 64 * 1024 * 1024;

function parseResourceMaxBytes(raw: string): number {
  const value = parsePositiveInt('ATRIUM_RESOURCE_MAX_BYTES', raw);
  if (value > RESOURCE_MAX_BYTES_CEILING) {
    throw new ConfigError(`ATRIUM_RESOURCE_MAX_BYTES must be at most ${RESOURCE_MAX_BYTES_CEILING} (64 MiB), got ${raw}`);
  }
  return value;
}

function trimTrailingSlash(url: string): string {
  return url.endsWith('/') ? url.slice(0, -1) : url;
}

function dataDirFor(databaseUrl: string): string {
  if (databaseUrl.startsWith('sqlite:')) {
    const path = databaseUrl.slice('sqlite:'.length);
    if (path && path !== ':memory:') return dirname(resolve(path));
  }
  return resolve('./data');
}

/** Exempt ranges for outgoing requests (src/egress/); a malformed one stops the start. */
function parseEgressAllowCidrs(text: string): string[] {
  const cidrs = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  try {
    addressPolicy(cidrs);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  return cidrs;
}

/** 32 bytes in base64url (webhooks/signing-keys.ts); anything else stops the start. */
function parseSealingKey(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  if (!/^[A-Za-z0-9_-]{43}=?$/.test(text.trim()) || Buffer.from(text.trim(), 'base64url').length !== 32) {
    throw new ConfigError('ATRIUM_WEBHOOK_SEALING_KEY must be 32 random bytes in base64url, such as the output of `openssl rand 32 | basenc --base64url`');
  }
  return text.trim();
}
