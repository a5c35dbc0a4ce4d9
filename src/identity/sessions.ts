import { newId } from '../shared/ids.js';
import { hashSecret, newSecret } from '../shared/secrets.js';
import type { Tx } from '../storage/database.js';
import { SESSION_LIFETIME_MS, SESSION_TOKEN_PREFIX } from './tokens.js';

export interface StartedSession {
  token: string;
  expires: Date;
}

/** Starts a sign-in session for a human; only the token's digest is stored. */
export async function startSession(tx: Tx, handle: string): Promise<StartedSession> {
  const token = newSecret(SESSION_TOKEN_PREFIX);
  const expires = new Date(tx.now.getTime() + SESSION_LIFETIME_MS);
  await tx.db
    .insertInto('sessions')
    .values({
      id: newId('sess'),
      member_handle: handle,
      token_hash: hashSecret(token),
      created_ts: tx.now.toISOString(),
      expires_ts: expires.toISOString(),
      revoked_ts: null,
    })
    .execute();
  return { token, expires };
}

export async function revokeSession(tx: Tx, sessionId: string): Promise<void> {
  await tx.db.updateTable('sessions').set({ revoked_ts: tx.now.toISOString() }).where('id', '=', sessionId).where('revoked_ts', 'is', null).execute();
}
