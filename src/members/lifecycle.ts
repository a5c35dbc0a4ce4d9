import type { Actor } from '../identity/actor.js';
import { eventActor, holdsRole, isHostWideOwner, requireActiveMember, requireOwnerOrHost } from '../roles/authority.js';
import { conflict, forbidden, notFound } from '../shared/errors.js';
import { SLUG_PATTERN } from '../shared/schemas.js';
import type { Tx } from '../storage/database.js';
import type { MemberRecord } from './records.js';
import { getMember } from './service.js';
import type { MemberStatus } from './tables.js';

/**
 * Member status moves (docs/members-and-roles.md): approve (agents: pending →
 * active), suspend (pending or active → suspended), reinstate (suspended →
 * active). Each needs the steward key or a human with a host-wide Owner or Host
 * assignment using their own member credential; members are host-wide, so a
 * Space-scoped role is not enough.
 */
const MOVES = {
  approve: { from: ['pending'], to: 'active', event: 'member_approved' },
  suspend: { from: ['pending', 'active'], to: 'suspended', event: 'member_suspended' },
  reinstate: { from: ['suspended'], to: 'active', event: 'member_reinstated' },
} as const satisfies Record<string, { from: readonly MemberStatus[]; to: MemberStatus; event: string }>;

export type MemberMove = keyof typeof MOVES;

export async function moveMember(tx: Tx, actor: Actor, handle: string, move: MemberMove): Promise<MemberRecord> {
  await requireOwnerOrHost(tx.db, actor, { hostWideOnly: true });
  const member = await getMember(tx.db, handle);
  // The path is /v0/agents/{handle}/approve: humans are never pending, so there is no human to approve.
  if (move === 'approve' && member.type !== 'agent') throw notFound('agent_not_found', `no such agent: ${handle} is a human member`);
  // An owner suspending themselves would lose the power to reinstate themselves.
  if (move === 'suspend' && actor.kind === 'member' && actor.member.handle === handle) {
    throw conflict('self_action_refused', 'you cannot suspend yourself; ask another Owner/Host or use the steward key');
  }
  // A Host must not be able to lock out the Owners above them (or let back in one another Owner suspended).
  if (move !== 'approve' && (await holdsRole(tx.db, handle, ['owner'], 'anywhere')) && !(await isHostWideOwner(tx.db, actor))) {
    throw forbidden('owner_protected', `${handle} is an Owner: only a host-wide Owner or the steward key may ${move} an Owner`);
  }
  // An operator approving their own agent vouches for it in the same step; rolled back if the approval fails.
  if (move === 'approve' && isOperatorOf(actor, member)) await markConfirmed(tx, actor, member);

  const rule = MOVES[move];
  // Making an agent active also needs its operator's confirmation, so that nobody can
  // make an agent act for a human who never agreed to answer for it; reinstating a
  // suspended agent (pending ones included) must not be a way around approval.
  const needsConfirmation = rule.to === 'active' && member.type === 'agent';
  // Conditional update: of two racing moves only one sees the old status.
  let update = tx.db
    .updateTable('members')
    .set({ status: rule.to, updated_ts: tx.now.toISOString() })
    .where('handle', '=', handle)
    .where('status', 'in', [...rule.from]);
  if (needsConfirmation) update = update.where('operator_confirmed', '=', 1);
  const result = await update.executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) {
    const now = await getMember(tx.db, handle);
    if (needsConfirmation && (rule.from as readonly MemberStatus[]).includes(now.status) && !now.operator_confirmed) {
      throw conflict(
        'operator_not_confirmed',
        `cannot ${move} ${handle}: its operator ${now.operator ?? '(none)'} has not confirmed it; ` +
          `the operator confirms with POST /v0/agents/${handle}/confirm` +
          (move === 'approve' ? ' (or approves it themselves)' : ''),
      );
    }
    throw conflict('member_transition_invalid', `cannot ${move} ${handle}: it is ${now.status}, not ${rule.from.join(' or ')}`);
  }
  tx.emit({ type: rule.event, space: null, actor: eventActor(actor), subjects: memberSubjects(member), payload: { handle } });
  return getMember(tx.db, handle);
}

/**
 * `POST /v0/agents/{handle}/confirm`: the agent's named operator (their session
 * or member key) or the steward key vouches for the agent. Anyone else is
 * refused; confirming again changes nothing and emits nothing.
 */
export async function confirmAgent(tx: Tx, actor: Actor, handle: string): Promise<MemberRecord> {
  if (actor.kind !== 'steward') requireActiveMember(actor);
  const member = await getMember(tx.db, handle);
  if (member.type !== 'agent') throw notFound('agent_not_found', `no such agent: ${handle} is a human member`);
  if (actor.kind !== 'steward' && !isOperatorOf(actor, member)) {
    throw forbidden('not_operator', `only ${handle}'s operator${member.operator !== null ? ` (${member.operator})` : ''} or the steward key may confirm it`);
  }
  await markConfirmed(tx, actor, member);
  return getMember(tx.db, handle);
}

function isOperatorOf(actor: Actor, agent: MemberRecord): boolean {
  return actor.kind === 'member' && actor.member.type === 'human' && agent.operator === actor.member.handle;
}

/** Conditional update: of two racing confirmations only one emits the event. */
async function markConfirmed(tx: Tx, actor: Actor, agent: MemberRecord): Promise<void> {
  const result = await tx.db
    .updateTable('members')
    .set({ operator_confirmed: 1, updated_ts: tx.now.toISOString() })
    .where('handle', '=', agent.handle)
    .where('operator_confirmed', '=', 0)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return;
  tx.emit({
    type: 'agent_operator_confirmed',
    space: null,
    actor: eventActor(actor),
    subjects: memberSubjects(agent),
    payload: { handle: agent.handle, operator: agent.operator !== null && HANDLE.test(agent.operator) ? agent.operator : null },
  });
}

const HANDLE = new RegExp(SLUG_PATTERN);

/** An agent's events also concern its operator; legacy free-text operators are never copied into subjects. */
function memberSubjects(member: MemberRecord): string[] {
  const subjects = [`member:${member.handle}`];
  if (member.operator !== null && HANDLE.test(member.operator)) subjects.push(`member:${member.operator}`);
  return subjects;
}
