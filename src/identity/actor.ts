import type { MemberRecord } from '../members/records.js';
import type { OAuthScope } from '../oauth/tables.js';

/**
 * What an OAuth grant lets its tokens do (docs/oauth.md, "Narrowing"): `read`
 * alone or `read write`, in every Space or only the listed ones.
 */
export interface GrantNarrowing {
  id: string;
  scope: OAuthScope;
  spaces: string[] | null;
}

/**
 * Who is calling, as established by the edge from the presented credential.
 * Services decide authority from this alone: they never see HTTP. How the member
 * authenticated matters (protocol: Owner, Host and maintainer; a few powers need a
 * signed-in session, never an API key), so the credential kind is part of the actor.
 * An OAuth access token is a member credential like a key, narrowed by its grant.
 */
export type Actor =
  | { kind: 'anonymous' }
  | { kind: 'steward' }
  | {
      kind: 'member';
      member: MemberRecord;
      credential: { type: 'key' | 'session'; id: string; grant?: GrantNarrowing };
      /**
       * The member row's access version as the credential was resolved (migration
       * 0032): it moves whenever what the member may read could have changed, so
       * what a node keeps for this reader (inbox pages) is kept under it. Absent
       * for actors made up inside the service, which keep nothing.
       */
      accessVersion?: number;
    };

export type MemberActor = Extract<Actor, { kind: 'member' }>;

/**
 * Whether the caller's OAuth grant reaches `space` (undefined: the host as a
 * whole). A credential without a grant, or a grant for every Space, reaches
 * everything; a grant narrowed to some Spaces reaches only those, and never
 * the host as a whole (docs/oauth.md, "Narrowing").
 */
export function grantReaches(actor: Actor, space: string | undefined): boolean {
  const granted = actor.kind === 'member' ? actor.credential.grant?.spaces : undefined;
  if (!granted) return true;
  return space !== undefined && granted.includes(space);
}

export const ANONYMOUS: Actor = { kind: 'anonymous' };
