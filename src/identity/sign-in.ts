import { getMember } from '../members/service.js';
import type { MemberRecord } from '../members/records.js';
import { newHumanCode, normaliseHumanCode, hashSecret, secretsEqual } from '../shared/secrets.js';
import { newId } from '../shared/ids.js';
import { AtriumError } from '../shared/errors.js';
import { serialiseOn } from '../shared/rate-limit.js';
import type { Tx } from '../storage/database.js';
import { startSession, type StartedSession } from './sessions.js';

/** protocol: Sessions. A code lives 10 minutes, is single use, and is burned after 5 wrong tries. */
export const SIGN_IN_CODE_LIFETIME_MS = 10 * 60 * 1000;
export const SIGN_IN_CODE_MAX_WRONG_TRIES = 5;
/**
 * At most this many codes asked for per address per window, so nobody can
 * flood an inbox (or multiply guessing budgets) through `POST /v0/sign-in/email`.
 * Beyond it the request is refused with 429 and when the next may be made. The
 * asks are counted for every address alike, with an account or without, so the
 * refusal says nothing about whether an address has an account.
 */
export const SIGN_IN_CODES_PER_WINDOW = 5;
export const SIGN_IN_CODE_WINDOW_MS = 15 * 60 * 1000;

/** Sign-in addresses are compared case-insensitively, as members.email is stored lower-cased. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * The digest salted with the row id, so equal codes never share a digest. A code
 * has only about 35 bits, so the digest does not resist an offline search; what
 * protects a code is its 10-minute life and the 5-try limit.
 */
function codeDigest(id: string, code: string): string {
  return hashSecret(`${id}:${normaliseHumanCode(code)}`);
}

export interface IssuedCode {
  email: string;
  handle: string;
  /** The code itself: goes into the mail only, never stored. */
  code: string;
}

/**
 * Issues a one-time code for the human with this address, replacing any code
 * not yet used. Unknown addresses, agents and suspended members get nothing;
 * the caller answers the same either way (protocol: Sessions; no account
 * enumeration). An address asked for too often is refused (429), whoever it is.
 */
export async function issueSignInCode(tx: Tx, rawEmail: string, digest: (key: string) => string): Promise<IssuedCode | undefined> {
  const email = normaliseEmail(rawEmail);
  await countCodeAsked(tx, digest(`sign-in:${email}`));
  const member = await tx.db
    .selectFrom('members')
    .select(['handle', 'status'])
    .where('email', '=', email)
    .where('type', '=', 'human')
    .executeTakeFirst();
  if (!member || member.status !== 'active') return undefined;
  const now = tx.now.toISOString();
  await tx.db.updateTable('sign_in_codes').set({ spent_ts: now }).where('email', '=', email).where('spent_ts', 'is', null).execute();
  const id = newId('code');
  const code = newHumanCode();
  await tx.db
    .insertInto('sign_in_codes')
    .values({
      id,
      email,
      code_hash: codeDigest(id, code),
      created_ts: now,
      expires_ts: new Date(tx.now.getTime() + SIGN_IN_CODE_LIFETIME_MS).toISOString(),
      failed_attempts: 0,
      spent_ts: null,
    })
    .execute();
  return { email, handle: member.handle, code };
}

/**
 * Counts one ask for a code for the address whose keyed digest is `key`, or
 * refuses it with 429 and `Retry-After`: the seconds until the oldest ask in
 * the window leaves it, when the next ask will be taken. Addresses are kept
 * only as keyed digests, so the asks for addresses with no account are not a
 * list of them.
 */
async function countCodeAsked(tx: Tx, key: string): Promise<void> {
  // Concurrent asks for one address must not all count the same rows and all pass.
  await serialiseOn(tx, `rate_limit:${SIGN_IN_CODE_BUCKET}:${key}`);
  const windowStart = new Date(tx.now.getTime() - SIGN_IN_CODE_WINDOW_MS).toISOString();
  const recent = await tx.db
    .selectFrom('rate_limit_hits')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('hit_ts').as('oldest')])
    .where('bucket', '=', SIGN_IN_CODE_BUCKET)
    .where('key_hash', '=', key)
    .where('hit_ts', '>', windowStart)
    .executeTakeFirstOrThrow();
  if (Number(recent.n) >= SIGN_IN_CODES_PER_WINDOW && recent.oldest !== null) {
    const nextAt = new Date(Date.parse(recent.oldest) + SIGN_IN_CODE_WINDOW_MS);
    const seconds = Math.max(1, Math.ceil((nextAt.getTime() - tx.now.getTime()) / 1000));
    throw new AtriumError(
      'rate_limited',
      `${SIGN_IN_CODES_PER_WINDOW} sign-in codes were asked for this address in the last ${SIGN_IN_CODE_WINDOW_MS / 60_000} minutes: ` +
        `no code was sent; ask again after ${nextAt.toISOString()} (in ${seconds} s), or use a code already sent`,
      { 'retry-after': String(seconds) },
    );
  }
  await tx.db.insertInto('rate_limit_hits').values({ bucket: SIGN_IN_CODE_BUCKET, key_hash: key, hit_ts: tx.now.toISOString() }).execute();
}

const SIGN_IN_CODE_BUCKET = 'sign_in_code';

export type VerifyOutcome =
  | { kind: 'signed_in'; member: MemberRecord; session: StartedSession }
  /** Wrong, used, burned, replaced or expired: the caller cannot tell which. */
  | { kind: 'refused' }
  | { kind: 'suspended'; handle: string };

/**
 * Checks a code and, if it is right, spends it, marks the address verified and
 * starts a session. Returns rather than throws on a wrong code: the counted
 * try must commit, and a thrown error would roll it back.
 */
export async function verifySignInCode(tx: Tx, rawEmail: string, code: string): Promise<VerifyOutcome> {
  const email = normaliseEmail(rawEmail);
  const now = tx.now.toISOString();
  const row = await tx.db
    .selectFrom('sign_in_codes')
    .selectAll()
    .where('email', '=', email)
    .where('spent_ts', 'is', null)
    .orderBy('created_ts', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
  if (!row || row.expires_ts <= now) return { kind: 'refused' };

  if (!secretsEqual(row.code_hash, codeDigest(row.id, code))) {
    await tx.db
      .updateTable('sign_in_codes')
      .set((eb) => ({ failed_attempts: eb('failed_attempts', '+', 1) }))
      .where('id', '=', row.id)
      .where('spent_ts', 'is', null)
      .execute();
    await tx.db
      .updateTable('sign_in_codes')
      .set({ spent_ts: now })
      .where('id', '=', row.id)
      .where('spent_ts', 'is', null)
      .where('failed_attempts', '>=', SIGN_IN_CODE_MAX_WRONG_TRIES)
      .execute();
    return { kind: 'refused' };
  }

  // Conditional spend: of two racing uses of one code, only one finds it unspent.
  const spent = await tx.db
    .updateTable('sign_in_codes')
    .set({ spent_ts: now })
    .where('id', '=', row.id)
    .where('spent_ts', 'is', null)
    .executeTakeFirst();
  if (Number(spent.numUpdatedRows) !== 1) return { kind: 'refused' };

  const member = await tx.db
    .selectFrom('members')
    .select(['handle', 'status'])
    .where('email', '=', email)
    .where('type', '=', 'human')
    .executeTakeFirst();
  if (!member) return { kind: 'refused' };
  // protocol: Member status. A suspended member's sessions are refused, so none is started.
  if (member.status !== 'active') return { kind: 'suspended', handle: member.handle };

  await tx.db.updateTable('members').set({ email_verified: 1, updated_ts: now }).where('handle', '=', member.handle).execute();
  const session = await startSession(tx, member.handle);
  return { kind: 'signed_in', member: await getMember(tx.db, member.handle), session };
}
