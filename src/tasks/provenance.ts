import type { Kysely } from 'kysely';
import type { MemberRecord } from '../members/records.js';
import { findMember } from '../members/service.js';
import type { ReviewPolicy } from '../spaces/tables.js';
import type { DatabaseSchema } from '../storage/schema.js';
import type { Assurance, TaskKind } from './tables.js';

/**
 * Completion provenance (protocol: Tasks; Space `review_policy`).
 * Every completion records who did the work, who completed it, their
 * accountable principals and which assurance actually held. The Space's policy
 * only decides whether a completion is allowed; it never changes what is
 * recorded, so a self-attested completion stays `self_attested`.
 */

export interface Provenance {
  worker: string;
  worker_principal: string | null;
  completer: string;
  completer_principal: string | null;
  assurance: Assurance;
  required_assurance: Assurance;
}

const STRENGTH: Record<Assurance, number> = { self_attested: 0, distinct_member: 1, independent_principal: 2 };

/**
 * A human is its own principal; an agent's is its operator (protocol: Tasks),
 * but only once that operator has confirmed the agent: anyone may name anyone as
 * an operator, and an unconfirmed name must not let an agent pass as another
 * human's independent review. An unconfirmed agent, or one whose operator is not
 * a registered human (legacy free text), has no principal we can vouch for:
 * null, which never counts as a different one.
 */
export async function principalOf(db: Kysely<DatabaseSchema>, member: MemberRecord): Promise<string | null> {
  if (member.type === 'human') return member.handle;
  if (member.operator === null || !member.operator_confirmed) return null;
  const operator = await findMember(db, member.operator);
  return operator?.type === 'human' ? operator.handle : null;
}

/** What held between worker and completer, judged on members and principals only. */
export function assuranceOf(worker: string, workerPrincipal: string | null, completer: string, completerPrincipal: string | null): Assurance {
  if (worker === completer) return 'self_attested';
  if (workerPrincipal !== null && completerPrincipal !== null && workerPrincipal !== completerPrincipal) return 'independent_principal';
  return 'distinct_member';
}

/**
 * The minimum a completion needs. Merge and production tasks always need a
 * different accountable principal, whatever the policy (protocol: Space
 * `review_policy`); the policy governs the other kinds.
 */
export function requiredAssurance(kind: TaskKind, policy: ReviewPolicy): Assurance {
  return kind === 'merge' || kind === 'production' ? 'independent_principal' : policy;
}

export function satisfies(actual: Assurance, required: Assurance): boolean {
  return STRENGTH[actual] >= STRENGTH[required];
}

/** The caller-facing reason a completion is refused: which rule, and why it did not hold. */
export function refusal(p: Provenance, task: { kind: TaskKind }, space: { slug: string; review_policy: ReviewPolicy }): string {
  const who = (handle: string, principal: string | null) =>
    principal === handle ? handle : `${handle} (accountable principal ${principal ?? 'unknown'})`;
  const pair = `${who(p.completer, p.completer_principal)} cannot complete work by ${who(p.worker, p.worker_principal)}`;
  const why =
    p.assurance === 'self_attested'
      ? 'the worker may not complete their own work'
      : p.worker_principal === null || p.completer_principal === null
        ? 'an agent whose operator has not confirmed it, or is not a registered human, has no principal that could differ'
        : 'both answer to the same accountable principal';
  const independent = 'another human, or an agent whose confirmed operator is someone else';
  if (task.kind === 'merge' || task.kind === 'production') {
    return (
      `${task.kind} tasks always need a completer whose accountable principal differs from the worker's: ${pair}; ${why}. ` +
      `Who could complete it: ${independent}. No review policy changes this for ${task.kind} tasks.`
    );
  }
  const [rule, could, weaker] =
    p.required_assurance === 'independent_principal'
      ? ["the completer's accountable principal must differ from the worker's", independent, 'distinct_member or self_attested']
      : ['a member other than the worker must complete it', 'any member other than the worker', 'self_attested'];
  // A lone owner whose own agent did the work is the common case here: say both ways forward.
  return (
    `Space ${space.slug} has review policy ${space.review_policy}, so ${rule}: ${pair}; ${why}. Who could complete it: ${could}. ` +
    `Or an Owner/Host of the Space changes its review policy (to ${weaker}) with a signed-in session: ` +
    `\`atrium spaces review-policy ${space.slug} POLICY --reason TEXT\` (after \`atrium sign-in\`), or POST /v0/spaces/${space.slug}/review-policy.`
  );
}
