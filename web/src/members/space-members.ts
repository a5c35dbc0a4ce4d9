import { call, client, type Schemas } from '../api/client';

export type SpaceMember = Schemas['SpaceMember'];
export type MembershipState = Exclude<SpaceMember['state'], 'none'>;

/** Members a page: the API's most. A Space may hold thousands, so every reader of its list pages. */
export const MEMBER_PAGE = 200;

/** One page of a Space's memberships in one state, in handle order, after `before` (the last handle already held). */
export async function spaceMembersPage(slug: string, state: MembershipState, before?: string): Promise<SpaceMember[]> {
  const query = { state, limit: MEMBER_PAGE, ...(before === undefined ? {} : { before }) };
  return (await call(client.GET('/v0/spaces/{slug}/members', { params: { path: { slug }, query } }))).members;
}
