import { newId } from '../shared/ids.js';
import { hashSecret, newSecret } from '../shared/secrets.js';
import type { Tx } from '../storage/database.js';
import type { MemberKeyOrigin } from './tables.js';
import { MEMBER_KEY_PREFIX } from './tokens.js';

export interface MintedKey {
  id: string;
  /** The key itself: returned to the caller exactly once, never stored. */
  key: string;
  key_prefix: string;
}

/** Mints an API credential (`sk_atrium_` + 256 random bits); only its digest is stored. */
export async function mintMemberKey(
  tx: Tx,
  handle: string,
  origin: MemberKeyOrigin,
  clientName: string | null = null,
): Promise<MintedKey> {
  const key = newSecret(MEMBER_KEY_PREFIX);
  const id = newId('cred');
  const keyPrefix = key.slice(0, MEMBER_KEY_PREFIX.length + 6);
  await tx.db
    .insertInto('member_keys')
    .values({
      id,
      member_handle: handle,
      origin,
      key_hash: hashSecret(key),
      key_prefix: keyPrefix,
      client_name: clientName,
      created_ts: tx.now.toISOString(),
      last_used_ts: null,
      revoked_ts: null,
    })
    .execute();
  return { id, key, key_prefix: keyPrefix };
}
