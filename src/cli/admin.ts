import type { AppContext } from '../app-context.js';
import type { EventActor } from '../events/types.js';
import type { MemberRecord } from '../members/records.js';
import { createHuman, findMember } from '../members/service.js';
import { assignRole, listAssignments } from '../roles/service.js';
import { conflict, invalid } from '../shared/errors.js';
import { isMailbox } from '../shared/mailbox.js';
import { SLUG_PATTERN } from '../shared/schemas.js';

/** The admin CLI acts as the system, with direct database access instead of a credential. */
const ADMIN_CLI: EventActor = { system: 'admin_cli' };

export interface OwnerInput {
  handle: string;
  email: string;
  displayName?: string;
}

export interface OwnerOutcome {
  member: MemberRecord;
  /** True when the human did not exist and was created. */
  createdMember: boolean;
  /** True when a host-wide `owner` assignment was added (false: it was already held). */
  assignedOwner: boolean;
}

/**
 * `atrium admin create-owner`: bootstraps the first host-wide Owner without the
 * steward key (protocol: Owner, Host and maintainer). Idempotent: an existing human with the same
 * address only gains the owner role if missing. A handle held by an agent, or by
 * a human with a different address, is refused so a typo never grants ownership
 * to the wrong person.
 */
export async function ensureOwner(ctx: AppContext, input: OwnerInput): Promise<OwnerOutcome> {
  validate(input);
  const outcome = await ctx.db.transaction(async (tx) => {
    const existing = await findMember(tx.db, input.handle);
    let member: MemberRecord;
    if (existing) {
      if (existing.type !== 'human') throw conflict('handle_taken', `${input.handle} is an agent; agents never hold the owner role`);
      if (existing.email !== input.email.trim().toLowerCase()) {
        throw conflict('handle_taken', `${input.handle} exists with a different e-mail address; refusing to make it an owner`);
      }
      member = existing;
    } else {
      member = await createHuman(tx, ADMIN_CLI, {
        handle: input.handle,
        email: input.email,
        ...(input.displayName !== undefined ? { display_name: input.displayName } : {}),
      });
    }
    const held = await listAssignments(tx.db, { member: input.handle });
    const isOwner = held.some((a) => a.role === 'owner' && a.space === null);
    if (!isOwner) await assignRole(tx, ADMIN_CLI, { member: input.handle, role: 'owner', space: null });
    return { member, createdMember: !existing, assignedOwner: !isOwner };
  });
  ctx.log.info(
    { handle: input.handle, created_member: outcome.createdMember, assigned_owner: outcome.assignedOwner },
    'admin: ensured host-wide owner',
  );
  return outcome;
}

const HANDLE = new RegExp(SLUG_PATTERN);

/** The same limits the API applies (protocol: Member), since the CLI bypasses the HTTP validation. */
function validate(input: OwnerInput): void {
  if (input.handle.length < 3 || input.handle.length > 32 || !HANDLE.test(input.handle)) {
    throw invalid('validation_failed', 'handle must be 3-32 lowercase letters, digits and single hyphens');
  }
  if (!isMailbox(input.email.trim())) throw invalid('validation_failed', `not an e-mail address: ${input.email}`);
  if (input.displayName !== undefined && (input.displayName.length < 1 || input.displayName.length > 128)) {
    throw invalid('validation_failed', 'display name must be 1-128 characters');
  }
}

export async function createOwner(ctx: AppContext, input: OwnerInput): Promise<MemberRecord> {
  return (await ensureOwner(ctx, input)).member;
}
