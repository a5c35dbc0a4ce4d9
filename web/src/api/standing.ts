import { useQuery } from '@tanstack/react-query';
import { call, client, type Schemas } from './client';
import { useSession } from './session';
import { rootKeys } from './keys';

// What the signed-in member may do, asked of the server once and cached: their
// role assignments and their memberships. Pages use these only to decide which
// buttons to offer; the server judges every request again, and a refusal is
// shown as it comes.

export type RoleAssignment = Schemas['RoleAssignment'];
export type Membership = Schemas['SpaceMembership'];

export const standingKeys = {
  roles: [...rootKeys.me, 'roles'] as const,
  memberships: [...rootKeys.me, 'memberships'] as const,
};

export function useMyRoles() {
  const { state } = useSession();
  return useQuery({
    queryKey: standingKeys.roles,
    enabled: state.status === 'signed-in',
    queryFn: async () => (await call(client.GET('/v0/me/role-assignments'))).role_assignments,
  });
}

export function useMyMemberships() {
  const { state } = useSession();
  return useQuery({
    queryKey: standingKeys.memberships,
    enabled: state.status === 'signed-in',
    queryFn: async () => (await call(client.GET('/v0/me/memberships'))).memberships,
  });
}

/** Owner or Host of this Space: host-wide, or scoped to it. */
export function isOwnerOrHostOf(roles: RoleAssignment[] | undefined, slug: string): boolean {
  return (roles ?? []).some((r) => (r.role === 'owner' || r.role === 'host') && (r.space === null || r.space === slug));
}

/** A host-wide Owner: sees the operator's page. */
export function isHostWideOwner(roles: RoleAssignment[] | undefined): boolean {
  return (roles ?? []).some((r) => r.role === 'owner' && r.space === null);
}

/** A host-wide Owner or Host: approves proposed Spaces and members. */
export function isHostWideOwnerOrHost(roles: RoleAssignment[] | undefined): boolean {
  return (roles ?? []).some((r) => (r.role === 'owner' || r.role === 'host') && r.space === null);
}

/** The caller's standing in one Space: `none` when they have none. */
export function membershipIn(memberships: Membership[] | undefined, slug: string): Membership['state'] {
  return memberships?.find((m) => m.space === slug)?.state ?? 'none';
}

/**
 * Everything a Space page needs to decide what to offer: who is asking, their
 * standing here, and whether they are its Owner/Host.
 */
export function useStanding(slug: string) {
  const { state } = useSession();
  const roles = useMyRoles();
  const memberships = useMyMemberships();
  const me = state.status === 'signed-in' ? state.member : null;
  return {
    me,
    loaded: me === null || (roles.isSuccess && memberships.isSuccess),
    membership: membershipIn(memberships.data, slug),
    ownerOrHost: isOwnerOrHostOf(roles.data, slug),
    hostWide: isHostWideOwnerOrHost(roles.data),
  };
}
