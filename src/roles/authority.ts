import type { Kysely } from 'kysely';
import { grantReaches, type Actor, type MemberActor } from '../identity/actor.js';
import type { MemberRecord } from '../members/records.js';
import { forbidden, unauthenticated } from '../shared/errors.js';
import type { DatabaseSchema } from '../storage/schema.js';
import type { Role } from './tables.js';

export interface OwnerHostScope {
  /** The Space the power is exercised on; a Space-scoped assignment counts there. */
  space?: string;
  /** Approve/archive/restore of a Space need a host-wide assignment (protocol: Owner, Host and maintainer). */
  hostWideOnly?: boolean;
  /**
   * The few powers that need a sign-in (review policy, listing role assignments):
   * a session, never an API key, so a leaked key cannot change who reviews whom
   * or map out who holds power.
   */
  signedIn?: boolean;
}

/**
 * "Owner/Host" (docs/members-and-roles.md): the steward key, or a human with an
 * active `owner` or `host` assignment host-wide or on the Space, using their own
 * member credential (a session or their member key) unless the scope asks for a
 * sign-in. Agents never qualify: an agent does not inherit its operator's roles.
 */
export async function isOwnerOrHost(db: Kysely<DatabaseSchema>, actor: Actor, scope: OwnerHostScope = {}): Promise<boolean> {
  if (actor.kind === 'steward') return true;
  if (actor.kind !== 'member') return false;
  if (scope.signedIn && actor.credential.type !== 'session') return false;
  return hasOwnerHostAssignment(db, actor, scope);
}

/**
 * Refuses anonymous callers with 401 and every other caller without the power
 * with 403: an agent's key is authenticated, so no credential would help it.
 */
export async function requireOwnerOrHost(db: Kysely<DatabaseSchema>, actor: Actor, scope: OwnerHostScope = {}): Promise<void> {
  if (actor.kind === 'anonymous') throw unauthenticated('credential_required', 'a credential is required');
  if (await isOwnerOrHost(db, actor, scope)) return;
  if (scope.signedIn && actor.kind === 'member' && actor.credential.type === 'key' && (await hasOwnerHostAssignment(db, actor, scope))) {
    throw forbidden('session_required', 'this Owner/Host power needs a signed-in session; API keys are refused (sign in through the web app, or `atrium sign-in` in the CLI)');
  }
  throw forbidden('role_required', scope.hostWideOnly ? 'a host-wide Owner or Host role is required' : 'Owner or Host role required');
}

async function hasOwnerHostAssignment(db: Kysely<DatabaseSchema>, actor: MemberActor, scope: OwnerHostScope): Promise<boolean> {
  const member = actor.member;
  if (member.type !== 'human' || member.status !== 'active') return false;
  // A narrowed grant carries its member's roles only inside its Spaces, a host-wide assignment counting there as one on the Space, and never a power over the host.
  if (!grantReaches(actor, scope.hostWideOnly ? undefined : scope.space)) return false;
  return holdsRole(db, member.handle, ['owner', 'host'], scope.space && !scope.hostWideOnly ? { space: scope.space, orHostWide: true } : 'host-wide');
}

/**
 * Whether `handle` holds an active assignment of one of `roles`: host-wide,
 * on a Space (optionally counting a host-wide one too), or anywhere at all.
 */
export async function holdsRole(
  db: Kysely<DatabaseSchema>,
  handle: string,
  roles: Role[],
  where: 'host-wide' | 'anywhere' | { space: string; orHostWide: boolean },
): Promise<boolean> {
  let query = db
    .selectFrom('role_assignments')
    .select('id')
    .where('member_handle', '=', handle)
    .where('status', '=', 'active')
    .where('role', 'in', roles);
  if (where === 'host-wide') query = query.where('space', 'is', null);
  else if (where !== 'anywhere') {
    const { space, orHostWide } = where;
    query = query.where((eb) => (orHostWide ? eb.or([eb('space', 'is', null), eb('space', '=', space)]) : eb('space', '=', space)));
  }
  return (await query.executeTakeFirst()) !== undefined;
}

/**
 * Assigning and revoking roles and adding humans need the steward key or a
 * signed-in human with an active host-wide `owner` assignment; `host` is not
 * enough, and an API key is refused: who holds power stays a sign-in decision.
 */
export async function requireHostWideOwner(db: Kysely<DatabaseSchema>, actor: Actor): Promise<void> {
  if (actor.kind === 'anonymous') throw unauthenticated('credential_required', 'a credential is required');
  if (actor.kind === 'steward') return;
  if (actor.kind === 'member' && (await holdsHostWideOwner(db, actor.member))) {
    if (actor.credential.type === 'session') return;
    throw forbidden('session_required', 'Owner powers need a signed-in session; API keys are refused (sign in through the web app, or `atrium sign-in` in the CLI)');
  }
  throw forbidden('role_required', 'a host-wide Owner role is required');
}

/** The steward key, or an active human with a host-wide `owner` assignment using their own member credential. */
export async function isHostWideOwner(db: Kysely<DatabaseSchema>, actor: Actor): Promise<boolean> {
  if (actor.kind === 'steward') return true;
  return actor.kind === 'member' && grantReaches(actor, undefined) && holdsHostWideOwner(db, actor.member);
}

async function holdsHostWideOwner(db: Kysely<DatabaseSchema>, member: MemberRecord): Promise<boolean> {
  if (member.type !== 'human' || member.status !== 'active') return false;
  return holdsRole(db, member.handle, ['owner'], 'host-wide');
}

/** Acting members must be active; a pending agent or suspended member may not act. */
export function requireActiveMember(actor: Actor): MemberActor {
  if (actor.kind === 'anonymous') throw unauthenticated('credential_required', 'a member credential is required');
  if (actor.kind !== 'member') throw forbidden('member_required', 'a member credential is required');
  if (actor.member.status !== 'active') throw forbidden(actor.member.status === 'pending' ? 'member_pending' : 'member_suspended', `member ${actor.member.handle} is ${actor.member.status}`);
  return actor;
}

export function requireActiveHuman(actor: Actor): MemberActor {
  const member = requireActiveMember(actor);
  if (member.member.type !== 'human') throw forbidden('human_required', 'an active human member is required');
  return member;
}

/** The event actor of a caller already known to be the steward or a member. */
export function eventActor(actor: Actor): { handle: string } | { steward: true } {
  if (actor.kind === 'member') return { handle: actor.member.handle };
  if (actor.kind === 'steward') return { steward: true };
  throw new Error('anonymous callers do not act');
}
