import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

/**
 * Secrets (member keys, session tokens, poll secrets, sign-in codes) are stored
 * only as SHA-256 digests. Keys carry at least 256 random bits, so a fast hash is
 * enough: there is nothing to brute-force, unlike a password. Lookups go by
 * digest and the final comparison is constant-time.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Constant-time equality of two secrets of any length (compares their digests). */
export function secretsEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db);
}

/** `prefix` followed by 256 bits of randomness in base64url (43 characters). */
export function newSecret(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

/**
 * Human-typed codes (sign-in codes, activation codes): `XXXX-XXXX` from an
 * alphabet without vowels or look-alikes (no 0/O, 1/I/L, 5/S, 2/Z, U/V), so a
 * code reads unambiguously and never spells a word. 21 symbols over 8 places
 * is about 35 bits; codes are short-lived and allow only a few wrong tries.
 */
const CODE_ALPHABET = 'BCDFGHJKMNPQRTWXY3467';

export function newHumanCode(groups = 2, groupLength = 4): string {
  const parts: string[] = [];
  for (let g = 0; g < groups; g++) {
    let part = '';
    for (let i = 0; i < groupLength; i++) part += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
    parts.push(part);
  }
  return parts.join('-');
}

/** Normalises what a human typed: case, spaces and dashes do not matter. */
export function normaliseHumanCode(input: string): string {
  const compact = input.toUpperCase().replace(/[\s-]/g, '');
  return compact.replace(/(.{4})(?=.)/g, '$1-');
}
