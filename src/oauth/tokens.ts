import { createHash } from 'node:crypto';
import { ACCESS_TOKEN_PREFIX, REFRESH_TOKEN_PREFIX } from '../identity/tokens.js';
import { newId } from '../shared/ids.js';
import { hashSecret, newSecret, secretsEqual } from '../shared/secrets.js';
import type { Database, Tx } from '../storage/database.js';
import { invalidGrant, invalidRequest, OAuthError } from './errors.js';
import { revokeGrant } from './grants.js';
import { touchClient } from './clients.js';
import { normaliseScope } from './authorization.js';
import type { OAuthScope } from './tables.js';

/** Access tokens live an hour; refresh tokens rotate on every use and lapse after 30 days unused. */
export const ACCESS_TOKEN_LIFETIME_MS = 60 * 60 * 1000;
export const REFRESH_TOKEN_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;

/** The token endpoint's successful answer (RFC 6749 §5.1). */
export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

type Form = Record<string, string | undefined>;

/**
 * The token endpoint (docs/oauth.md, "Tokens"): an authorization code with its
 * PKCE verifier, or a refresh token, for a new access and refresh token pair.
 * A code presented a second time, or a refresh token presented after it was
 * rotated, is a sign that it leaked: the grant it belongs to is revoked.
 */
export async function exchange(db: Database, form: Form): Promise<TokenAnswer> {
  // A refusal that revoked a grant is returned rather than thrown, so that the revocation commits.
  const outcome = await db.transaction(async (tx): Promise<TokenAnswer | OAuthError> => {
    if (form.grant_type === 'authorization_code') return redeemCode(tx, form);
    if (form.grant_type === 'refresh_token') return refresh(tx, form);
    throw new OAuthError(400, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
  });
  if (outcome instanceof OAuthError) throw outcome;
  return outcome;
}

/**
 * Every grant type names its client (docs/oauth.md, "Tokens"): a public client
 * has no secret, so `client_id` is the only thing binding a code or a refresh
 * token to the client it was issued to (RFC 6749 §4.1.3, §6 ask it of public clients).
 */
function requireClientId(form: Form): string {
  if (!form.client_id) throw invalidRequest('client_id is required');
  return form.client_id;
}

async function redeemCode(tx: Tx, form: Form): Promise<TokenAnswer | OAuthError> {
  const clientId = requireClientId(form);
  if (!form.code) throw invalidRequest('code is required');
  if (!form.code_verifier) throw invalidRequest('code_verifier is required (PKCE)');
  const row = await tx.db.selectFrom('oauth_authorization_requests').selectAll().where('code_hash', '=', hashSecret(form.code)).executeTakeFirst();
  if (!row || row.code_hash === null || row.grant_id === null || !secretsEqual(row.code_hash, hashSecret(form.code))) throw invalidGrant('unknown authorization code');
  if (row.code_used_ts !== null) return reuse(tx, row.grant_id);
  if (row.code_expires_ts === null || row.code_expires_ts <= tx.now.toISOString()) throw invalidGrant('the authorization code has expired (codes live 60 seconds)');
  if (clientId !== row.client_id) throw invalidGrant('the code was issued to another client');
  if (form.redirect_uri !== undefined && form.redirect_uri !== row.redirect_uri) throw invalidGrant('redirect_uri differs from the authorization request');
  if (form.resource !== undefined && form.resource !== row.resource) throw new OAuthError(400, 'invalid_target', `the code was issued for ${row.resource}`);
  const challenge = createHash('sha256').update(form.code_verifier, 'ascii').digest('base64url');
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(form.code_verifier) || !secretsEqual(challenge, row.code_challenge)) {
    throw invalidGrant('the code_verifier does not match the code_challenge');
  }
  const used = await tx.db
    .updateTable('oauth_authorization_requests')
    .set({ code_used_ts: tx.now.toISOString() })
    .where('id', '=', row.id)
    .where('code_used_ts', 'is', null)
    .executeTakeFirst();
  if (Number(used.numUpdatedRows) === 0) return reuse(tx, row.grant_id);
  const grant = await tx.db.selectFrom('oauth_grants').selectAll().where('id', '=', row.grant_id).executeTakeFirstOrThrow();
  if (grant.revoked_ts !== null) throw invalidGrant('the grant was revoked');
  await refuseSuspended(tx, grant);
  await touchClient(tx, row.client_id);
  return issue(tx, grant.id, grant.scope);
}

/** A second use of a code: its grant is revoked (in this transaction, which then commits), and the use is refused. */
async function reuse(tx: Tx, grantId: string): Promise<OAuthError> {
  await revokeGrant(tx, grantId, 'code_reused');
  return invalidGrant('the authorization code was already used: the grant it produced is revoked');
}

async function refresh(tx: Tx, form: Form): Promise<TokenAnswer | OAuthError> {
  const clientId = requireClientId(form);
  if (!form.refresh_token) throw invalidRequest('refresh_token is required');
  const hash = hashSecret(form.refresh_token);
  const row = await tx.db
    .selectFrom('oauth_tokens')
    .innerJoin('oauth_grants', 'oauth_grants.id', 'oauth_tokens.grant_id')
    .select([
      'oauth_tokens.id',
      'oauth_tokens.token_hash',
      'oauth_tokens.expires_ts',
      'oauth_tokens.rotated_ts',
      'oauth_tokens.revoked_ts',
      'oauth_tokens.scope as token_scope',
      'oauth_grants.id as grant_id',
      'oauth_grants.client_id',
      'oauth_grants.scope as grant_scope',
      'oauth_grants.human_handle',
      'oauth_grants.acting_member',
      'oauth_grants.resource',
      'oauth_grants.revoked_ts as grant_revoked_ts',
    ])
    .where('oauth_tokens.token_hash', '=', hash)
    .where('oauth_tokens.kind', '=', 'refresh')
    .executeTakeFirst();
  if (!row || !secretsEqual(row.token_hash, hash)) throw invalidGrant('unknown refresh token');
  if (row.grant_revoked_ts !== null || row.revoked_ts !== null) throw invalidGrant('the grant was revoked');
  if (row.rotated_ts !== null) {
    await revokeGrant(tx, row.grant_id, 'refresh_replayed');
    return invalidGrant('this refresh token was already used: the grant is revoked');
  }
  if (row.expires_ts <= tx.now.toISOString()) throw invalidGrant('the refresh token has expired');
  if (clientId !== row.client_id) throw invalidGrant('the refresh token was issued to another client');
  if (form.resource !== undefined && form.resource !== row.resource) throw new OAuthError(400, 'invalid_target', `the grant is for ${row.resource}`);
  const scope = refreshedScope(row.token_scope ?? row.grant_scope, form.scope);
  await refuseSuspended(tx, row);
  const rotated = await tx.db
    .updateTable('oauth_tokens')
    .set({ rotated_ts: tx.now.toISOString() })
    .where('id', '=', row.id)
    .where('rotated_ts', 'is', null)
    .executeTakeFirst();
  if (Number(rotated.numUpdatedRows) === 0) {
    await revokeGrant(tx, row.grant_id, 'refresh_replayed');
    return invalidGrant('this refresh token was already used: the grant is revoked');
  }
  await touchClient(tx, row.client_id);
  return issue(tx, row.grant_id, scope);
}

/**
 * The scope a refresh answers (RFC 6749 §6): the refresh token's own when none
 * is asked, the one asked when it is no wider, `invalid_scope` when it is. A
 * refresh token's scope is what it was issued with, so a refresh that narrowed
 * to `read` can never be widened back by a later one.
 */
function refreshedScope(held: OAuthScope, asked: string | undefined): OAuthScope {
  if (asked === undefined || asked.trim() === '') return held;
  const wanted = normaliseScope(asked);
  if (wanted === undefined) throw new OAuthError(400, 'invalid_scope', 'scope may hold only "read" and "write"');
  if (wanted === 'read write' && held === 'read') throw new OAuthError(400, 'invalid_scope', 'a refresh may not widen the scope: this refresh token holds "read" only');
  return wanted;
}

/**
 * A grant whose acting member, consenting human or (for an agent) operator is
 * suspended gets no new tokens: its access tokens are refused while the
 * suspension lasts, and a refresh must not pretend otherwise.
 */
async function refuseSuspended(tx: Tx, grant: { human_handle: string; acting_member: string }): Promise<void> {
  const acting = await tx.db
    .selectFrom('members')
    .leftJoin('members as operators', (join) => join.onRef('operators.handle', '=', 'members.operator').on('members.type', '=', 'agent'))
    .select(['members.status', 'operators.status as operator_status'])
    .where('members.handle', '=', grant.acting_member)
    .executeTakeFirst();
  const human = await tx.db.selectFrom('members').select('status').where('handle', '=', grant.human_handle).executeTakeFirst();
  if (acting?.status === 'suspended') throw invalidGrant(`the grant's acting member ${grant.acting_member} is suspended`);
  if (acting?.operator_status === 'suspended') throw invalidGrant(`the operator of the grant's acting agent ${grant.acting_member} is suspended`);
  if (human?.status === 'suspended') throw invalidGrant(`the grant's consenting human ${grant.human_handle} is suspended`);
}

async function issue(tx: Tx, grantId: string, scope: OAuthScope): Promise<TokenAnswer> {
  const access = newSecret(ACCESS_TOKEN_PREFIX);
  const refreshToken = newSecret(REFRESH_TOKEN_PREFIX);
  const ts = tx.now.toISOString();
  await tx.db
    .insertInto('oauth_tokens')
    .values([
      { id: newId('tok'), grant_id: grantId, kind: 'access', token_hash: hashSecret(access), created_ts: ts, expires_ts: new Date(tx.now.getTime() + ACCESS_TOKEN_LIFETIME_MS).toISOString(), rotated_ts: null, revoked_ts: null, scope },
      { id: newId('tok'), grant_id: grantId, kind: 'refresh', token_hash: hashSecret(refreshToken), created_ts: ts, expires_ts: new Date(tx.now.getTime() + REFRESH_TOKEN_LIFETIME_MS).toISOString(), rotated_ts: null, revoked_ts: null, scope },
    ])
    .execute();
  return { access_token: access, token_type: 'Bearer', expires_in: ACCESS_TOKEN_LIFETIME_MS / 1000, refresh_token: refreshToken, scope };
}

/**
 * Token revocation (RFC 7009). Revoking a refresh token revokes its whole
 * grant (and so every access token of it); revoking an access token stops that
 * token. An unknown token is answered like a known one.
 */
export async function revokeToken(db: Database, form: Form): Promise<void> {
  if (!form.token) throw invalidRequest('token is required');
  const hash = hashSecret(form.token);
  await db.transaction(async (tx) => {
    const row = await tx.db
      .selectFrom('oauth_tokens')
      .innerJoin('oauth_grants', 'oauth_grants.id', 'oauth_tokens.grant_id')
      .select(['oauth_tokens.id', 'oauth_tokens.kind', 'oauth_tokens.grant_id', 'oauth_grants.client_id'])
      .where('oauth_tokens.token_hash', '=', hash)
      .executeTakeFirst();
    if (!row || (form.client_id !== undefined && form.client_id !== row.client_id)) return;
    if (row.kind === 'refresh') await revokeGrant(tx, row.grant_id, 'revoked');
    else await tx.db.updateTable('oauth_tokens').set({ revoked_ts: tx.now.toISOString() }).where('id', '=', row.id).where('revoked_ts', 'is', null).execute();
  });
}

