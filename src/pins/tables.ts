/**
 * The decision on a pin proposal (docs/pins.md). The proposal itself is a
 * `pin_proposal` row in `tasks` (pending = `open`, accepted = `completed`,
 * declined = `cancelled`), with `resource_id` and `rationale` set.
 */
export interface PinProposalDecisionTable {
  task_id: number;
  decision: 'accepted' | 'declined';
  decided_by: string | null;
  /** The decline reason; empty for an acceptance. */
  reason: string;
  decided_ts: string;
}

export interface PinsTables {
  pin_proposal_decisions: PinProposalDecisionTable;
}
