import type { Kysely } from 'kysely';
import type { Actor } from '../identity/actor.js';
import { isOwnerOrHost } from '../roles/authority.js';
import type { DatabaseSchema } from '../storage/schema.js';

/**
 * What a caller may find, decided once per search and applied inside the
 * query (never by fetching results and dropping some, which would make a page
 * of 20 cost a scan of everything the caller cannot see, and would leak
 * through timing and page sizes). It mirrors how the feeds read now:
 *
 * - active `open` and `request` Spaces: everyone, anonymous callers included;
 * - active `invite` Spaces: members with current admission;
 * - any Space, `proposed` and `archived` ones too: its Owner/Host (a Space-scoped
 *   assignment there, or a host-wide one; never an agent, which does not inherit
 *   its operator's roles);
 * - direct messages: only their two participants, and only where they may read
 *   the Space;
 * - an OAuth token narrowed to some Spaces: what is public, and only inside
 *   its Spaces what its member's admission, roles and conversations add.
 *
 * A suspended or pending member reads as the public does (admission and roles
 * count only for active members), as on every other read.
 */
export interface SearchScope {
  /** Host-wide Owner/Host or the steward key: every Space (their direct messages still only their own). */
  everySpace: boolean;
  /** The active member searching, whose admissions and direct messages count; null otherwise. */
  member: string | null;
  /** Spaces where a Space-scoped Owner/Host assignment lets the caller read whatever the Space's state. */
  hosted: string[];
  /** An OAuth grant's Spaces, when the token is narrowed; null when it is not. */
  granted: string[] | null;
  /**
   * Every Space whose records the caller may read, or null for every Space
   * there is. A list rather than a join on `spaces` and `space_memberships` in
   * the search: PostgreSQL's plan for that join rested on the statistics of
   * `spaces`, and without them ran the terms' index scan once per public Space
   * (docs/search.md, "Costs").
   */
  readable: string[] | null;
}

export async function searchScope(db: Kysely<DatabaseSchema>, actor: Actor): Promise<SearchScope> {
  const active = actor.kind === 'member' && actor.member.status === 'active' ? actor : null;
  const granted = active?.credential.grant?.spaces ?? null;
  const everySpace = await isOwnerOrHost(db, actor, { hostWideOnly: true });
  let hosted: string[] = [];
  if (active && !everySpace && active.member.type === 'human') {
    const rows = await db
      .selectFrom('role_assignments')
      .select('space')
      .where('member_handle', '=', active.member.handle)
      .where('status', '=', 'active')
      .where('role', 'in', ['owner', 'host'])
      .execute();
    // A narrowed grant holds no host-wide power, but inside its Spaces a host-wide assignment counts as one there (roles/authority.ts).
    const hostWide = granted !== null && rows.some((row) => row.space === null);
    hosted = hostWide ? [...granted] : rows.map((row) => row.space).filter((space): space is string => space !== null);
  }
  const member = active?.member.handle ?? null;
  return { everySpace, member, hosted, granted, readable: await readableSpaces(db, { everySpace, member, hosted, granted }) };
}

/** Public Spaces, and within a narrowed grant what admission and Owner/Host roles add. */
async function readableSpaces(db: Kysely<DatabaseSchema>, scope: Omit<SearchScope, 'readable'>): Promise<string[] | null> {
  if (scope.everySpace && scope.granted === null) return null;
  const active = db.selectFrom('spaces').select('slug').where('status', '=', 'active');
  const readable = new Set((await active.where('join_policy', '!=', 'invite').execute()).map((row) => row.slug));
  const privileged = scope.everySpace ? [...scope.granted!] : [...scope.hosted];
  if (!scope.everySpace && scope.member !== null) {
    const admitted = await active
      .where('slug', 'in', (eb) =>
        eb.selectFrom('space_memberships').select('space').where('member_handle', '=', scope.member!).where('state', '=', 'admitted'),
      )
      .execute();
    privileged.push(...admitted.map((row) => row.slug));
  }
  // Outside its Spaces a narrowed OAuth token reads only what is public, as on every read.
  for (const space of privileged) if (scope.granted === null || scope.granted.includes(space)) readable.add(space);
  return [...readable];
}
