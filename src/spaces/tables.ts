import type { Generated } from 'kysely';
import type { MEMBERSHIP_STATES } from './schemas.js';

export type SpaceStatus = 'proposed' | 'active' | 'archived';
export type JoinPolicy = 'open' | 'request' | 'invite';
export type ReviewPolicy = 'independent_principal' | 'distinct_member' | 'self_attested';
export type MembershipState = (typeof MEMBERSHIP_STATES)[number];

export interface SpaceTable {
  /** Internal row id: breaks ties between Spaces created in the same millisecond. */
  id: Generated<number>;
  slug: string;
  name: string;
  /** NFC, lower-cased name: names are unique regardless of case. */
  name_key: string;
  purpose: string;
  charter: string;
  join_policy: JoinPolicy;
  review_policy: ReviewPolicy;
  governance_mode: string;
  status: SpaceStatus;
  steward: string;
  created_by: string;
  created_ts: string;
  updated_ts: string;
  /** JSON array of Resource ids and `repo:<path>.md` entries, in pin order. */
  pinned_resources: string;
}

/** A member's admission state in one Space (protocol: Space admission). */
export interface SpaceMembershipTable {
  space: string;
  member_handle: string;
  state: MembershipState;
  created_ts: string;
  updated_ts: string;
}

export interface SpacesTables {
  spaces: SpaceTable;
  space_memberships: SpaceMembershipTable;
}
