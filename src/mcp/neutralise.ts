/**
 * What the text form of an MCP result does to every string before a model reads
 * it (docs/mcp-envelope.md). `structuredContent` never goes through here: it
 * keeps member-written text exactly as stored.
 */

/** The word every boundary marker carries; content may never spell it as-is. */
export const MARKER_WORD = 'ATRIUM-UNTRUSTED';
export const MARKER_OPEN = '\u27E6';
export const MARKER_CLOSE = '\u27E7';

/** `⟦ATRIUM-UNTRUSTED-<nonce>⟧`: opens one untrusted block. */
export function openMarker(nonce: string): string {
  return `${MARKER_OPEN}${MARKER_WORD}-${nonce}${MARKER_CLOSE}`;
}

/** `⟦/ATRIUM-UNTRUSTED-<nonce>⟧`: closes it. */
export function closeMarker(nonce: string): string {
  return `${MARKER_OPEN}/${MARKER_WORD}-${nonce}${MARKER_CLOSE}`;
}

/** `\u{200B}`: visible, unambiguous, and made only of ASCII that needs no further escaping. */
export function visibleEscape(codePoint: number): string {
  return `\\u{${codePoint.toString(16).toUpperCase().padStart(4, '0')}}`;
}

/**
 * Characters a reader cannot see but a model reads, or that reorder what a
 * human sees: controls (C0, DEL, C1), every format character (zero-width
 * space and joiners, bidi embeddings, overrides and isolates, word joiner and
 * invisible operators, BOM, Unicode tags, soft hyphen…), line and paragraph
 * separators, lone surrogates, and every other default-ignorable code point
 * (Hangul fillers, the combining grapheme joiner, variation selectors, the
 * whole tag block), which renders as nothing and can smuggle a payload after
 * any character. Also the marker brackets and their closest look-alikes, so
 * content can neither open nor close a block.
 */
const ESCAPED = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\u27E6\u27E7\u301A\u301B]/gu;
const ESCAPED_ONE = new RegExp(ESCAPED.source, 'u');

const KEPT_CONTROLS = new Set(['\n', '\t']);
const PRESENTATION_SELECTORS = new Set(['\uFE0E', '\uFE0F']);

/**
 * VS15/VS16 choose text or emoji presentation and are everywhere in emoji, so
 * one directly after a visible character stays; any other (a run of
 * selectors, or one at the start) is the shape of a smuggled payload.
 */
function kept(ch: string, offset: number, whole: string): boolean {
  if (KEPT_CONTROLS.has(ch)) return true;
  if (!PRESENTATION_SELECTORS.has(ch) || offset === 0) return false;
  const before = whole.slice(Math.max(0, offset - 2), offset);
  const previous = Array.from(before).at(-1)!;
  return !ESCAPED_ONE.test(previous);
}

const MARKER_WORD_ANY_CASE = new RegExp(MARKER_WORD, 'gi');

/**
 * The text-form view of a string: every invisible or control character (other
 * than newline and tab) and every marker bracket becomes a visible `\u{…}`
 * escape, and the marker word loses its literal hyphen. The result can never
 * contain a boundary marker, whatever the nonce.
 */
export function neutralise(text: string): string {
  const escaped = text.replace(ESCAPED, (ch: string, offset: number, whole: string) =>
    kept(ch, offset, whole) ? ch : visibleEscape(ch.codePointAt(0)!),
  );
  // The escapes above are ASCII without the marker word, so this pass cannot undo them.
  return escaped.replace(MARKER_WORD_ANY_CASE, (word) => `${word.slice(0, 6)}${visibleEscape(0x2d)}${word.slice(7)}`);
}
