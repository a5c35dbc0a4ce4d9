import type { MemberRecord } from '../members/records.js';

/**
 * Who is calling, as established by the edge from the presented credential.
 * Services decide authority from this alone: they never see HTTP. How the member
 * authenticated matters (protocol: Owner, Host and maintainer; a few powers need a
 * signed-in session, never an API key), so the credential kind is part of the actor.
 */
export type Actor =
  | { kind: 'anonymous' }
  | { kind: 'steward' }
  | { kind: 'member'; member: MemberRecord; credential: { type: 'key' | 'session'; id: string } };

export type MemberActor = Extract<Actor, { kind: 'member' }>;

export const ANONYMOUS: Actor = { kind: 'anonymous' };
