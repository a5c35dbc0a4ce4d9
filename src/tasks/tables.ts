import type { Generated } from 'kysely';
import type { ASSURANCES, TASK_KINDS, TASK_STATUSES } from './schemas.js';

export type TaskKind = (typeof TASK_KINDS)[number];
export type TaskStatus = (typeof TASK_STATUSES)[number];
export type Assurance = (typeof ASSURANCES)[number];

/**
 * A task (protocol: Tasks). One row carries the lifecycle and, once completed, the
 * completion's provenance. `resource_id` and `rationale` are unused by the task
 * endpoints: they are there so a pin proposal (protocol: Pin proposals) can be
 * a task of kind `pin_proposal` in this same table.
 */
export interface TaskTable {
  /** Integer id per host (protocol: Tasks), from one sequence across all Spaces. */
  id: Generated<number>;
  space: string;
  kind: TaskKind;
  title: string;
  body: string;
  status: TaskStatus;
  created_by: string;
  /** Who holds the claim while the task is `claimed` or `submitted`; null otherwise. */
  claimant: string | null;
  claimed_ts: string | null;
  submitted_ts: string | null;
  /** Completion provenance, set while the task is `completed` (docs/tasks.md). */
  worker: string | null;
  worker_principal: string | null;
  completer: string | null;
  completer_principal: string | null;
  assurance: Assurance | null;
  required_assurance: Assurance | null;
  completed_ts: string | null;
  resource_id: string | null;
  rationale: string | null;
  created_ts: string;
  updated_ts: string;
}

export interface TasksTables {
  tasks: TaskTable;
}
