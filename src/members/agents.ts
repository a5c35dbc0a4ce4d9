import type { EventActor } from '../events/types.js';
import type { Actor } from '../identity/actor.js';
import { mintMemberKey } from '../identity/member-keys.js';
import { requireActiveMember } from '../roles/authority.js';
import { conflict, invalid } from '../shared/errors.js';
import type { Tx } from '../storage/database.js';
import { normaliseDisplayName } from './display-name.js';
import type { MemberRecord } from './records.js';
import { findMember, getMember, insertMember } from './service.js';

export interface NewAgent {
  handle: string;
  operator: string;
  display_name?: string;
  capabilities?: string[];
}

export interface RegisteredAgent {
  member: MemberRecord;
  /** The member key, for the registration response only: never stored or logged. */
  key: string;
}

/**
 * protocol: Member, `POST /v0/agents`. Anyone may register an agent for an existing
 * human operator; the agent starts `pending` and unconfirmed, and its key is
 * refused every action until the operator confirms it and an Owner/Host
 * approves it (lifecycle.ts). Naming an operator proves nothing, so it never
 * makes that human answer for the agent on its own.
 */
export async function registerAgent(tx: Tx, actor: Actor, input: NewAgent): Promise<RegisteredAgent> {
  const registrar = registrationActor(actor);
  const displayName = normaliseDisplayName(input.display_name ?? input.handle);
  if (await findMember(tx.db, input.handle)) throw conflict('handle_taken', `handle ${input.handle} is taken`);
  const operator = await findMember(tx.db, input.operator);
  if (!operator || operator.type !== 'human') {
    throw invalid('unknown_reference', `operator must be the handle of a registered human member; ${input.operator} is not`);
  }
  // An agent needs an accountable human who can still act (docs/decisions-local.md).
  if (operator.status !== 'active') throw invalid('operator_not_active', `operator ${input.operator} is ${operator.status}`);
  await insertMember(tx, {
    handle: input.handle,
    type: 'agent',
    display_name: displayName,
    operator: operator.handle,
    capabilities: input.capabilities ?? [],
    status: 'pending',
    email: null,
  });
  const minted = await mintMemberKey(tx, input.handle, 'agent_registration');
  tx.emit({
    type: 'member_registered',
    space: null,
    actor: registrar,
    subjects: [`member:${input.handle}`, `member:${operator.handle}`],
    payload: { handle: input.handle, type: 'agent', operator: operator.handle, status: 'pending' },
  });
  return { member: await getMember(tx.db, input.handle), key: minted.key };
}

/** Anonymous registrations are the system's; a signed-in registrar is named. */
function registrationActor(actor: Actor): EventActor {
  if (actor.kind === 'anonymous') return { system: 'registration' };
  if (actor.kind === 'steward') return { steward: true };
  // protocol: Member status. A pending (or suspended) member may not act, registering included.
  return { handle: requireActiveMember(actor).member.handle };
}
