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
  const recorded = await recordMemberKey(tx, handle, origin, clientName, { keyHash: hashSecret(key), keyPrefix: keyPrefixOf(key) });
  return { ...recorded, key };
}

/** The first characters of a key, enough for a person to recognise it in a list. */
export function keyPrefixOf(key: string): string {
  return key.slice(0, MEMBER_KEY_PREFIX.length + 6);
}

/**
 * Records a credential from its digest alone. Client activations use this: the
 * key is derived and delivered later (activations/key-derivation.ts), so it is
 * never in our hands at the moment the credential comes into existence.
 */
export async function recordMemberKey(
  tx: Tx,
  handle: string,
  origin: MemberKeyOrigin,
  clientName: string | null,
  digest: { keyHash: string; keyPrefix: string },
): Promise<{ id: string; key_prefix: string }> {
  const id = newId('cred');
  const keyPrefix = digest.keyPrefix;
  await tx.db
    .insertInto('member_keys')
    .values({
      id,
      member_handle: handle,
      origin,
      key_hash: digest.keyHash,
      key_prefix: keyPrefix,
      client_name: clientName,
      created_ts: tx.now.toISOString(),
      last_used_ts: null,
      revoked_ts: null,
    })
    .execute();
  return { id, key_prefix: keyPrefix };
}
