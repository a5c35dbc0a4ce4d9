import type { Kysely } from 'kysely';
import type { EventActor } from '../events/types.js';
import { conflict, notFound } from '../shared/errors.js';
import type { Tx } from '../storage/database.js';
import type { DatabaseSchema } from '../storage/schema.js';
import { isUniqueViolation } from '../storage/unique-violation.js';
import { normaliseDisplayName } from './display-name.js';
import { toMemberRecord, type MemberRecord } from './records.js';
import type { MemberStatus, MemberType } from './tables.js';

export async function findMember(db: Kysely<DatabaseSchema>, handle: string): Promise<MemberRecord | undefined> {
  const row = await db.selectFrom('members').selectAll().where('handle', '=', handle).executeTakeFirst();
  return row ? toMemberRecord(row) : undefined;
}

export async function getMember(db: Kysely<DatabaseSchema>, handle: string): Promise<MemberRecord> {
  const member = await findMember(db, handle);
  if (!member) throw notFound('member_not_found', `no such member: ${handle}`);
  return member;
}

export interface NewHuman {
  handle: string;
  email: string;
  display_name?: string;
}

/**
 * Creates an active human whose address is not yet verified (protocol: Member):
 * they get a session only by proving the address with a sign-in code.
 */
export async function createHuman(tx: Tx, actor: EventActor, input: NewHuman): Promise<MemberRecord> {
  const displayName = normaliseDisplayName(input.display_name ?? input.handle);
  const email = input.email.trim().toLowerCase();
  const clash = await tx.db
    .selectFrom('members')
    .select(['handle', 'email'])
    .where((eb) => eb.or([eb('handle', '=', input.handle), eb('email', '=', email)]))
    .executeTakeFirst();
  if (clash) throw clash.handle === input.handle ? conflict('handle_taken', `handle ${input.handle} is taken`) : conflict('email_taken', 'that e-mail address is taken');
  await insertMember(tx, {
    handle: input.handle,
    type: 'human',
    display_name: displayName,
    operator: null,
    capabilities: [],
    status: 'active',
    email,
  });
  tx.emit({
    type: 'member_registered',
    space: null,
    actor,
    subjects: [`member:${input.handle}`],
    payload: { handle: input.handle, type: 'human', operator: null, status: 'active' },
  });
  return getMember(tx.db, input.handle);
}

export interface NewMemberRow {
  handle: string;
  type: MemberType;
  display_name: string;
  operator: string | null;
  capabilities: string[];
  status: MemberStatus;
  email: string | null;
}

/**
 * Inserts a member. Handles are never reused (protocol: Member) and sign-in
 * addresses are unique: the database's unique constraints settle concurrent
 * registrations, and the loser gets a 409 rather than a 500.
 */
export async function insertMember(tx: Tx, row: NewMemberRow): Promise<void> {
  const ts = tx.now.toISOString();
  try {
    await tx.db
      .insertInto('members')
      .values({
        ...row,
        capabilities: JSON.stringify(row.capabilities),
        email_verified: 0,
        access_version: 0,
        // A new agent is unconfirmed until its operator vouches for it (agents.ts).
        operator_confirmed: 0,
        created_ts: ts,
        updated_ts: ts,
      })
      .execute();
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict('handle_taken', `handle ${row.handle}${row.email ? ' or that e-mail address' : ''} is taken`);
    throw err;
  }
}
