import type { CompiledQuery, Kysely } from 'kysely';
import { forbidden, unauthenticated } from '../shared/errors.js';
import { hashSecret, secretsEqual } from '../shared/secrets.js';
import type { DatabaseSchema } from '../storage/schema.js';
import { toMemberRecord, type MemberRecord } from '../members/records.js';
import type { MemberStatus } from '../members/tables.js';
import type { Actor } from './actor.js';
import type { KeyResolution, MemberKeyCache } from './member-key-cache.js';
import { ACCESS_TOKEN_PREFIX, MEMBER_KEY_PREFIX, SESSION_TOKEN_PREFIX } from './tokens.js';

export type PresentedCredential =
  | { type: 'none' }
  | { type: 'bearer'; token: string }
  | { type: 'cookie'; token: string };

/** A bearer that is neither a member key nor a session: a steward key attempt. */
export interface StewardAttempt {
  kind: 'steward_attempt';
  matches: boolean;
}

/**
 * Resolves a presented credential to an Actor. Unknown, revoked or expired keys
 * and sessions are 401; a suspended member is 403, and so is an agent whose
 * operator is suspended: suspending a human must stop what acts in their name,
 * and reinstating them restores it. A pending agent authenticates; the edge and
 * the services refuse its actions.
 * Lookups go by SHA-256 digest (keys carry 256 random bits), and the steward key
 * is compared in constant time. With `keys`, a member key's resolution may come
 * from what this node keeps (member-key-cache.ts); suspension is still judged
 * on every request from what was resolved.
 */
export async function resolveCredential(
  db: Kysely<DatabaseSchema>,
  presented: PresentedCredential,
  opts: {
    stewardKey: string | undefined;
    now: Date;
    keys?: MemberKeyCache;
    /** The resource (absolute URL) the request is addressed to: an OAuth access token works only at the one it was issued for. */
    resource?: string;
  },
): Promise<Actor | StewardAttempt> {
  if (presented.type === 'none') return { kind: 'anonymous' };
  const token = presented.token;
  if (token.startsWith(ACCESS_TOKEN_PREFIX) && presented.type === 'bearer') return resolveAccessToken(db, token, opts);
  if (token.startsWith(MEMBER_KEY_PREFIX) && presented.type === 'bearer') {
    const hash = hashSecret(token);
    const resolution = await keptOrLookedUp(db, hash, opts.keys, lookUpKey);
    if (!resolution || !secretsEqual(resolution.keyHash, hash)) throw unauthenticated('key_invalid', 'unknown or revoked member key');
    const member = toMemberRecord(resolution.member);
    refuseSuspended(member, resolution.operatorStatus);
    // last_used_ts is a coarse hint for the credentials page: refresh it at most once
    // a minute so that reads do not each turn into a write.
    if (resolution.lastUsedTs === null || Date.parse(resolution.lastUsedTs) < opts.now.getTime() - 60_000) {
      resolution.lastUsedTs = opts.now.toISOString();
      await db.updateTable('member_keys').set({ last_used_ts: resolution.lastUsedTs }).where('id', '=', resolution.keyId).execute();
    }
    return { kind: 'member', member, credential: { type: 'key', id: resolution.keyId }, accessVersion: resolution.member.access_version };
  }
  if (token.startsWith(SESSION_TOKEN_PREFIX)) {
    const hash = hashSecret(token);
    const resolution = await keptOrLookedUp(db, hash, opts.keys, lookUpSession);
    if (!resolution?.session || resolution.session.expiresTs <= opts.now.toISOString() || !secretsEqual(resolution.keyHash, hash)) {
      throw unauthenticated('session_expired', 'sign-in required: the session is unknown, expired or signed out');
    }
    const member = toMemberRecord(resolution.member);
    refuseSuspended(member, resolution.operatorStatus);
    return { kind: 'member', member, credential: { type: 'session', id: resolution.keyId }, accessVersion: resolution.member.access_version };
  }
  if (presented.type === 'cookie') throw unauthenticated('credential_malformed', 'sign-in required: the session cookie is malformed');
  if (opts.stewardKey === undefined) return { kind: 'steward_attempt', matches: false };
  return { kind: 'steward_attempt', matches: secretsEqual(token, opts.stewardKey) };
}

type LookUp = (db: Kysely<DatabaseSchema>, hash: string, keys: MemberKeyCache | undefined, generation: number | undefined) => Promise<KeyResolution | undefined>;

/**
 * What this node keeps for a credential's digest, or else `lookUp`'s answer
 * (which keeps it when it may): the same for member keys, sessions and OAuth
 * tokens. The generation is taken first, so a lookup racing a change is not kept.
 */
async function keptOrLookedUp(db: Kysely<DatabaseSchema>, hash: string, keys: MemberKeyCache | undefined, lookUp: LookUp): Promise<KeyResolution | undefined> {
  const began = keys?.begin();
  const generation = typeof began === 'object' ? await began : began;
  return (generation === undefined ? undefined : keys?.get(hash)) ?? (await lookUp(db, hash, keys, generation));
}

function sessionQuery(db: Kysely<DatabaseSchema>, hash: string) {
  return db
    .selectFrom('sessions')
    .innerJoin('members', 'members.handle', 'sessions.member_handle')
    .leftJoin('members as operators', (join) => join.onRef('operators.handle', '=', 'members.operator').on('members.type', '=', 'agent'))
    .selectAll('members')
    .select(['sessions.id as session_id', 'sessions.revoked_ts as session_revoked_ts', 'sessions.expires_ts', 'sessions.token_hash', 'operators.status as operator_status'])
    .where('sessions.token_hash', '=', hash);
}

type SessionRow = NonNullable<Awaited<ReturnType<ReturnType<typeof sessionQuery>['executeTakeFirst']>>>;

/** Stands for the digest in the statement compiled once; swapped for the real one on every lookup. */
const DIGEST_SLOT = '\u0000session digest';
const compiledSessionQueries = new WeakMap<Kysely<DatabaseSchema>, CompiledQuery>();

/**
 * A live session's resolution from the database (a signed-out or unknown one
 * has none); kept when a cache is given, like a key's. The statement is built
 * and compiled once per database handle rather than by the query builder each
 * time, which cost more than running it.
 */
async function lookUpSession(
  db: Kysely<DatabaseSchema>,
  hash: string,
  keys: MemberKeyCache | undefined,
  generation: number | undefined,
): Promise<KeyResolution | undefined> {
  let compiled = compiledSessionQueries.get(db);
  if (compiled === undefined) {
    compiled = sessionQuery(db, DIGEST_SLOT).compile();
    compiledSessionQueries.set(db, compiled);
  }
  const { rows } = await db.executeQuery<SessionRow>({
    ...compiled,
    parameters: compiled.parameters.map((parameter) => (parameter === DIGEST_SLOT ? hash : parameter)),
  });
  const row = rows[0];
  if (!row || row.session_revoked_ts !== null) return undefined;
  const { session_id, session_revoked_ts: _revoked, expires_ts, token_hash, operator_status, ...member } = row;
  // A session has no last-use hint to refresh: the sign-in time and expiry are all it keeps.
  const resolution: KeyResolution = { member, operatorStatus: operator_status, keyId: session_id, keyHash: token_hash, lastUsedTs: null, session: { expiresTs: expires_ts } };
  if (generation !== undefined) keys?.put(hash, resolution, generation);
  return resolution;
}

/**
 * An OAuth access token: the acting member's credential, narrowed by its
 * grant (docs/oauth.md). Kept like a member key's resolution; its expiry and
 * resource are judged on every request. A suspended consenting human stops
 * the grant as a suspended operator stops an agent.
 */
async function resolveAccessToken(
  db: Kysely<DatabaseSchema>,
  token: string,
  opts: { now: Date; keys?: MemberKeyCache; resource?: string },
): Promise<Actor> {
  const hash = hashSecret(token);
  const resolution = await keptOrLookedUp(db, hash, opts.keys, lookUpAccessToken);
  if (!resolution?.grant || !secretsEqual(resolution.keyHash, hash)) throw unauthenticated('token_invalid', 'unknown, revoked or expired access token');
  const grant = resolution.grant;
  if (grant.expiresTs <= opts.now.toISOString()) throw unauthenticated('token_invalid', 'unknown, revoked or expired access token');
  if (opts.resource !== grant.resource) {
    throw unauthenticated('token_invalid', `this access token was issued for ${grant.resource} and works only there`);
  }
  const member = toMemberRecord(resolution.member);
  refuseSuspended(member, resolution.operatorStatus);
  if (grant.humanStatus === 'suspended') throw forbidden('member_suspended', `the grant's consenting human is suspended`);
  if (resolution.lastUsedTs === null || Date.parse(resolution.lastUsedTs) < opts.now.getTime() - 60_000) {
    resolution.lastUsedTs = opts.now.toISOString();
    await db.updateTable('oauth_grants').set({ last_used_ts: resolution.lastUsedTs }).where('id', '=', grant.narrowing.id).execute();
  }
  return {
    kind: 'member',
    member,
    credential: { type: 'key', id: grant.narrowing.id, grant: grant.narrowing },
    accessVersion: resolution.member.access_version,
  };
}

async function lookUpAccessToken(
  db: Kysely<DatabaseSchema>,
  hash: string,
  keys: MemberKeyCache | undefined,
  generation: number | undefined,
): Promise<KeyResolution | undefined> {
  const row = await db
    .selectFrom('oauth_tokens')
    .innerJoin('oauth_grants', 'oauth_grants.id', 'oauth_tokens.grant_id')
    .innerJoin('members', 'members.handle', 'oauth_grants.acting_member')
    .innerJoin('members as humans', 'humans.handle', 'oauth_grants.human_handle')
    .leftJoin('members as operators', (join) =>
      join.onRef('operators.handle', '=', 'members.operator').on('members.type', '=', 'agent'),
    )
    .selectAll('members')
    .select([
      'oauth_tokens.token_hash',
      'oauth_tokens.expires_ts as token_expires_ts',
      'oauth_tokens.revoked_ts as token_revoked_ts',
      'oauth_tokens.scope as token_scope',
      'oauth_grants.id as grant_id',
      'oauth_grants.scope as grant_scope',
      'oauth_grants.spaces as grant_spaces',
      'oauth_grants.resource as grant_resource',
      'oauth_grants.revoked_ts as grant_revoked_ts',
      'oauth_grants.last_used_ts as grant_last_used_ts',
      'humans.status as human_status',
      'operators.status as operator_status',
    ])
    .where('oauth_tokens.token_hash', '=', hash)
    .where('oauth_tokens.kind', '=', 'access')
    .executeTakeFirst();
  if (!row || row.token_revoked_ts !== null || row.grant_revoked_ts !== null) return undefined;
  const {
    token_hash,
    token_expires_ts,
    token_revoked_ts: _tokenRevoked,
    token_scope,
    grant_id,
    grant_scope,
    grant_spaces,
    grant_resource,
    grant_revoked_ts: _grantRevoked,
    grant_last_used_ts,
    human_status,
    operator_status,
    ...member
  } = row;
  const resolution: KeyResolution = {
    member,
    operatorStatus: operator_status,
    keyId: grant_id,
    keyHash: token_hash,
    lastUsedTs: grant_last_used_ts,
    grant: {
      // The token's own scope: a scope-down refresh answers tokens narrower than their grant.
      narrowing: { id: grant_id, scope: token_scope ?? grant_scope, spaces: grant_spaces === null ? null : (JSON.parse(grant_spaces) as string[]) },
      resource: grant_resource,
      expiresTs: token_expires_ts,
      humanStatus: human_status,
    },
  };
  if (generation !== undefined) keys?.put(hash, resolution, generation);
  return resolution;
}

/** A live key's resolution from the database (a revoked or unknown key has none); kept when a cache is given. */
async function lookUpKey(
  db: Kysely<DatabaseSchema>,
  hash: string,
  keys: MemberKeyCache | undefined,
  generation: number | undefined,
): Promise<KeyResolution | undefined> {
  const row = await db
    .selectFrom('member_keys')
    .innerJoin('members', 'members.handle', 'member_keys.member_handle')
    .leftJoin('members as operators', (join) =>
      join.onRef('operators.handle', '=', 'members.operator').on('members.type', '=', 'agent'),
    )
    .selectAll('members')
    .select([
      'member_keys.id as key_id',
      'member_keys.revoked_ts as key_revoked_ts',
      'member_keys.last_used_ts',
      'member_keys.key_hash',
      'operators.status as operator_status',
    ])
    .where('member_keys.key_hash', '=', hash)
    .executeTakeFirst();
  if (!row || row.key_revoked_ts !== null) return undefined;
  const { key_id, key_revoked_ts: _revoked, last_used_ts, key_hash, operator_status, ...member } = row;
  const resolution: KeyResolution = { member, operatorStatus: operator_status, keyId: key_id, keyHash: key_hash, lastUsedTs: last_used_ts };
  if (generation !== undefined) keys?.put(hash, resolution, generation);
  return resolution;
}

/**
 * An agent's operator comes from a left join on its handle: a legacy free-text
 * operator matches no member, so such an agent has no operator to be suspended.
 */
function refuseSuspended(member: MemberRecord, operatorStatus: MemberStatus | null): void {
  if (member.status === 'suspended') throw forbidden('member_suspended', `member ${member.handle} is suspended`);
  if (operatorStatus === 'suspended') throw forbidden('member_suspended', `agent ${member.handle}'s operator ${member.operator ?? ''} is suspended`);
}
