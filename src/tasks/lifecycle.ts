import type { TaskStatus } from './tables.js';

/**
 * The task state table (docs/protocol.md#task-status names the transitions; docs/tasks.md has
 * the table and who may make each move). A move from any other state is a 409.
 */
export const MOVES = {
  claim: { from: ['open'], to: 'claimed', event: 'task_claimed' },
  release: { from: ['claimed'], to: 'open', event: 'task_released' },
  submit: { from: ['claimed'], to: 'submitted', event: 'task_submitted' },
  complete: { from: ['submitted'], to: 'completed', event: 'task_completed' },
  reopen: { from: ['completed', 'cancelled'], to: 'open', event: 'task_reopened' },
  cancel: { from: ['open', 'claimed', 'submitted'], to: 'cancelled', event: 'task_cancelled' },
} as const satisfies Record<string, { from: readonly TaskStatus[]; to: TaskStatus; event: string }>;

export type TaskMove = keyof typeof MOVES;

export const TASK_MOVES = Object.keys(MOVES) as TaskMove[];

export function allowedFrom(move: TaskMove): readonly TaskStatus[] {
  return MOVES[move].from;
}

/** "open", "open or claimed", "open, claimed or submitted". */
export function listStates(states: readonly string[]): string {
  return states.length <= 1 ? (states[0] ?? '') : `${states.slice(0, -1).join(', ')} or ${states.at(-1)}`;
}

/**
 * The columns that record work on a task: empty on a new task, and emptied
 * again by reopen and cancel (the provenance of a completion lives on in its
 * `task_completed` event).
 */
export const NO_WORK = {
  claimant: null,
  claimed_ts: null,
  submitted_ts: null,
  worker: null,
  worker_principal: null,
  completer: null,
  completer_principal: null,
  assurance: null,
  required_assurance: null,
  completed_ts: null,
} as const;
