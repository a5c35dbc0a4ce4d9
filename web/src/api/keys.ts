// The roots of every query key. A feed event marks everything under its root
// stale at once (a Space's events everything under `space(slug)`, the inbox's
// everything under `inbox`), so each feature's key factory starts from one of
// these and invalidation is by prefix, never by a hand-typed array.

export const rootKeys = {
  /** Every Space's reads (after a change that touches them all, such as an endpoint removed). */
  spaces: ['space'] as const,
  /** Everything read inside one Space: its feed refreshes it. */
  space: (slug: string) => ['space', slug] as const,
  /** The list of Space records. */
  spaceList: ['spaces'] as const,
  /** The signed-in member's own records. */
  me: ['me'] as const,
  /** Member records and lists outside any one Space. */
  members: ['members'] as const,
  /** The inbox: its feed refreshes it. */
  inbox: ['inbox'] as const,
  /** Search results, across Spaces: no Space feed refreshes them, so each search reads afresh once stale. */
  search: ['search'] as const,
  host: ['host'] as const,
};
