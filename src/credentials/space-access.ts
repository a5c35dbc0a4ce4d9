import type { Kysely } from 'kysely';
import type { Actor, MemberActor } from '../identity/actor.js';
import { requireActiveMember } from '../roles/authority.js';
import { conflict, forbidden, notFound } from '../shared/errors.js';
import type { DatabaseSchema } from '../storage/schema.js';

/**
 * Who may list connections and call through them: an active member admitted
 * to the Space. Unlike other writes in an open Space, admission is required
 * here even there (joining an open Space admits at once): reaching a provider
 * with the host's credential is a power of the Space's members, and an
 * Owner/Host role does not stand in for membership. The Space and the
 * caller's membership are read in one query: every call pays for it.
 */
export async function admittedMember(db: Kysely<DatabaseSchema>, actor: Actor, slug: string, opts: { active: boolean }): Promise<{ member: MemberActor }> {
  const member = requireActiveMember(actor);
  const row = await db
    .selectFrom('spaces')
    .leftJoin('space_memberships', (join) => join.onRef('space_memberships.space', '=', 'spaces.slug').on('space_memberships.member_handle', '=', member.member.handle))
    .select(['spaces.status', 'space_memberships.state'])
    .where('spaces.slug', '=', slug)
    .executeTakeFirst();
  if (!row) throw notFound('space_not_found', `no such Space: ${slug}`);
  if (row.state !== 'admitted') throw forbidden('not_admitted', `${member.member.handle} is not admitted to Space ${slug}: join it first`);
  if (opts.active && row.status !== 'active') throw conflict('space_not_active', `Space ${slug} is ${row.status}: external calls are made only in active Spaces`);
  return { member };
}
