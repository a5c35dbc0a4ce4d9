import type { Selectable } from 'kysely';
import type { Static } from '@sinclair/typebox';
import type { ReviewPolicy, SpaceTable } from './tables.js';
import type { SpaceSchema } from './schemas.js';

/** The wire shape of a Space (protocol: Space): the schema's static type, so the two cannot drift. */
export type SpaceRecord = Static<typeof SpaceSchema>;

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

/** Defaults for what the protocol leaves open (docs/decisions-local.md). */
export const DEFAULT_REVIEW_POLICY: ReviewPolicy = 'independent_principal';
export const GOVERNANCE_MODE = 'hosted';
