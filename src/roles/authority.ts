import type { Kysely } from 'kysely';
import type { Actor, MemberActor } from '../identity/actor.js';
import { forbidden, unauthenticated } from '../shared/errors.js';
import type { DatabaseSchema } from '../storage/schema.js';

export interface OwnerHostScope {
  /** The Space the power is exercised on; a Space-scoped assignment counts there. */
  space?: string;
  /** Approve/archive/restore of a Space need a host-wide assignment (decisions §4). */
  hostWideOnly?: boolean;
}

/**
 * "Owner/Host" (decisions §4): the steward key, or a signed-in human (session,
 * never an API key) with an active `owner` or `host` assignment host-wide or on
 * the Space. Agents never qualify: an agent does not inherit its operator's roles.
 */
export async function isOwnerOrHost(db: Kysely<DatabaseSchema>, actor: Actor, scope: OwnerHostScope = {}): Promise<boolean> {
  if (actor.kind === 'steward') return true;
  if (actor.kind !== 'member' || actor.credential.type !== 'session') return false;
  return hasOwnerHostAssignment(db, actor, scope);
}

export async function requireOwnerOrHost(db: Kysely<DatabaseSchema>, actor: Actor, scope: OwnerHostScope = {}): Promise<void> {
  if (actor.kind === 'anonymous') throw unauthenticated('a credential is required');
  if (await isOwnerOrHost(db, actor, scope)) return;
  if (actor.kind === 'member' && actor.credential.type === 'key' && (await hasOwnerHostAssignment(db, actor, scope))) {
    throw forbidden('Owner or Host powers need a signed-in session; API keys are refused');
  }
  throw forbidden(scope.hostWideOnly ? 'a host-wide Owner or Host role is required' : 'Owner or Host role required');
}

async function hasOwnerHostAssignment(db: Kysely<DatabaseSchema>, actor: MemberActor, scope: OwnerHostScope): Promise<boolean> {
  const member = actor.member;
  if (member.type !== 'human' || member.status !== 'active') return false;
  const row = await db
    .selectFrom('role_assignments')
    .select('id')
    .where('member_handle', '=', member.handle)
    .where('status', '=', 'active')
    .where('role', 'in', ['owner', 'host'])
    .where((eb) =>
      scope.space && !scope.hostWideOnly
        ? eb.or([eb('space', 'is', null), eb('space', '=', scope.space)])
        : eb('space', 'is', null),
    )
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Assigning and revoking roles (decisions §4) needs the steward key or a
 * signed-in human with an active host-wide `owner` assignment; `host` is not enough.
 */
export async function requireHostWideOwner(db: Kysely<DatabaseSchema>, actor: Actor): Promise<void> {
  if (actor.kind === 'anonymous') throw unauthenticated('a credential is required');
  if (actor.kind === 'steward') return;
  if (actor.kind === 'member' && actor.member.type === 'human' && actor.member.status === 'active') {
    const row = await db
      .selectFrom('role_assignments')
      .select('id')
      .where('member_handle', '=', actor.member.handle)
      .where('status', '=', 'active')
      .where('role', '=', 'owner')
      .where('space', 'is', null)
      .executeTakeFirst();
    if (row && actor.credential.type === 'session') return;
    if (row) throw forbidden('Owner powers need a signed-in session; API keys are refused');
  }
  throw forbidden('a host-wide Owner role is required');
}

/** Acting members must be active; a pending agent or suspended member may not act. */
export function requireActiveMember(actor: Actor): MemberActor {
  if (actor.kind === 'anonymous') throw unauthenticated('a member credential is required');
  if (actor.kind !== 'member') throw forbidden('a member credential is required');
  if (actor.member.status !== 'active') throw forbidden(`member ${actor.member.handle} is ${actor.member.status}`);
  return actor;
}

export function requireActiveHuman(actor: Actor): MemberActor {
  const member = requireActiveMember(actor);
  if (member.member.type !== 'human') throw forbidden('an active human member is required');
  return member;
}

/** The event actor of a caller already known to be the steward or a member. */
export function eventActor(actor: Actor): { handle: string } | { steward: true } {
  if (actor.kind === 'member') return { handle: actor.member.handle };
  if (actor.kind === 'steward') return { steward: true };
  throw new Error('anonymous callers do not act');
}
