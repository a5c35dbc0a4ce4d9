import { indexTerms } from './text.js';

/**
 * What the index holds for one record's title and body, the same on both
 * databases. `indexTerms` gives the terms; this module applies the limits of
 * PostgreSQL's tsvector to them on both databases, because FTS5 has none and
 * a record must be found by the same queries on either:
 *
 * - positions run from 1 to 16,383 (PostgreSQL clamps larger ones, which
 *   would make phrases late in a long text match wrongly): the title takes
 *   positions from 1, the body follows after a gap of one, so no phrase spans
 *   the two, and terms past the last position are not indexed;
 * - at most 256 positions are kept for one term (PostgreSQL drops the rest):
 *   a later occurrence keeps its place in the text but cannot be found, so
 *   phrases through it match on neither database;
 * - a term is at most 2,047 bytes of UTF-8 (longer is an error): longer ones
 *   are cut at a character boundary. A query (at most 500 characters) is
 *   never as long, so only prefix searches reach them, and find them alike;
 * - a tsvector's lexemes and positions fit in 1 MiB: the terms stop before
 *   they would exceed about 1,000,000 bytes.
 */

export const MAX_POSITION = 16_383;
export const MAX_POSITIONS_PER_TERM = 256;
export const MAX_TERM_BYTES = 2_047;
/** Below PostgreSQL's 1,048,575, as an estimate of its own accounting with room to spare. */
const MAX_TSVECTOR_BYTES = 1_000_000;

/**
 * The indexed terms in order, one per position. `null` is an occurrence past
 * a term's 256th: it holds its place, so positions stay those of the text,
 * but it matches nothing.
 */
export interface DocumentTerms {
  title: Array<string | null>;
  body: Array<string | null>;
}

export function documentTerms(title: string, body: string): DocumentTerms {
  const out: DocumentTerms = { title: [], body: [] };
  const seen = new Map<string, number>();
  let bytes = 0;
  let position = 0;
  // false once a limit is reached: nothing after it is indexed.
  const add = (into: Array<string | null>, raw: string): boolean => {
    if (position >= MAX_POSITION) return false;
    const term = capBytes(raw);
    const count = seen.get(term) ?? 0;
    // A new lexeme: its text, alignment, its count of positions and one position; another occurrence: one position.
    const cost = count === 0 ? utf8Length(term) + 5 : count < MAX_POSITIONS_PER_TERM ? 2 : 0;
    if (bytes + cost > MAX_TSVECTOR_BYTES) return false;
    bytes += cost;
    seen.set(term, count + 1);
    into.push(count < MAX_POSITIONS_PER_TERM ? term : null);
    position += 1;
    return true;
  };
  for (const term of boundedTerms(title)) if (!add(out.title, term)) return out;
  // The gap between title and body.
  position += 1;
  for (const term of boundedTerms(body)) if (!add(out.body, term)) return out;
  return out;
}

/**
 * The positions (1-based) of each term, as the tsvector gets them: the title's
 * from 1, the body's after a gap of one.
 */
export function termPositions(terms: DocumentTerms): Map<string, Array<{ position: number; title: boolean }>> {
  const out = new Map<string, Array<{ position: number; title: boolean }>>();
  const put = (list: Array<string | null>, first: number, title: boolean) =>
    list.forEach((term, i) => {
      if (term === null) return;
      const positions = out.get(term) ?? [];
      positions.push({ position: first + i, title });
      out.set(term, positions);
    });
  put(terms.title, 1, true);
  put(terms.body, terms.title.length + 2, false);
  return out;
}

/**
 * PostgreSQL: the tsvector literal, cast with `::tsvector` (never `to_tsvector`,
 * whose parser would split and fold the terms its own way). The title's
 * positions weigh A, the body's D (the default, left unwritten). Terms hold only
 * letters, digits and marks, so quoting needs no escapes; they are escaped anyway.
 */
export function tsvectorLiteral(terms: DocumentTerms): string {
  const lexemes: string[] = [];
  for (const [term, positions] of termPositions(terms)) {
    const quoted = `'${term.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
    lexemes.push(`${quoted}:${positions.map((p) => `${p.position}${p.title ? 'A' : ''}`).join(',')}`);
  }
  return lexemes.join(' ');
}

/**
 * A character no term can contain (a private-use code point, neither letter,
 * digit nor mark), so no query can match it: it stands in FTS5 for an
 * occurrence PostgreSQL would not keep, holding its position.
 */
export const UNINDEXED = '\u{E000}';

/** SQLite: one FTS5 column's text, its terms separated by spaces. */
export function ftsColumn(terms: Array<string | null>): string {
  return terms.map((term) => term ?? UNINDEXED).join(' ');
}

/**
 * The terms of `text`, read a slice at a time, so that a long Resource (up to
 * 1 MiB) is not tokenised past the last position the index keeps. A slice ends
 * just after a character that separates terms, where `indexTerms` ends a term
 * too, so the slices' terms are exactly the whole text's.
 */
function* boundedTerms(text: string): Generator<string> {
  const SLICE = 16_384;
  let start = 0;
  while (start < text.length) {
    const end = sliceEnd(text, start + SLICE);
    yield* indexTerms(text.slice(start, end));
    start = end;
  }
}

const SEPARATOR = /[^\p{L}\p{N}\p{M}]/u;

/** The first separator at or after `from` (in UTF-16 units), and just past it; the text's end if none. */
function sliceEnd(text: string, from: number): number {
  // Never from the middle of a surrogate pair, whose second half alone would look like a separator.
  const low = text.charCodeAt(from);
  const start = low >= 0xdc00 && low <= 0xdfff ? from + 1 : from;
  for (let i = start; i < text.length; ) {
    const cp = text.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    if (SEPARATOR.test(String.fromCodePoint(cp))) return i + width;
    i += width;
  }
  return text.length;
}

const encoder = new TextEncoder();

function utf8Length(text: string): number {
  return encoder.encode(text).length;
}

/** `term` cut to at most MAX_TERM_BYTES of UTF-8, at a code point boundary. */
function capBytes(term: string): string {
  if (term.length * 3 <= MAX_TERM_BYTES || utf8Length(term) <= MAX_TERM_BYTES) return term;
  let bytes = 0;
  let out = '';
  for (const ch of term) {
    const width = utf8Length(ch);
    if (bytes + width > MAX_TERM_BYTES) break;
    bytes += width;
    out += ch;
  }
  return out;
}
