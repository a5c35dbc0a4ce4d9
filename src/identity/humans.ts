import { normaliseDisplayName } from '../members/display-name.js';
import type { MemberRecord } from '../members/records.js';
import { createHuman, type NewHuman } from '../members/service.js';
import { eventActor, requireHostWideOwner } from '../roles/authority.js';
import { conflict } from '../shared/errors.js';
import type { Tx } from '../storage/database.js';
import type { Actor } from './actor.js';
import { issueSignInCode, normaliseEmail, type IssuedCode } from './sign-in.js';

/**
 * `POST /v0/humans` (protocol: Member): the steward key or a signed-in host-wide
 * owner adds a human. `host` is not enough: who has an account is the owner's call.
 */
export async function addHuman(tx: Tx, actor: Actor, input: NewHuman): Promise<MemberRecord> {
  await requireHostWideOwner(tx.db, actor);
  return createHuman(tx, eventActor(actor), input);
}

export interface SignUpResult extends IssuedCode {
  /** The address already belonged to a member; the code signs in to that account. */
  existingAccount: boolean;
}

/**
 * `POST /v0/sign-up` (protocol: Member, when open sign-up is on). Handles are public,
 * so a taken handle is a plain 409. A taken address is not revealed: its owner
 * is mailed a code for the account they already have, and the caller gets the
 * same answer as for a new account (docs/decisions-local.md).
 */
export async function signUp(tx: Tx, input: NewHuman, digest: (key: string) => string): Promise<SignUpResult | undefined> {
  // Checked before the address is looked up, so a refused name answers alike for new and taken addresses.
  if (input.display_name !== undefined) normaliseDisplayName(input.display_name);
  const email = normaliseEmail(input.email);
  const taken = await tx.db.selectFrom('members').select('handle').where('handle', '=', input.handle).executeTakeFirst();
  if (taken) throw conflict('handle_taken', `handle ${input.handle} is taken`);
  const owner = await tx.db.selectFrom('members').select('handle').where('email', '=', email).executeTakeFirst();
  if (owner) {
    const issued = await issueSignInCode(tx, email, digest);
    return issued && { ...issued, existingAccount: true };
  }
  // The new member registers itself, so it is the event's actor.
  await createHuman(tx, { handle: input.handle }, { ...input, email });
  const issued = await issueSignInCode(tx, email, digest);
  return issued && { ...issued, existingAccount: false };
}
