import type { Kysely } from 'kysely';
import type { AddressPolicy } from '../egress/address-policy.js';
import { EgressFailed, EgressRefused, sendEgress } from '../egress/request.js';
import { newId } from '../shared/ids.js';
import type { Tx } from '../storage/database.js';
import type { DatabaseSchema } from '../storage/schema.js';
import { invalidClient, OAuthError } from './errors.js';
import type { OAuthClientTable } from './tables.js';

/** A client as the authorization endpoint and the token endpoint know it. */
export interface OAuthClient {
  client_id: string;
  kind: OAuthClientTable['kind'];
  client_name: string | null;
  redirect_uris: string[];
}

/** A registered client unused this long is forgotten. */
export const REGISTRATION_UNUSED_MS = 30 * 24 * 60 * 60 * 1000;
/** A fetched Client ID Metadata Document is used this long at most before it is fetched again. */
export const DOCUMENT_KEPT_MS = 24 * 60 * 60 * 1000;
const DOCUMENT_FETCH = { timeoutMs: 5000, maxResponseBytes: 64 * 1024 };
const MAX_REDIRECT_URIS = 10;
const MAX_CLIENT_NAME = 200;
const MAX_URI_LENGTH = 2000;

function toClient(row: OAuthClientTable): OAuthClient {
  return { client_id: row.client_id, kind: row.kind, client_name: row.client_name, redirect_uris: JSON.parse(row.redirect_uris) as string[] };
}

/** Whether a `client_id` names a Client ID Metadata Document: an absolute http(s) URL. */
export function isDocumentClientId(clientId: string): boolean {
  return clientId.startsWith('https://') || clientId.startsWith('http://');
}

/**
 * The client a `client_id` names: a live registration, or the Client ID
 * Metadata Document at that URL, fetched (under the egress rules that guard
 * webhooks: docs/egress.md) unless a copy younger than a day is kept.
 * Anything wrong is `invalid_client`, and nothing is stored for it.
 */
export async function findClient(
  db: Kysely<DatabaseSchema>,
  clientId: string,
  opts: { now: Date; egress: AddressPolicy },
): Promise<OAuthClient> {
  if (clientId === '' || clientId.length > MAX_URI_LENGTH) throw invalidClient('client_id is missing or too long').because({ kind: 'no_client' });
  const row = await db.selectFrom('oauth_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
  if (!isDocumentClientId(clientId)) {
    if (!row || row.kind !== 'registered' || Date.parse(row.last_used_ts) <= opts.now.getTime() - REGISTRATION_UNUSED_MS) {
      throw invalidClient(`unknown client_id: register it first, or use a Client ID Metadata Document URL`).because({ kind: 'unknown_client' });
    }
    return toClient(row);
  }
  if (row?.fetched_ts && Date.parse(row.fetched_ts) > opts.now.getTime() - DOCUMENT_KEPT_MS) return toClient(row);
  const fetched = await fetchMetadataDocument(clientId, opts.egress).catch((err: unknown) => {
    if (err instanceof OAuthError && err.fault === undefined) err.because({ kind: 'document_unusable', host: hostOf(clientId) });
    throw err;
  });
  const ts = opts.now.toISOString();
  const values = { kind: 'metadata_document' as const, client_name: fetched.client_name, redirect_uris: JSON.stringify(fetched.redirect_uris), fetched_ts: ts, last_used_ts: ts };
  await db
    .insertInto('oauth_clients')
    .values({ client_id: clientId, created_ts: ts, ...values })
    .onConflict((oc) => oc.column('client_id').doUpdateSet(values))
    .execute();
  return fetched;
}

/**
 * Fetches and checks a Client ID Metadata Document: an answer of 200 with a
 * JSON object (redirects are answers, never followed), at most 64 KiB within
 * 5 seconds, whose `client_id` is exactly the URL it came from and whose
 * `redirect_uris` are acceptable redirect URIs.
 */
async function fetchMetadataDocument(url: string, egress: AddressPolicy): Promise<OAuthClient> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidClient('client_id is not a valid URL');
  }
  if (parsed.hash !== '' || parsed.pathname === '/' || parsed.username !== '' || parsed.password !== '') {
    throw invalidClient('a client_id URL must have a path, and no fragment or credentials');
  }
  let answer;
  try {
    answer = await sendEgress({ url, method: 'GET', headers: { accept: 'application/json' } }, egress, DOCUMENT_FETCH);
  } catch (err) {
    if (err instanceof EgressRefused || err instanceof EgressFailed) {
      throw invalidClient(`the client's metadata document could not be fetched: ${err.message}`).because({ kind: 'document_unreachable', host: parsed.host });
    }
    throw err;
  }
  if (answer.status !== 200) throw invalidClient(`the client's metadata document answered ${answer.status}, not 200 (redirects are not followed)`);
  let document: unknown;
  try {
    document = JSON.parse(answer.body.toString('utf8'));
  } catch {
    throw invalidClient("the client's metadata document is not JSON");
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) throw invalidClient("the client's metadata document is not a JSON object");
  const fields = document as Record<string, unknown>;
  if (fields.client_id !== url) throw invalidClient(`the client's metadata document names another client_id; it must be exactly ${url}`);
  const checked = checkClientMetadata(fields, invalidClient);
  return { client_id: url, kind: 'metadata_document', ...checked };
}

function hostOf(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}

/** The client metadata Atrium uses, checked; `refuse` makes the error the caller answers with. */
export function checkClientMetadata(
  fields: Record<string, unknown>,
  refuse: (description: string) => OAuthError,
): { client_name: string | null; redirect_uris: string[] } {
  const uris = fields.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECT_URIS || !uris.every((u) => typeof u === 'string')) {
    throw refuse(`redirect_uris must be a list of 1 to ${MAX_REDIRECT_URIS} URLs`);
  }
  for (const uri of uris as string[]) {
    const problem = redirectUriProblem(uri);
    if (problem) throw refuse(`redirect URI ${JSON.stringify(uri.slice(0, 200))} ${problem}`);
  }
  const method = fields.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none') throw refuse('only public clients are accepted: token_endpoint_auth_method must be "none"');
  const name = fields.client_name;
  if (name !== undefined && (typeof name !== 'string' || name.length > MAX_CLIENT_NAME)) throw refuse(`client_name must be text of at most ${MAX_CLIENT_NAME} characters`);
  const grantTypes = fields.grant_types;
  if (grantTypes !== undefined && (!Array.isArray(grantTypes) || !grantTypes.every((g) => g === 'authorization_code' || g === 'refresh_token'))) {
    throw refuse('grant_types may hold only "authorization_code" and "refresh_token"');
  }
  const responseTypes = fields.response_types;
  if (responseTypes !== undefined && (!Array.isArray(responseTypes) || !responseTypes.every((r) => r === 'code'))) {
    throw refuse('response_types may hold only "code"');
  }
  return { client_name: typeof name === 'string' && name.trim() !== '' ? name : null, redirect_uris: uris as string[] };
}

function redirectUriProblem(uri: string): string | undefined {
  if (uri.length > MAX_URI_LENGTH) return 'is too long';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.hash !== '') return 'must not have a fragment';
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) return 'must use https unless it is a loopback address';
  if (url.protocol === 'javascript:' || url.protocol === 'data:' || url.protocol === 'file:') return 'uses a scheme that cannot be a redirect';
  return undefined;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Whether a redirect URI is one the client registered: exactly, except that a
 * loopback `http` redirect matches on any port (RFC 8252: a native app listens
 * wherever the system lets it).
 */
export function redirectUriMatches(client: OAuthClient, uri: string): boolean {
  if (client.redirect_uris.includes(uri)) return true;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' || !LOOPBACK_HOSTS.has(url.hostname)) return false;
  const portless = (u: URL) => {
    const copy = new URL(u.href);
    copy.port = '';
    return copy.href;
  };
  return client.redirect_uris.some((registered) => {
    try {
      const candidate = new URL(registered);
      return candidate.protocol === 'http:' && candidate.hostname === url.hostname && portless(candidate) === portless(url);
    } catch {
      return false;
    }
  });
}

/** Dynamic Client Registration (RFC 7591): a public client, forgotten after 30 days unused. */
export async function registerClient(tx: Tx, fields: Record<string, unknown>): Promise<OAuthClient & { created_ts: string }> {
  const checked = checkClientMetadata(fields, (d) => new OAuthError(400, fields.redirect_uris === undefined || /redirect/.test(d) ? 'invalid_redirect_uri' : 'invalid_client_metadata', d));
  const ts = tx.now.toISOString();
  // Registrations nobody used for 30 days are forgotten here, where they are made.
  await tx.db
    .deleteFrom('oauth_clients')
    .where('kind', '=', 'registered')
    .where('last_used_ts', '<=', new Date(tx.now.getTime() - REGISTRATION_UNUSED_MS).toISOString())
    .execute();
  const clientId = newId('client');
  await tx.db
    .insertInto('oauth_clients')
    .values({ client_id: clientId, kind: 'registered', client_name: checked.client_name, redirect_uris: JSON.stringify(checked.redirect_uris), created_ts: ts, last_used_ts: ts, fetched_ts: null })
    .execute();
  return { client_id: clientId, kind: 'registered', ...checked, created_ts: ts };
}

/** Marks a client used (a registration's 30 days start again). */
export async function touchClient(tx: Tx, clientId: string): Promise<void> {
  await tx.db.updateTable('oauth_clients').set({ last_used_ts: tx.now.toISOString() }).where('client_id', '=', clientId).execute();
}
