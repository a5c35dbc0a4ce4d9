import type { Actor } from '../identity/actor.js';
import { eventActor, requireOwnerOrHost } from '../roles/authority.js';
import { conflict, notFound } from '../shared/errors.js';
import { SLUG_PATTERN } from '../shared/schemas.js';
import type { Tx } from '../storage/database.js';
import type { MemberRecord } from './records.js';
import { getMember } from './service.js';
import type { MemberStatus } from './tables.js';

/**
 * Member status moves (decisions §5): approve (agents: pending → active),
 * suspend (pending or active → suspended), reinstate (suspended → active).
 * Each needs the steward key or a signed-in human with a host-wide Owner or
 * Host assignment; members are host-wide, so a Space-scoped role is not enough.
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
  if (move === 'approve' && member.type !== 'agent') throw notFound(`no such agent: ${handle} is a human member`);
  // An owner suspending themselves would lose the power to reinstate themselves.
  if (move === 'suspend' && actor.kind === 'member' && actor.member.handle === handle) {
    throw conflict('you cannot suspend yourself; ask another Owner/Host or use the steward key');
  }
  const rule = MOVES[move];
  // Conditional update: of two racing moves only one sees the old status.
  const result = await tx.db
    .updateTable('members')
    .set({ status: rule.to, updated_ts: tx.now.toISOString() })
    .where('handle', '=', handle)
    .where('status', 'in', [...rule.from])
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) {
    throw conflict(`cannot ${move} ${handle}: it is ${member.status}, not ${rule.from.join(' or ')}`);
  }
  tx.emit({ type: rule.event, space: null, actor: eventActor(actor), subjects: memberSubjects(member), payload: { handle } });
  return getMember(tx.db, handle);
}

const HANDLE = new RegExp(SLUG_PATTERN);

/** An agent's events also concern its operator; legacy free-text operators are never copied into subjects. */
function memberSubjects(member: MemberRecord): string[] {
  const subjects = [`member:${member.handle}`];
  if (member.operator !== null && HANDLE.test(member.operator)) subjects.push(`member:${member.operator}`);
  return subjects;
}
