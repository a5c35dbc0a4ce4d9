/**
 * How text becomes search terms, the one rule both the index and the query
 * obey (docs/search.md, "Terms"). Atrium tokenises and folds text itself,
 * rather than leaving it to FTS5's tokenizer or PostgreSQL's text-search
 * parser, because those two disagree (PostgreSQL keeps `foo-bar`, URLs and
 * e-mail addresses as tokens of their own; FTS5 splits them) and a query must
 * find the same records on either database.
 *
 * - A term is a run of letters and digits; everything else separates terms, so
 *   Markdown punctuation, code spans and emoji never reach the database.
 *   Combining marks belong to the letter they follow and never split a word.
 * - Terms are case-folded and accent-folded (`Café` → `cafe`), after
 *   compatibility decomposition (full-width `ＡＢＣ` → `abc`, `ﬁ` → `fi`).
 * - Scripts written without spaces between words (Han, Hiragana, Katakana,
 *   Hangul, Thai, Lao, Khmer, Myanmar) give one term per character, so any
 *   run of characters is findable as a phrase of single-character terms.
 * - A folded term holds letters and digits only, at most MAX_TERM_LENGTH of
 *   them. That is what lets the index hand FTS5 the terms joined by spaces
 *   (its tokenizer then finds exactly these terms again) and PostgreSQL the
 *   same terms as lexemes.
 */

export interface Term {
  /** The folded term, as the index holds it. */
  term: string;
  /** Where it came from in the original text, in Unicode code points (end exclusive). */
  start: number;
  end: number;
}

/**
 * The longest term, in code points, beyond which a run is cut. PostgreSQL
 * refuses a lexeme of 2 KiB or more (in a tsvector and a tsquery alike), and
 * runs that long are identifiers or encoded data, found by their start anyway:
 * a query for the same run, or any prefix of it, is cut the same way.
 */
export const MAX_TERM_LENGTH = 64;

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
// FTS5's tokenizer classifies characters by Unicode 6.1, in which New Tai Lue's
// vowel and tone signs and two Vedic signs were spacing marks (letters now): it
// splits words at them, so they are marks here too. test/search-text.test.ts
// checks every code point against a real FTS5 table, which keeps this list whole.
const MARK = /[\p{M}\u19B0-\u19C0\u19C8\u19C9\u1CF2\u1CF3]/u;
const MARKS = /[\p{M}\u19B0-\u19C0\u19C8\u19C9\u1CF2\u1CF3]/gu;
const UNSPACED_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

/**
 * Case- and accent-folds text: compatibility decomposition, lower case, every
 * combining mark dropped, recomposed (so Hangul jamo become syllables again).
 * All marks go, not only accents, because FTS5's tokenizer splits a word at
 * most marks it keeps; the final sigma folds to sigma, as FTS5's case folding
 * does, so both databases hold the same letters. Lower-casing comes between two
 * decompositions because it can itself produce a mark (`İ` → `i̇`).
 */
export function fold(run: string): string {
  return run.normalize('NFKD').toLowerCase().normalize('NFKD').replace(MARKS, '').normalize('NFC').replace(/ς/g, 'σ');
}

/**
 * What one character of the text is to terms(): a separator, a mark (which
 * continues the term before it), or its folded letters and digits, among
 * which an empty string stands for a separator its folding holds (`½` →
 * `1⁄2`).
 */
type Folding = 'separator' | 'mark' | Array<{ letter: string; unspaced: boolean }>;

function folding(ch: string): Folding {
  if (MARK.test(ch)) return 'mark';
  if (!LETTER_OR_DIGIT.test(ch)) return 'separator';
  const folded = Array.from(fold(ch));
  // A letter that folds to marks alone (a half-width voiced sound mark) is a mark.
  if (folded.length === 0) return 'mark';
  return folded.map((f) => (LETTER_OR_DIGIT.test(f) ? { letter: f, unspaced: UNSPACED_SCRIPT.test(f) } : { letter: '', unspaced: false }));
}

// Each character's folding, worked out once: the ASCII range up front, the rest
// as met (bounded, as a text can hold any number of distinct characters).
const ASCII_FOLDINGS = Array.from({ length: 128 }, (_, code) => folding(String.fromCharCode(code)));
const FOLDING_CACHE_LIMIT = 8192;
const foldingCache = new Map<string, Folding>();

function foldingOf(ch: string): Folding {
  const code = ch.charCodeAt(0);
  if (code < 128) return ASCII_FOLDINGS[code]!;
  let known = foldingCache.get(ch);
  if (known === undefined) {
    known = folding(ch);
    if (foldingCache.size >= FOLDING_CACHE_LIMIT) foldingCache.clear();
    foldingCache.set(ch, known);
  }
  return known;
}

/**
 * The text's terms with their positions in the original, in order. Offsets are
 * code points, as search results report highlights.
 *
 * Terms are read from the folded text, each folded character placed at the
 * character it came from, so the terms of a text's own terms are those terms
 * again (`½` folds to `1⁄2`: two terms, as `1⁄2` gives; `㊀` folds to the Han
 * `一`: a term of its own). A term's span covers the marks after its last
 * letter, so a highlight never splits a letter from its accent; terms folded
 * from one character share its span.
 */
export function terms(text: string): Term[] {
  const out: Term[] = [];
  scanTerms(text, (t) => void out.push(t));
  return out;
}

/**
 * terms(), one at a time, for a reader that may stop early (a snippet needs
 * the text only up to its window): `visit` returns false to stop.
 */
export function scanTerms(text: string, visit: (term: Term) => boolean | void): void {
  if (ASCII.test(text)) {
    scanAsciiTerms(text, visit);
    return;
  }
  let term = '';
  let start = -1;
  let end = -1;
  // A term of one unspaced-script character takes the marks after it, but no
  // further letter.
  let single = false;
  let going = true;
  const flush = () => {
    if (start >= 0 && visit({ term: cut(term), start, end }) === false) going = false;
    term = '';
    start = -1;
    single = false;
  };
  let i = 0;
  for (const ch of text) {
    const f = foldingOf(ch);
    if (f === 'separator') {
      if (start >= 0) flush();
    } else if (f === 'mark') {
      // A mark continues the term before it; alone, it is nothing.
      if (start >= 0) end = i + 1;
    } else {
      for (const { letter, unspaced } of f) {
        if (letter === '' || single || unspaced) flush();
        if (letter === '') continue;
        if (start < 0) start = i;
        term += letter;
        end = i + 1;
        single = unspaced;
      }
    }
    if (!going) return;
    i += 1;
  }
  flush();
}

const ASCII = /^[\0-\x7f]*$/;

/**
 * scanTerms() for text of ASCII alone, most of what is written, at a fraction
 * of the cost: there a letter or digit folds to itself lower-cased, nothing is
 * a mark, and a code unit is a code point.
 */
function scanAsciiTerms(text: string, visit: (term: Term) => boolean | void): void {
  let start = -1;
  for (let i = 0; i <= text.length; i += 1) {
    const code = i < text.length ? text.charCodeAt(i) : 0;
    // `| 0x20` lower-cases a letter.
    if (((code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a) || (code >= 0x30 && code <= 0x39)) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      if (visit({ term: text.slice(start, Math.min(i, start + MAX_TERM_LENGTH)).toLowerCase(), start, end: i }) === false) return;
      start = -1;
    }
  }
}

/** Cuts a term to MAX_TERM_LENGTH code points, never inside a surrogate pair. */
function cut(term: string): string {
  if (term.length <= MAX_TERM_LENGTH) return term;
  const chars = Array.from(term);
  return chars.length <= MAX_TERM_LENGTH ? term : chars.slice(0, MAX_TERM_LENGTH).join('');
}

/** The folded terms alone, in order: what the index stores for a text. */
export function indexTerms(text: string): string[] {
  return terms(text).map((t) => t.term);
}
