import { invalid } from '../shared/errors.js';

/**
 * Characters that let two display names look identical while differing, or
 * reorder the text shown around them: control characters (Cc), format
 * characters (Cf: bidi embeddings, overrides and isolates, zero-width spaces
 * and joiners, the word joiner, the byte-order mark, tag characters), line and
 * paragraph separators, lone surrogates, and the letters that render as
 * nothing (Hangul fillers, the blank Braille pattern).
 */
const REFUSED = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\u115F\u1160\u3164\uFFA0\u2800]/u;

/**
 * The one rule for every display name a member is given (docs/members-and-roles.md):
 * NFC-normalised, surrounding whitespace trimmed, inner runs of whitespace
 * (no-break and other wide spaces included) shown as one ordinary space, and
 * refused with 422 when it contains a character from REFUSED or is blank.
 */
export function normaliseDisplayName(raw: string): string {
  const name = raw.normalize('NFC').trim();
  const refused = REFUSED.exec(name);
  if (refused) {
    const code = refused[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    throw invalid('validation_failed', `display_name must not contain control, invisible or text-direction characters (found U+${code})`);
  }
  if (name === '') throw invalid('validation_failed', 'display_name must not be blank');
  return name.replace(/\s+/gu, ' ');
}
