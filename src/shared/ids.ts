import { randomBytes } from 'node:crypto';
import { pattern } from './schemas.js';

/**
 * Opaque record ids: a short type prefix (so a stray id in a log says what it
 * is) and 128 random bits in base32 (lowercase, no padding).
 */
export function newId(prefix: string): string {
  return `${prefix}_${base32(randomBytes(16))}`;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

/** The pattern of ids `newId(prefix)` makes: what a path parameter naming one must match. */
export function idPattern(prefix: string): string {
  return pattern(`^${prefix}_[a-z2-7]{26}$`, `an id like ${prefix}_ followed by 26 letters and digits`);
}

export function base32(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}
