import type { Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { AddressPolicy } from '../egress/address-policy.js';
import type { Actor } from '../identity/actor.js';
import { requireSession } from '../identity/authority.js';
import { toMemberRecord } from '../members/records.js';
import { conflict, forbidden, gone, invalid, notFound } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { hashSecret, newSecret } from '../shared/secrets.js';
import type { Database, Tx } from '../storage/database.js';
import type { DatabaseSchema } from '../storage/schema.js';
import { resourceUrl } from './challenge.js';
import { findClient, redirectUriMatches, touchClient, type OAuthClient } from './clients.js';
import { OAuthError } from './errors.js';
import { createGrant } from './grants.js';
import type { AuthorizationRequestSchema } from './schemas.js';
import type { OAuthAuthorizationRequestTable, OAuthScope } from './tables.js';

/** A pending request waits this long for the person's decision. */
export const PENDING_REQUEST_MS = 10 * 60 * 1000;
/** An authorization code lives 60 s and is used once. */
export const CODE_LIFETIME_MS = 60 * 1000;
export const CONSENT_PATH = '/oauth/consent';
export const SCOPES = ['read', 'write'] as const;

/** Where the browser is sent, and why: the consent page, or back to the client with an error. */
export type AuthorizationOutcome = { consent: string } | { redirect: string };

/**
 * Builds the redirect back to the client: its redirect URI with the given
 * parameters, `state` as it was sent and `iss` (RFC 9207), so a client can
 * tell which server answered.
 */
export function redirectBack(redirectUri: string, params: Record<string, string>, state: string | null, issuer: string): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  if (state !== null) url.searchParams.set('state', state);
  url.searchParams.set('iss', issuer);
  return url.href;
}

/** `read`, `write` or both in any order, as one canonical value; `write` always brings `read`. */
export function normaliseScope(scope: string | undefined): OAuthScope | undefined {
  if (scope === undefined || scope.trim() === '') return 'read write';
  const asked = scope.trim().split(/\s+/);
  if (!asked.every((s) => (SCOPES as readonly string[]).includes(s))) return undefined;
  return asked.includes('write') ? 'read write' : 'read';
}

const CHALLENGE_PATTERN = /^[A-Za-z0-9._~-]{43,128}$/;

/**
 * The authorization endpoint's checks, all made before any page is shown
 * (docs/oauth.md, "The authorization endpoint"). An unknown client or a
 * redirect URI it did not register is a 400 that never redirects: sending the
 * browser to an unchecked URI would make Atrium an open redirector. Every other
 * fault is sent back to the client with the OAuth error, `state` and `iss`.
 * A sound request is kept for the consent page, which the browser is sent to.
 */
export async function startAuthorization(
  db: Database,
  query: Record<string, string | undefined>,
  opts: { baseUrl: string; egress: AddressPolicy; now: Date },
): Promise<AuthorizationOutcome> {
  const clientId = query.client_id;
  if (clientId === undefined) throw new OAuthError(400, 'invalid_request', 'client_id is required').because({ kind: 'no_client' });
  const client = await findClient(db.kysely, clientId, { now: opts.now, egress: opts.egress });
  const redirectUri = query.redirect_uri ?? (client.redirect_uris.length === 1 ? client.redirect_uris[0] : undefined);
  if (redirectUri === undefined) {
    throw new OAuthError(400, 'invalid_request', 'redirect_uri is required: the client registered more than one').because({ kind: 'no_redirect_uri' });
  }
  if (!redirectUriMatches(client, redirectUri)) {
    throw new OAuthError(400, 'invalid_request', 'redirect_uri is not one the client registered or lists in its metadata document').because({
      kind: 'redirect_uri_mismatch',
    });
  }
  const state = query.state ?? null;
  const back = (error: string, description: string): AuthorizationOutcome => ({
    redirect: redirectBack(redirectUri, { error, error_description: description }, state, opts.baseUrl),
  });
  if (query.response_type !== 'code') return back('unsupported_response_type', 'response_type must be "code"');
  if (query.code_challenge === undefined) return back('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256');
  if (query.code_challenge_method !== 'S256') return back('invalid_request', 'code_challenge_method must be S256 (plain is not accepted)');
  if (!CHALLENGE_PATTERN.test(query.code_challenge)) return back('invalid_request', 'code_challenge must be the base64url SHA-256 of the verifier');
  const scope = normaliseScope(query.scope);
  if (scope === undefined) return back('invalid_scope', 'scope may hold only "read" and "write"');
  const resource = query.resource ?? resourceUrl(opts.baseUrl, 'mcp');
  if (resource !== resourceUrl(opts.baseUrl, 'mcp') && resource !== resourceUrl(opts.baseUrl, 'rest')) {
    return back('invalid_target', `resource must be ${resourceUrl(opts.baseUrl, 'mcp')} or ${resourceUrl(opts.baseUrl, 'rest')}`);
  }
  if (state !== null && state.length > 2000) return back('invalid_request', 'state is too long');
  const challenge = query.code_challenge;
  return db.transaction(async (tx) => {
    // Requests nobody decided are no use once they lapse; they go when new ones come.
    await tx.db.deleteFrom('oauth_authorization_requests').where('expires_ts', '<=', new Date(tx.now.getTime() - CODE_LIFETIME_MS).toISOString()).where('decision', 'is', null).execute();
    const id = newId('authz');
    await tx.db
      .insertInto('oauth_authorization_requests')
      .values({
        id,
        client_id: client.client_id,
        redirect_uri: redirectUri,
        state,
        code_challenge: challenge,
        scope,
        resource,
        created_ts: tx.now.toISOString(),
        expires_ts: new Date(tx.now.getTime() + PENDING_REQUEST_MS).toISOString(),
        decided_ts: null,
        decided_by: null,
        decision: null,
        code_hash: null,
        code_expires_ts: null,
        code_used_ts: null,
        grant_id: null,
      })
      .execute();
    if (client.kind === 'registered') await touchClient(tx, client.client_id);
    return { consent: `${opts.baseUrl}${CONSENT_PATH}?${new URLSearchParams(consentQuery(id, client)).toString()}` };
  });
}

/**
 * The consent page's address: the request, and the name the client gives
 * itself (or its document's host), which the sign-in page shows a person who
 * is not signed in yet, so that they know what they sign in for. Anyone could
 * put another name there, as any client may call itself anything; the consent
 * page shows what the request itself holds.
 */
function consentQuery(id: string, client: OAuthClient): Record<string, string> {
  const name = client.client_name ?? (client.kind === 'metadata_document' ? hostOf(client.client_id) : null);
  return name ? { request: id, client: name.slice(0, 100) } : { request: id };
}

/** What the consent page shows about one pending request, as its schema declares it. */
export type AuthorizationRequestView = Static<typeof AuthorizationRequestSchema>;

async function pendingRequest(db: Kysely<DatabaseSchema>, id: string, now: Date): Promise<OAuthAuthorizationRequestTable> {
  const row = await db.selectFrom('oauth_authorization_requests').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('authorization_request_not_found', `no such authorization request: ${id}`);
  if (row.decision !== null) throw conflict('authorization_request_decided', `authorization request ${id} was already ${row.decision}`);
  if (row.expires_ts <= now.toISOString()) throw gone('authorization_request_expired', `authorization request ${id} has expired: start again from the client`);
  return row;
}

function hostOf(uri: string): string | null {
  try {
    const url = new URL(uri);
    return url.host === '' ? url.protocol.slice(0, -1) : url.host;
  } catch {
    return null;
  }
}

/** The human themselves, and their own active agents whose operator confirmation stands. */
async function actingChoices(db: Kysely<DatabaseSchema>, human: string): Promise<AuthorizationRequestView['acting_choices']> {
  const agents = await db
    .selectFrom('members')
    .select(['handle', 'display_name'])
    .where('type', '=', 'agent')
    .where('operator', '=', human)
    .where('status', '=', 'active')
    .where('operator_confirmed', '=', 1)
    .orderBy('handle')
    .execute();
  return agents.map((a) => ({ handle: a.handle, type: 'agent' as const, display_name: a.display_name }));
}

export async function viewAuthorizationRequest(db: Kysely<DatabaseSchema>, actor: Actor, id: string, now: Date): Promise<AuthorizationRequestView> {
  const me = requireSession(actor);
  requireHuman(me.member.type);
  const row = await pendingRequest(db, id, now);
  const client = await db.selectFrom('oauth_clients').select(['client_name']).where('client_id', '=', row.client_id).executeTakeFirst();
  return {
    id: row.id,
    client_id: row.client_id,
    client_name: client?.client_name ?? null,
    client_host: row.client_id.startsWith('http') ? hostOf(row.client_id) : null,
    redirect_host: hostOf(row.redirect_uri) ?? row.redirect_uri,
    scope: row.scope,
    resource: row.resource,
    expires_ts: row.expires_ts,
    acting_choices: [{ handle: me.member.handle, type: 'human', display_name: me.member.display_name }, ...(await actingChoices(db, me.member.handle))],
  };
}

function requireHuman(type: string): void {
  if (type !== 'human') throw forbidden('human_required', 'only a signed-in human may consent to an OAuth client');
}

/** Claims the pending request for this decision: of two racing decisions only one wins. */
async function decide(tx: Tx, row: OAuthAuthorizationRequestTable, handle: string, decision: 'approved' | 'denied', code?: { hash: string; grantId: string }): Promise<void> {
  const result = await tx.db
    .updateTable('oauth_authorization_requests')
    .set({
      decision,
      decided_ts: tx.now.toISOString(),
      decided_by: handle,
      ...(code ? { code_hash: code.hash, code_expires_ts: new Date(tx.now.getTime() + CODE_LIFETIME_MS).toISOString(), grant_id: code.grantId } : {}),
    })
    .where('id', '=', row.id)
    .where('decision', 'is', null)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) throw conflict('authorization_request_decided', `authorization request ${row.id} was already decided`);
}

/**
 * The person approves: the client will act as `acting_member` (themselves,
 * or one of their own active, confirmed agents), with `scope` no wider than
 * asked, in the chosen Spaces or all. The grant is made now (its event with
 * it); the code the client exchanges for tokens rides the redirect.
 */
export async function approveAuthorizationRequest(
  tx: Tx,
  actor: Actor,
  id: string,
  body: { acting_member: string; scope: string; spaces: string[] | null },
  baseUrl: string,
): Promise<{ redirect_to: string }> {
  const me = requireSession(actor);
  requireHuman(me.member.type);
  const row = await pendingRequest(tx.db, id, tx.now);
  const actingRow = await tx.db.selectFrom('members').selectAll().where('handle', '=', body.acting_member).executeTakeFirst();
  if (!actingRow) throw invalid('unknown_reference', `acting_member ${body.acting_member} is not a member`);
  const acting = toMemberRecord(actingRow);
  if (acting.handle !== me.member.handle) {
    if (acting.type !== 'agent' || acting.operator !== me.member.handle) {
      throw forbidden('acting_member_refused', `a client may act only as you or as one of your own agents; ${acting.handle} is neither`);
    }
    if (acting.status !== 'active' || !acting.operator_confirmed) {
      throw forbidden('acting_member_refused', `agent ${acting.handle} is ${acting.status}${acting.operator_confirmed ? '' : ' and not confirmed by you'}: only active, confirmed agents can be chosen`);
    }
  }
  const scope = normaliseScope(body.scope);
  if (scope === undefined) throw invalid('validation_failed', 'scope must be "read" or "read write"');
  if (scope === 'read write' && row.scope === 'read') throw invalid('validation_failed', 'the client asked for read only: the grant cannot be wider than the request');
  let spaces: string[] | null = null;
  if (body.spaces !== null) {
    spaces = [...new Set(body.spaces)].sort();
    const known = await tx.db.selectFrom('spaces').select('slug').where('slug', 'in', spaces.length > 0 ? spaces : ['']).execute();
    const missing = spaces.filter((s) => !known.some((k) => k.slug === s));
    if (missing.length > 0) throw invalid('unknown_reference', `no such Space: ${missing.join(', ')}`);
  }
  const client = await tx.db.selectFrom('oauth_clients').select('client_name').where('client_id', '=', row.client_id).executeTakeFirst();
  const grant = await createGrant(tx, {
    client_id: row.client_id,
    client_name: client?.client_name ?? hostOf(row.client_id) ?? row.client_id,
    human_handle: me.member.handle,
    acting_member: acting.handle,
    scope,
    spaces,
    resource: row.resource,
  });
  const code = newSecret('ac_atrium_');
  await decide(tx, row, me.member.handle, 'approved', { hash: hashSecret(code), grantId: grant.id });
  return { redirect_to: redirectBack(row.redirect_uri, { code }, row.state, baseUrl) };
}

/** The person says no: the client hears `access_denied`, and nothing is granted. */
export async function denyAuthorizationRequest(tx: Tx, actor: Actor, id: string, baseUrl: string): Promise<{ redirect_to: string }> {
  const me = requireSession(actor);
  requireHuman(me.member.type);
  const row = await pendingRequest(tx.db, id, tx.now);
  await decide(tx, row, me.member.handle, 'denied');
  return { redirect_to: redirectBack(row.redirect_uri, { error: 'access_denied', error_description: 'the person declined' }, row.state, baseUrl) };
}

export type { OAuthClient };
