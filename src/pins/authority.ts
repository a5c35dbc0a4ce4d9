import type { Kysely } from 'kysely';
import type { Actor } from '../identity/actor.js';
import type { MemberRecord } from '../members/records.js';
import { findMember } from '../members/service.js';
import { holdsRole, isOwnerOrHost } from '../roles/authority.js';
import { forbidden, unauthenticated } from '../shared/errors.js';
import { membershipState, requireAct } from '../spaces/admission.js';
import type { SpaceRecord } from '../spaces/records.js';
import type { DatabaseSchema } from '../storage/schema.js';

/**
 * Who may append a pin (protocol: Owner, Host and maintainer): the pin
 * administrators (Owner/Host of the Space with their session or member key, or
 * the steward key), or the Space's designated maintainer with any member credential. The
 * maintainer's power lasts only while the assignment is active and the
 * maintainer can still act in the Space; for an agent, its accountable
 * operator must still be an active human who can act there too, since removing
 * the operator from the Space revokes what the agent does on their behalf.
 */
export async function requirePinAppender(db: Kysely<DatabaseSchema>, actor: Actor, space: SpaceRecord): Promise<void> {
  if (await isOwnerOrHost(db, actor, { space: space.slug })) return;
  if (actor.kind === 'anonymous') throw unauthenticated('credential_required', 'a credential is required');
  if (actor.kind === 'member' && (await holdsRole(db, actor.member.handle, ['maintainer'], { space: space.slug, orHostWide: false }))) {
    await requireAct(db, actor, space);
    if (actor.member.type === 'agent') await requireOperatorCanAct(db, actor.member, space);
    return;
  }
  throw forbidden('pin_append_forbidden', `only an Owner/Host of Space ${space.slug} or its designated maintainer may append pins`);
}


/**
 * The operator side of an agent maintainer: the same action gate as
 * `requireAct`, applied to a member who is not the caller. An Owner/Host
 * assignment counts without a session here, because the operator is not
 * exercising it; it only shows they have not been shut out of the Space.
 */
async function requireOperatorCanAct(db: Kysely<DatabaseSchema>, agent: MemberRecord, space: SpaceRecord): Promise<void> {
  const operator = agent.operator ? await findMember(db, agent.operator) : undefined;
  const refuse = (why: string) => forbidden('pin_append_forbidden', `maintainer ${agent.handle} acts for ${agent.operator ?? 'no operator'}, who ${why}`);
  if (!operator || operator.type !== 'human') throw refuse('is not a registered human member');
  if (operator.status !== 'active') throw refuse(`is ${operator.status}`);
  const state = await membershipState(db, space.slug, operator.handle);
  if (state === 'admitted') return;
  if (space.join_policy === 'open' && state !== 'removed') return;
  if (await holdsOwnerOrHost(db, operator.handle, space.slug)) return;
  throw refuse(state === 'removed' ? `was removed from Space ${space.slug}` : `is not admitted to Space ${space.slug}`);
}

/** An active `owner` or `host` assignment, host-wide or on the Space, whatever the credential. */
async function holdsOwnerOrHost(db: Kysely<DatabaseSchema>, handle: string, slug: string): Promise<boolean> {
  const row = await db
    .selectFrom('role_assignments')
    .select('id')
    .where('member_handle', '=', handle)
    .where('status', '=', 'active')
    .where('role', 'in', ['owner', 'host'])
    .where((eb) => eb.or([eb('space', 'is', null), eb('space', '=', slug)]))
    .executeTakeFirst();
  return row !== undefined;
}
