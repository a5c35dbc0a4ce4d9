export type Role = 'owner' | 'host' | 'maintainer';

/** A role assignment (protocol: Role assignments): host-wide when `space` is null. */
export interface RoleAssignmentTable {
  id: string;
  member_handle: string;
  role: Role;
  space: string | null;
  status: 'active' | 'revoked';
  created_by: string | null;
  created_ts: string;
  revoked_by: string | null;
  revoked_ts: string | null;
}

export interface RolesTables {
  role_assignments: RoleAssignmentTable;
}
