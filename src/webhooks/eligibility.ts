import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../storage/schema.js';
import type { SpaceRecord } from '../spaces/records.js';
import type { MembershipState } from '../spaces/tables.js';

/**
 * Who may still be woken about what (docs/webhooks.md, "What stops sends"),
 * decided for many subscription owners at once: the projector and the sender
 * handle hundreds of subscriptions per event, so these are a few set queries
 * per batch, never a few queries per owner.
 *
 * The rules mirror the ones a request meets (spaces/admission.ts `requireAct`
 * and `canRead`, identity/credentials.ts for suspension), and the tests hold
 * both to the same outcomes:
 * - the owner is an active member, and an agent's operator is not suspended;
 * - a Space subscription's owner passes the Space action gate: admitted, or
 *   an open Space they were not removed from, or its Owner/Host;
 * - an inbox entry counts only if its Space is readable by the owner: not an
 *   invite Space, or admitted there, or its Owner/Host.
 */
export class Eligibility {
  private constructor(
    private readonly activeOwners: Set<string>,
    private readonly states: Map<string, MembershipState>,
    private readonly hostWide: Set<string>,
    private readonly hosts: Set<string>,
  ) {}

  static async load(db: Kysely<DatabaseSchema>, owners: readonly string[], spaces: readonly string[]): Promise<Eligibility> {
    const unique = [...new Set(owners)];
    if (unique.length === 0) return new Eligibility(new Set(), new Map(), new Set(), new Set());
    const members = await db
      .selectFrom('members')
      .leftJoin('members as operators', (join) => join.onRef('operators.handle', '=', 'members.operator').on('members.type', '=', 'agent'))
      .select(['members.handle', 'members.type', 'members.status', 'operators.status as operator_status'])
      .where('members.handle', 'in', unique)
      .execute();
    const active = new Set(members.filter((m) => m.status === 'active' && m.operator_status !== 'suspended').map((m) => m.handle));
    const humans = members.filter((m) => m.type === 'human' && active.has(m.handle)).map((m) => m.handle);
    const states = new Map<string, MembershipState>();
    if (spaces.length > 0) {
      const rows = await db
        .selectFrom('space_memberships')
        .select(['space', 'member_handle', 'state'])
        .where('space', 'in', [...new Set(spaces)])
        .where('member_handle', 'in', unique)
        .execute();
      for (const row of rows) states.set(key(row.member_handle, row.space), row.state);
    }
    const hostWide = new Set<string>();
    const hosts = new Set<string>();
    if (humans.length > 0) {
      // Only humans hold Owner/Host powers: an agent never inherits its operator's roles.
      const roles = await db
        .selectFrom('role_assignments')
        .select(['member_handle', 'space'])
        .where('member_handle', 'in', humans)
        .where('status', '=', 'active')
        .where('role', 'in', ['owner', 'host'])
        .execute();
      for (const role of roles) {
        if (role.space === null) hostWide.add(role.member_handle);
        else hosts.add(key(role.member_handle, role.space));
      }
    }
    return new Eligibility(active, states, hostWide, hosts);
  }

  /** The owner may be sent anything at all. */
  isActive(owner: string): boolean {
    return this.activeOwners.has(owner);
  }

  /** A Space subscription's owner may still act in the Space (and so read it). */
  mayAct(owner: string, space: Pick<SpaceRecord, 'slug' | 'join_policy'>): boolean {
    if (!this.isActive(owner)) return false;
    const state = this.states.get(key(owner, space.slug));
    if (state === 'admitted') return true;
    if (space.join_policy === 'open' && state !== 'removed') return true;
    return this.isOwnerOrHost(owner, space.slug);
  }

  /** The owner may read the Space's events (an inbox entry from it counts). */
  mayRead(owner: string, space: Pick<SpaceRecord, 'slug' | 'join_policy'>): boolean {
    if (!this.isActive(owner)) return false;
    if (space.join_policy !== 'invite') return true;
    return this.states.get(key(owner, space.slug)) === 'admitted' || this.isOwnerOrHost(owner, space.slug);
  }

  private isOwnerOrHost(owner: string, space: string): boolean {
    return this.hostWide.has(owner) || this.hosts.has(key(owner, space));
  }
}

function key(owner: string, space: string): string {
  return `${owner}\n${space}`;
}
