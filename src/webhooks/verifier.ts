import { createHash, createPublicKey, verify as verifyEd25519, type KeyObject } from 'node:crypto';

/**
 * Verifies requests from an Atrium host on the receiving side (docs/webhooks.md,
 * "Receiving"). It imports nothing from the service, so a receiver can copy
 * this one file, or import it, and need nothing but Node.
 */

export const WEBHOOK_SPEC_VERSION = 'atrium.webhooks/1';

export const SPACE_DELIVERY = 'atrium.events.available';
export const INBOX_DELIVERY = 'atrium.inbox_events.available';
export const CHALLENGE = 'atrium.webhook.challenge';

/** One member of the host's JWK Set (`GET /v0/webhook-signing-keys`); only Ed25519 keys are used. */
export interface WebhookJwk {
  kid: string;
  kty: string;
  crv?: string;
  x?: string;
  alg?: string;
  use?: string;
  status?: string;
  created_ts?: string;
}

/** Events with `after < cursor <= through` may concern the subscription. */
export interface EventRange {
  after: number;
  through: number;
}

interface DeliveryFields {
  spec_version: typeof WEBHOOK_SPEC_VERSION;
  id: string;
  issuer: string;
  subscription_id: string;
  subscription_version: number;
  event_range: EventRange;
  created_ts: string;
}

export interface SpaceDeliveryEnvelope extends DeliveryFields {
  type: typeof SPACE_DELIVERY;
  space: string;
}

export interface InboxDeliveryEnvelope extends DeliveryFields {
  type: typeof INBOX_DELIVERY;
}

export interface ChallengeEnvelope {
  spec_version: typeof WEBHOOK_SPEC_VERSION;
  id: string;
  type: typeof CHALLENGE;
  issuer: string;
  challenge: string;
  created_ts: string;
}

export type DeliveryEnvelope = SpaceDeliveryEnvelope | InboxDeliveryEnvelope;
export type WebhookEnvelope = DeliveryEnvelope | ChallengeEnvelope;
export type WebhookType = WebhookEnvelope['type'];

export type WebhookVerificationReason =
  | 'malformed'
  | 'stale_timestamp'
  | 'unknown_key'
  | 'bad_signature'
  | 'id_mismatch'
  | 'wrong_issuer'
  | 'wrong_type'
  | 'wrong_subscription'
  | 'wrong_endpoint'
  | 'keys_unavailable';

/**
 * Why a request was refused. `retryable` is true when the request may be
 * genuine and could pass later (the key set could not be fetched, or a key
 * is new but the set was fetched too recently to fetch it again): answer those
 * with a 5xx so the host tries again, and everything else with a 4xx.
 */
export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
    readonly retryable = false,
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** A header bag as Node's `IncomingMessage.headers` or a fetch `Headers`. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifiedWebhook {
  envelope: WebhookEnvelope;
  /** The `kid` of the key that signed. */
  keyId: string;
  /** `Webhook-Timestamp`, Unix seconds. */
  timestamp: number;
}

export interface WebhookVerifierOptions {
  /** The host's base URL, as it names itself in `issuer` (a trailing slash is ignored). */
  issuer: string;
  /** Where the key set comes from; the default fetches `keysUrl`. */
  fetchKeys?: () => Promise<WebhookJwk[]>;
  /** Default `<issuer>/v0/webhook-signing-keys`. */
  keysUrl?: string;
  /** When set, deliveries for any other subscription are refused (challenges name none). */
  subscriptionId?: string;
  /**
   * When set, challenges for any other endpoint are refused (`wrong_endpoint`),
   * so only the endpoint registered for this receiver can be verified with it.
   */
  endpointId?: string;
  /** The envelope types accepted; default all three. */
  types?: readonly WebhookType[];
  /** How far `Webhook-Timestamp` may be from now, either way. Default 300. */
  toleranceSeconds?: number;
  /** A key set older than this is fetched again before use. Default 600. */
  cacheMaxAgeSeconds?: number;
  /** An unknown `kid` fetches the set again at most this often. Default 30. */
  cooldownSeconds?: number;
  now?: () => Date;
}

const SIGNATURE = /^[A-Za-z0-9_-]{86}$/;
const TIMESTAMP = /^\d{1,15}$/;
const KEYS_TIMEOUT_MS = 10_000;

interface KeyCache {
  keys: Map<string, KeyObject>;
  fetchedAt: number;
}

/**
 * Checks, in this order: the headers are present and well formed, the
 * timestamp is fresh, the key is in the host's set, the Ed25519 signature
 * holds over `<kid>.<timestamp>.<raw body>`, and then the signed body: `id`
 * equals `Webhook-Id`, `issuer` is the expected host, the type is accepted,
 * the envelope has its fields, a delivery names the expected subscription,
 * and a challenge the expected endpoint.
 *
 * Nothing compared here is a secret: authenticity rests on the signature
 * alone, which Ed25519 verification decides, so plain comparisons are safe.
 */
export class WebhookVerifier {
  private readonly issuer: string;
  private readonly fetchKeys: () => Promise<WebhookJwk[]>;
  private readonly subscriptionId: string | undefined;
  private readonly endpointId: string | undefined;
  private readonly types: ReadonlySet<string>;
  private readonly toleranceSeconds: number;
  private readonly cacheMaxAgeMs: number;
  private readonly cooldownMs: number;
  private readonly now: () => Date;
  private cache: KeyCache | undefined;
  private inFlight: Promise<KeyCache> | undefined;

  constructor(opts: WebhookVerifierOptions) {
    this.issuer = opts.issuer.replace(/\/+$/, '');
    const keysUrl = opts.keysUrl ?? `${this.issuer}/v0/webhook-signing-keys`;
    this.fetchKeys = opts.fetchKeys ?? (() => fetchKeySet(keysUrl));
    this.subscriptionId = opts.subscriptionId;
    this.endpointId = opts.endpointId;
    this.types = new Set(opts.types ?? [SPACE_DELIVERY, INBOX_DELIVERY, CHALLENGE]);
    this.toleranceSeconds = opts.toleranceSeconds ?? 300;
    this.cacheMaxAgeMs = (opts.cacheMaxAgeSeconds ?? 600) * 1000;
    this.cooldownMs = (opts.cooldownSeconds ?? 30) * 1000;
    this.now = opts.now ?? (() => new Date());
  }

  async verify(request: { headers: WebhookHeaders; rawBody: Buffer | Uint8Array | string }): Promise<VerifiedWebhook> {
    const id = header(request.headers, 'webhook-id');
    const keyId = header(request.headers, 'webhook-key-id');
    const timestampText = header(request.headers, 'webhook-timestamp');
    const signatureText = header(request.headers, 'webhook-signature');
    if (!id || !keyId || !timestampText || !signatureText) {
      throw refused('malformed', 'Webhook-Id, Webhook-Key-Id, Webhook-Timestamp and Webhook-Signature are all required');
    }
    if (!TIMESTAMP.test(timestampText)) throw refused('malformed', 'Webhook-Timestamp is not Unix seconds');
    const timestamp = Number(timestampText);
    const skew = Math.abs(Math.floor(this.now().getTime() / 1000) - timestamp);
    if (skew > this.toleranceSeconds) throw refused('stale_timestamp', `Webhook-Timestamp is ${skew} s from now, more than ${this.toleranceSeconds} s`);
    // Space-separated so that a later scheme can be sent beside v1; only v1 is understood.
    const signatures = signatureText
      .split(' ')
      .filter((part) => part.startsWith('v1='))
      .map((part) => part.slice(3));
    if (signatures.length === 0 || !signatures.every((s) => SIGNATURE.test(s))) {
      throw refused('malformed', 'Webhook-Signature is not v1= and an unpadded base64url Ed25519 signature');
    }

    const key = await this.keyFor(keyId);
    const raw = typeof request.rawBody === 'string' ? Buffer.from(request.rawBody, 'utf8') : Buffer.from(request.rawBody);
    const signed = Buffer.concat([Buffer.from(`${keyId}.${timestampText}.`, 'utf8'), raw]);
    if (!signatures.some((s) => verifyEd25519(null, signed, key, Buffer.from(s, 'base64url')))) {
      throw refused('bad_signature', 'the signature does not verify over this body with the named key');
    }

    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      throw refused('malformed', 'the body is not JSON');
    }
    if (!isObject(body)) throw refused('malformed', 'the body is not a JSON object');
    if (body.id !== id) throw refused('id_mismatch', 'the body `id` differs from Webhook-Id');
    if (body.issuer !== this.issuer) throw refused('wrong_issuer', `the issuer is ${JSON.stringify(body.issuer)}, not ${this.issuer}`);
    if (body.spec_version !== WEBHOOK_SPEC_VERSION) throw refused('malformed', `spec_version is not ${WEBHOOK_SPEC_VERSION}`);
    if (typeof body.type !== 'string' || !this.types.has(body.type)) throw refused('wrong_type', `type ${JSON.stringify(body.type)} is not accepted here`);
    const envelope = checkEnvelope(body);
    if (envelope.type !== CHALLENGE && this.subscriptionId !== undefined && envelope.subscription_id !== this.subscriptionId) {
      throw refused('wrong_subscription', `the delivery is for ${envelope.subscription_id}, not ${this.subscriptionId}`);
    }
    if (envelope.type === CHALLENGE && this.endpointId !== undefined) {
      const endpoint = challengeEndpointId(envelope.challenge);
      if (endpoint !== this.endpointId) {
        throw refused('wrong_endpoint', `the challenge is for ${endpoint === undefined ? 'no endpoint' : `endpoint ${endpoint}`}, not ${this.endpointId}`);
      }
    }
    return { envelope, keyId, timestamp };
  }

  /**
   * The named key from the cached set; a set past its age is fetched again,
   * and an unknown `kid` (the host rotated) fetches it once more, though not
   * more often than the cooldown, so forged key ids cannot make this receiver
   * hammer the host.
   */
  private async keyFor(kid: string): Promise<KeyObject> {
    const nowMs = this.now().getTime();
    let cache = this.cache;
    let fetched = false;
    if (!cache || nowMs - cache.fetchedAt > this.cacheMaxAgeMs) {
      cache = await this.refresh();
      fetched = true;
    }
    const cached = cache.keys.get(kid);
    if (cached) return cached;
    if (!fetched) {
      if (nowMs - cache.fetchedAt < this.cooldownMs) {
        throw refused('unknown_key', `key ${kid} is not in the key set, fetched too recently to fetch again`, true);
      }
      const fresh = (await this.refresh()).keys.get(kid);
      if (fresh) return fresh;
    }
    throw refused('unknown_key', `key ${kid} is not in the host's key set`);
  }

  private refresh(): Promise<KeyCache> {
    // Requests arriving together share one fetch.
    this.inFlight ??= (async () => {
      const fetchedAt = this.now().getTime();
      let jwks: WebhookJwk[];
      try {
        jwks = await this.fetchKeys();
      } catch (err) {
        throw refused('keys_unavailable', `the host's key set could not be fetched: ${err instanceof Error ? err.message : String(err)}`, true);
      }
      const cache = { keys: importKeys(jwks), fetchedAt };
      this.cache = cache;
      return cache;
    })().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }
}

/**
 * The endpoint a challenge is for. The host writes `challenge` as
 * `<endpoint id>.<random>` (an endpoint id is `whep_` and letters and digits;
 * the random part is base64url, so neither holds a dot), which puts the
 * endpoint under the signature. Undefined when the value names none.
 */
export function challengeEndpointId(challenge: string): string | undefined {
  return /^(whep_[A-Za-z0-9]+)\.[A-Za-z0-9_-]+$/.exec(challenge)?.[1];
}

function refused(reason: WebhookVerificationReason, message: string, retryable = false): WebhookVerificationError {
  return new WebhookVerificationError(reason, message, retryable);
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() !== name) continue;
    if (Array.isArray(value)) {
      if (value.length !== 1) throw refused('malformed', `${name} is sent more than once`);
      return value[0];
    }
    return value;
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCursor(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isText(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/**
 * The fields each type must have. Fields this version does not know are
 * ignored rather than refused, so a host may add some without breaking
 * receivers; the signature already vouches for them.
 */
function checkEnvelope(body: Record<string, unknown>): WebhookEnvelope {
  const missing = (what: string) => refused('malformed', `a ${String(body.type)} envelope needs ${what}`);
  if (!isText(body.id) || !isText(body.created_ts)) throw missing('`id` and `created_ts`');
  if (body.type === CHALLENGE) {
    if (!isText(body.challenge)) throw missing('`challenge`');
    return body as unknown as ChallengeEnvelope;
  }
  if (!isText(body.subscription_id)) throw missing('`subscription_id`');
  if (!isCursor(body.subscription_version)) throw missing('an integer `subscription_version`');
  const range = body.event_range;
  if (!isObject(range) || !isCursor(range.after) || !isCursor(range.through) || range.after > range.through) {
    throw missing('`event_range` with cursors `after` <= `through`');
  }
  if (body.type === SPACE_DELIVERY && !isText(body.space)) throw missing('`space`');
  if (body.type === INBOX_DELIVERY && body.space !== undefined) throw refused('malformed', 'an inbox delivery names no `space`');
  return body as unknown as DeliveryEnvelope;
}

/**
 * Ed25519 keys whose `kid` is their RFC 7638 thumbprint (as the host names
 * them); anything else in the set is left out, so a set that names one key by
 * another's id cannot make a receiver trust it.
 */
function importKeys(jwks: WebhookJwk[]): Map<string, KeyObject> {
  const keys = new Map<string, KeyObject>();
  for (const jwk of jwks) {
    if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string' || typeof jwk.kid !== 'string') continue;
    if ((jwk.alg !== undefined && jwk.alg !== 'EdDSA') || (jwk.use !== undefined && jwk.use !== 'sig')) continue;
    if (thumbprint(jwk.x) !== jwk.kid) continue;
    try {
      keys.set(jwk.kid, createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' }));
    } catch {
      continue;
    }
  }
  return keys;
}

/** RFC 7638: SHA-256 over the required members in lexicographic order, no spaces. */
function thumbprint(x: string): string {
  return createHash('sha256').update(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x })).digest('base64url');
}

async function fetchKeySet(url: string): Promise<WebhookJwk[]> {
  const res = await fetch(url, { headers: { accept: 'application/jwk-set+json, application/json' }, signal: AbortSignal.timeout(KEYS_TIMEOUT_MS) });
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  const set = (await res.json()) as { keys?: unknown };
  if (!Array.isArray(set.keys)) throw new Error(`${url} is not a JWK Set`);
  return set.keys as WebhookJwk[];
}
