import type { Selectable } from 'kysely';
import type { JoinPolicy, ReviewPolicy, SpaceStatus, SpaceTable } from './tables.js';

/** The wire shape of a Space (reference: Space), exactly its documented fields. */
export interface SpaceRecord {
  slug: string;
  name: string;
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
  pinned_resources: string[];
}

export function toSpaceRecord(row: Selectable<SpaceTable>): SpaceRecord {
  return {
    slug: row.slug,
    name: row.name,
    purpose: row.purpose,
    charter: row.charter,
    join_policy: row.join_policy,
    review_policy: row.review_policy,
    governance_mode: row.governance_mode,
    status: row.status,
    steward: row.steward,
    created_by: row.created_by,
    created_ts: row.created_ts,
    updated_ts: row.updated_ts,
    pinned_resources: JSON.parse(row.pinned_resources) as string[],
  };
}

/** Names are unique regardless of case and Unicode composition. */
export function spaceNameKey(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

/** Defaults for what the reference leaves open (docs/decisions-local.md). */
export const DEFAULT_REVIEW_POLICY: ReviewPolicy = 'independent_principal';
export const GOVERNANCE_MODE = 'hosted';
