import { createHmac, randomBytes } from 'node:crypto';
import { MEMBER_KEY_PREFIX } from '../identity/tokens.js';

/**
 * The API key an approved activation delivers is derived, not stored:
 * key = `sk_atrium_` + base64url(HMAC-SHA256(poll_secret, salt)).
 * Creation, which briefly knows the secret, stores only the key's digest;
 * approval turns that digest into a credential (it exists, is listed and is
 * revocable from that moment, protocol: Client activation status); the poll,
 * which presents the secret again, re-derives the key and hands it over once.
 * The database never holds the key or the secret, and neither the salt nor the
 * secret alone can produce it.
 */
export function newKeySalt(): string {
  return randomBytes(32).toString('base64url');
}

export function deriveActivationKey(pollSecret: string, salt: string): string {
  return MEMBER_KEY_PREFIX + createHmac('sha256', pollSecret).update(salt, 'utf8').digest('base64url');
}
