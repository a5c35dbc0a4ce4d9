import type { Kysely } from 'kysely';
import type { Actor, MemberActor } from '../identity/actor.js';
import { requireActiveMember } from '../roles/authority.js';
import { conflict, forbidden } from '../shared/errors.js';
import { membershipState } from '../spaces/admission.js';
import type { SpaceRecord } from '../spaces/records.js';
import { getSpace } from '../spaces/service.js';
import type { DatabaseSchema } from '../storage/schema.js';

/**
 * Who may list connections and call through them: an active member admitted
 * to the Space. Unlike other writes in an open Space, admission is required
 * here even there (joining an open Space admits at once): reaching a provider
 * with the host's credential is a power of the Space's members, and an
 * Owner/Host role does not stand in for membership.
 */
export async function admittedMember(
  db: Kysely<DatabaseSchema>,
  actor: Actor,
  slug: string,
  opts: { active: boolean },
): Promise<{ member: MemberActor; space: SpaceRecord }> {
  const member = requireActiveMember(actor);
  const space = await getSpace(db, slug);
  if ((await membershipState(db, slug, member.member.handle)) !== 'admitted') {
    throw forbidden('not_admitted', `${member.member.handle} is not admitted to Space ${slug}: join it first`);
  }
  if (opts.active && space.status !== 'active') throw conflict('space_not_active', `Space ${slug} is ${space.status}: external calls are made only in active Spaces`);
  return { member, space };
}
