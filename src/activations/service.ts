import type { Static } from '@sinclair/typebox';
import type { Kysely, Selectable } from 'kysely';
import type { Actor } from '../identity/actor.js';
import { keyPrefixOf, recordMemberKey } from '../identity/member-keys.js';
import { GENERIC_CLIENT_NAME } from '../identity/api-credentials.js';
import { toMemberRecord } from '../members/records.js';
import { memberView, type MemberView } from '../members/schemas.js';
import { requireActiveHuman } from '../roles/authority.js';
import { conflict, gone, notFound, unauthenticated } from '../shared/errors.js';
import { hashSecret, newHumanCode, newSecret, normaliseHumanCode, secretsEqual } from '../shared/secrets.js';
import { consumeRateLimit, serialiseOn } from '../shared/rate-limit.js';
import type { Tx } from '../storage/database.js';
import type { DatabaseSchema } from '../storage/schema.js';
import { isUniqueViolation } from '../storage/unique-violation.js';
import { deriveActivationKey, newKeySalt } from './key-derivation.js';
import type { ActivationSummarySchema, CreatedActivationSchema, PollResultSchema } from './schemas.js';
import type { ActivationStatus, ClientActivationTable } from './tables.js';

/** An activation lives 15 minutes (protocol: Client activation). */
export const ACTIVATION_LIFETIME_MS = 15 * 60 * 1000;
/**
 * How often a client should poll unless ATRIUM_ACTIVATION_POLL_SECONDS says
 * otherwise; polling faster is answered with a longer wait.
 */
export const POLL_INTERVAL_SECONDS = 5;
/** The window of the per-address creation limit. */
export const CREATION_WINDOW_MS = 15 * 60 * 1000;

/** What the approval page shows of an activation, as its schema declares it. */
export type ActivationSummary = Static<typeof ActivationSummarySchema>;

/** The activation with its one-time poll secret, as its schema declares it. */
export type CreatedActivation = Static<typeof CreatedActivationSchema>;

/** `member` is named by reference, which has no static type of its own: it is a `MemberView`. */
export type PollResult = Omit<Static<typeof PollResultSchema>, 'member'> & { member?: MemberView };

type Row = Selectable<ClientActivationTable>;

function statusAt(row: Row, now: Date): ActivationStatus {
  if (row.status === 'pending' && row.expires_ts <= now.toISOString()) return 'expired';
  return row.status;
}

function summary(row: Row, now: Date, baseUrl: string): ActivationSummary {
  return {
    code: row.code,
    activation_url: `${baseUrl}/activate/${row.code}`,
    client_name: row.client_name,
    status: statusAt(row, now),
    member_handle: row.member_handle,
    expires_ts: row.expires_ts,
  };
}

async function findRow(db: Kysely<DatabaseSchema>, code: string): Promise<Row> {
  // Codes are typed by people: case and dashes do not matter.
  const row = await db.selectFrom('client_activations').selectAll().where('code', '=', normaliseHumanCode(code)).executeTakeFirst();
  // Sign-in and activation codes share one shape; a mailed sign-in code typed here is the likely mistake.
  if (!row) throw notFound('activation_not_found', `no such activation: ${code} (a sign-in code from an e-mail is entered on the sign-in page, not here)`);
  return row;
}

export async function createActivation(
  tx: Tx,
  input: { client_name?: string; clientDigest: string; rateLimit: number; baseUrl: string; pollIntervalSeconds?: number },
): Promise<CreatedActivation> {
  await consumeRateLimit(tx, {
    bucket: 'client_activation',
    keyDigest: input.clientDigest,
    limit: input.rateLimit,
    windowMs: CREATION_WINDOW_MS,
    detail: 'too many activation requests from this address; try again later',
  });
  const pollSecret = newSecret('');
  const expires = new Date(tx.now.getTime() + ACTIVATION_LIFETIME_MS).toISOString();
  const salt = newKeySalt();
  const key = deriveActivationKey(pollSecret, salt);
  for (let attempt = 0; ; attempt++) {
    const row: Row = {
      code: newHumanCode(),
      client_name: input.client_name ?? GENERIC_CLIENT_NAME,
      status: 'pending',
      poll_secret_hash: hashSecret(pollSecret),
      key_salt: salt,
      key_hash: hashSecret(key),
      key_prefix: keyPrefixOf(key),
      // Only a keyed digest: the limiter needs no raw address at rest, and neither do we.
      client_address: input.clientDigest,
      member_handle: null,
      credential_id: null,
      created_ts: tx.now.toISOString(),
      expires_ts: expires,
      approved_ts: null,
      consumed_ts: null,
      last_polled_ts: null,
      poll_interval_seconds: null,
    };
    try {
      await tx.db.insertInto('client_activations').values(row).execute();
    } catch (err) {
      // ~35 bits of code space: a collision is rare, and simply draws again. On
      // PostgreSQL the failed insert aborts the transaction, so give up there.
      if (isUniqueViolation(err) && attempt < 3 && tx.dialect === 'sqlite') continue;
      throw err;
    }
    return {
      ...summary(row, tx.now, input.baseUrl),
      poll_secret: pollSecret,
      poll_url: `${input.baseUrl}/v0/client-activations/${row.code}/poll`,
      poll_interval_seconds: input.pollIntervalSeconds ?? POLL_INTERVAL_SECONDS,
    };
  }
}

export async function getActivation(db: Kysely<DatabaseSchema>, code: string, now: Date, baseUrl: string): Promise<ActivationSummary> {
  return summary(await findRow(db, code), now, baseUrl);
}

/**
 * An active human approves: the activation moves to `approved` and a separately
 * revocable API credential is recorded for that human (event
 * `client_credential_created`, never carrying the key).
 */
export async function approveActivation(tx: Tx, actor: Actor, code: string, baseUrl: string): Promise<ActivationSummary> {
  const human = requireActiveHuman(actor).member;
  const row = await findRow(tx.db, code);
  const status = statusAt(row, tx.now);
  if (status === 'expired') throw gone('activation_expired', `activation ${row.code} has expired`);
  if (status !== 'pending') throw conflict('activation_handled', `activation ${row.code} was already handled (${status})`);
  // The credential comes into existence now from the digest stored at creation;
  // the key itself is derived only by the poll that presents the secret.
  const credential = await recordMemberKey(tx, human.handle, 'client_activation', row.client_name, {
    keyHash: row.key_hash,
    keyPrefix: row.key_prefix,
  });
  const updated = await tx.db
    .updateTable('client_activations')
    .set({ status: 'approved', member_handle: human.handle, credential_id: credential.id, approved_ts: tx.now.toISOString() })
    .where('code', '=', row.code)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) throw conflict('activation_handled', `activation ${row.code} was already handled`);
  tx.emit({
    type: 'client_credential_created',
    space: null,
    actor: { handle: human.handle },
    subjects: [`member:${human.handle}`],
    payload: { id: credential.id, member: human.handle, client_name: row.client_name, activation: row.code },
  });
  return summary({ ...row, status: 'approved', member_handle: human.handle }, tx.now, baseUrl);
}

/** RFC 8628 §3.5 `slow_down`: each poll that comes too soon adds this much to the activation's interval. */
export const SLOW_DOWN_SECONDS = 5;

/**
 * The client polls with its secret. Pending and expired activations say so;
 * the first poll after approval moves `approved` → `consumed` with a
 * conditional update (of racing polls exactly one wins) and returns the member
 * and the key, once. A poll sooner than the activation's interval after the
 * previous one raises that interval by 5 seconds for good, as the device flow's
 * `slow_down` does (RFC 8628 §3.5), and `retry_after_seconds` says the new one.
 */
export async function pollActivation(
  tx: Tx,
  code: string,
  pollSecret: string,
  baseUrl: string,
  defaultInterval: number = POLL_INTERVAL_SECONDS,
): Promise<PollResult> {
  // Two polls at once must not both read the old last poll and both pass as on time.
  await serialiseOn(tx, `activation_poll:${normaliseHumanCode(code)}`);
  const row = await findRow(tx.db, code);
  if (!secretsEqual(hashSecret(pollSecret), row.poll_secret_hash)) throw unauthenticated('poll_secret_invalid', 'invalid poll secret');
  if (row.status === 'consumed') throw conflict('activation_delivered', `the credential of activation ${row.code} was already delivered`);
  const current = row.poll_interval_seconds ?? defaultInterval;
  const tooSoon = row.last_polled_ts !== null && tx.now.getTime() - Date.parse(row.last_polled_ts) < current * 1000;
  const interval = tooSoon ? current + SLOW_DOWN_SECONDS : current;
  await tx.db
    .updateTable('client_activations')
    .set({ last_polled_ts: tx.now.toISOString(), ...(tooSoon ? { poll_interval_seconds: interval } : {}) })
    .where('code', '=', row.code)
    .execute();
  const status = statusAt(row, tx.now);
  if (status === 'pending' || status === 'expired') return { status, retry_after_seconds: interval };

  const delivered = await tx.db
    .updateTable('client_activations')
    .set({ status: 'consumed', consumed_ts: tx.now.toISOString() })
    .where('code', '=', row.code)
    .where('status', '=', 'approved')
    .executeTakeFirst();
  if (Number(delivered.numUpdatedRows) === 0) throw conflict('activation_delivered', `the credential of activation ${row.code} was already delivered`);
  const member = await tx.db.selectFrom('members').selectAll().where('handle', '=', row.member_handle!).executeTakeFirstOrThrow();
  return {
    status: 'approved',
    retry_after_seconds: interval,
    member: memberView(toMemberRecord(member), baseUrl, { private: true }),
    key: deriveActivationKey(pollSecret, row.key_salt),
  };
}
