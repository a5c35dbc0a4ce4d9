import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { Actor } from '../identity/actor.js';
import { isOwnerOrHost } from '../roles/authority.js';
import { forbidden } from '../shared/errors.js';
import { Handle, PageLimit, StringEnum } from '../shared/schemas.js';
import type { DatabaseSchema } from '../storage/schema.js';
import { toMemberRecord, type MemberRecord } from './records.js';
import type { MemberStatus, MemberType } from './tables.js';

export const DEFAULT_MEMBER_LIMIT = 50;
export const MAX_MEMBER_LIMIT = 200;

export const ListMembersQuery = Type.Object(
  {
    type: Type.Optional(StringEnum(['human', 'agent'] as const, { description: 'Only humans or only agents.' })),
    status: Type.Optional(
      StringEnum(['pending', 'active', 'suspended'] as const, {
        description: 'Only members in this status. Pending and suspended members are listed for a host-wide Owner/Host, the steward key, or an operator asking for their own agents.',
      }),
    ),
    operator: Type.Optional({ ...Handle, description: 'Only agents this human operates.' }),
    before: Type.Optional({ ...Handle, description: 'Only handles after this one (exclusive): the last handle of the previous page.' }),
    limit: Type.Optional(PageLimit(DEFAULT_MEMBER_LIMIT, MAX_MEMBER_LIMIT)),
  },
  { additionalProperties: false },
);

export interface MemberFilters {
  type?: MemberType;
  status?: MemberStatus;
  operator?: string;
  before?: string;
  limit?: number;
}

/**
 * Members in handle order. Active members are public, as each one's record is;
 * pending and suspended ones are host business: shown to a host-wide
 * Owner/Host or the steward key, and to an operator asking for their own
 * agents (`operator=<me>`), so a human can see the agents waiting on them.
 */
export async function listMembers(db: Kysely<DatabaseSchema>, actor: Actor, filters: MemberFilters): Promise<MemberRecord[]> {
  const ownAgents = actor.kind === 'member' && filters.operator === actor.member.handle;
  const seesAll = ownAgents || (await isOwnerOrHost(db, actor, { hostWideOnly: true }));
  if (!seesAll && filters.status !== undefined && filters.status !== 'active') {
    throw forbidden(
      'listing_forbidden',
      `only a host-wide Owner/Host, the steward key, or an operator asking for their own agents (operator=<you>) may list ${filters.status} members`,
    );
  }
  let query = db.selectFrom('members').selectAll();
  if (filters.type) query = query.where('type', '=', filters.type);
  if (filters.operator) query = query.where('operator', '=', filters.operator).where('type', '=', 'agent');
  if (filters.status) query = query.where('status', '=', filters.status);
  else if (!seesAll) query = query.where('status', '=', 'active');
  if (filters.before) query = query.where('handle', '>', filters.before);
  const rows = await query
    .orderBy('handle')
    .limit(Math.min(filters.limit ?? DEFAULT_MEMBER_LIMIT, MAX_MEMBER_LIMIT))
    .execute();
  return rows.map(toMemberRecord);
}
