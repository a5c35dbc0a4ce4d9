// Types straight from the generated contract (not through api/client.ts), so
// that this file loads on its own: test/web-task-rules.test.ts holds it to the
// server's rules by running it in Node against a real server.
import type { components } from '../../../src/client/openapi.js';

type Schemas = components['schemas'];
type Space = Schemas['Space'];

// Who may make which task move (docs/tasks.md, "States"; src/tasks/service.ts),
// so a page offers only the moves the server would allow. The server judges
// every move again; a refusal that still comes is shown as it comes.

export type Task = Schemas['Task'];
export type TaskStatus = Task['status'];
export type TaskKind = Task['kind'];
export type Assurance = Schemas['TaskCompletion']['assurance'];
export type Member = Schemas['Member'];
export type TaskMove = 'claim' | 'release' | 'submit' | 'complete' | 'reopen' | 'cancel';

export const STATUSES: readonly TaskStatus[] = ['open', 'claimed', 'submitted', 'completed', 'cancelled'];
/** `pin_proposal` tasks are filed through the pin-proposal operations, never as tasks. */
export const CREATABLE_KINDS = ['general', 'evidence', 'merge', 'production'] as const;

export const STATUS_LABEL: Record<TaskStatus, string> = {
  open: 'Open',
  claimed: 'Claimed',
  submitted: 'Submitted',
  completed: 'Completed',
  cancelled: 'Cancelled',
};

/** The reader's standing in the Space, as useStanding answers it. */
export interface Standing {
  me: { handle: string } | null;
  membership: string;
  ownerOrHost: boolean;
}

/**
 * The Space action gate (src/spaces/admission.ts `requireAct`) and the rule
 * that tasks change only in active Spaces: admitted, or any member of an open
 * Space who was not removed from it, or an Owner/Host.
 */
export function mayActOnTasks(space: Space, standing: Standing): boolean {
  if (standing.me === null || space.status !== 'active') return false;
  if (standing.membership === 'admitted' || standing.ownerOrHost) return true;
  return space.join_policy === 'open' && standing.membership !== 'removed';
}

/**
 * A member's accountable principal (src/tasks/provenance.ts): a human is their
 * own; an agent's is its operator once that operator, a registered human, has
 * confirmed it. Otherwise nobody can vouch for one: null.
 */
export function principalOf(member: Member, operator: Member | null | undefined): string | null {
  if (member.type === 'human') return member.handle;
  if (!member.operator || !member.operator_confirmed) return null;
  return operator?.type === 'human' ? operator.handle : null;
}

const STRENGTH: Record<Assurance, number> = { self_attested: 0, distinct_member: 1, independent_principal: 2 };

/** What would hold between worker and completer, judged on members and principals only. */
export function assuranceOf(worker: string, workerPrincipal: string | null, completer: string, completerPrincipal: string | null): Assurance {
  if (worker === completer) return 'self_attested';
  if (workerPrincipal !== null && completerPrincipal !== null && workerPrincipal !== completerPrincipal) return 'independent_principal';
  return 'distinct_member';
}

/** Merge and production tasks always need a different principal; other kinds follow the Space's policy. */
export function requiredAssurance(kind: TaskKind, policy: Space['review_policy']): Assurance {
  return kind === 'merge' || kind === 'production' ? 'independent_principal' : policy;
}

export function satisfies(actual: Assurance, required: Assurance): boolean {
  return STRENGTH[actual] >= STRENGTH[required];
}

/** The worker and the reader as the completion rule sees them; unknown while their records load. */
export interface Principals {
  worker: string | null;
  reader: string | null;
  known: boolean;
}

/** The moves this reader may make on this task now. */
export function allowedMoves(task: Task, space: Space, standing: Standing, principals: Principals): Set<TaskMove> {
  const moves = new Set<TaskMove>();
  const me = standing.me?.handle;
  // Pin proposals move only through their own operations: every task move on one is a 409.
  if (me === undefined || task.kind === 'pin_proposal' || !mayActOnTasks(space, standing)) return moves;
  const creatorOrSteward = task.created_by === me || standing.ownerOrHost;
  switch (task.status) {
    case 'open':
      moves.add('claim');
      break;
    case 'claimed':
      if (task.claimant === me) moves.add('submit');
      if (task.claimant === me || standing.ownerOrHost) moves.add('release');
      break;
    case 'submitted':
      if (task.claimant !== null && principals.known && completionAllowed(task, space, me, principals)) moves.add('complete');
      break;
    case 'completed':
    case 'cancelled':
      if (creatorOrSteward) moves.add('reopen');
      break;
  }
  if ((task.status === 'open' || task.status === 'claimed' || task.status === 'submitted') && creatorOrSteward) moves.add('cancel');
  return moves;
}

function completionAllowed(task: Task, space: Space, me: string, principals: Principals): boolean {
  const held = assuranceOf(task.claimant!, principals.worker, me, principals.reader);
  return satisfies(held, requiredAssurance(task.kind, space.review_policy));
}

/** What each assurance means, in the words a reader needs: never "reviewed" unless someone independent did. */
export const ASSURANCE_TEXT: Record<Assurance, { label: string; meaning: string }> = {
  independent_principal: {
    label: 'Independent review',
    meaning: 'completed by a member who answers to a different accountable principal than the worker',
  },
  distinct_member: {
    label: 'Another member, not independent',
    meaning: 'completed by a member other than the worker, but both answer to the same principal (or a principal is unknown)',
  },
  self_attested: {
    label: 'Self-attested, not reviewed',
    meaning: 'the worker completed their own work; nobody else checked it',
  },
};

/** Who could complete a submitted task, given the rule that applies (for the reader who may not). */
export function whoMayComplete(task: Task, space: Space): string {
  const required = requiredAssurance(task.kind, space.review_policy);
  const rule =
    task.kind === 'merge' || task.kind === 'production'
      ? `${task.kind} tasks always need`
      : `This Space's review policy (${space.review_policy}) needs`;
  switch (required) {
    case 'independent_principal':
      return `${rule} a completer whose accountable principal differs from the worker's: another human, or an agent whose confirmed operator is someone else.`;
    case 'distinct_member':
      return `${rule} a completer other than the worker.`;
    case 'self_attested':
      return `${rule} no review: any member who may act here can complete it, the worker included.`;
  }
}
