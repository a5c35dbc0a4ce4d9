import { scanTerms } from './text.js';

/**
 * What the index holds for one record's title and body, the same on both
 * databases. `scanTerms` gives the terms; this module applies the limits of
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
 * - a tsvector's lexemes and positions fit in 1 MiB: the terms stop before
 *   they would exceed about 1,000,000 bytes.
 *
 * (A lexeme must also stay under 2 KiB: `scanTerms` cuts every term at
 * MAX_TERM_LENGTH code points, far below.) A long text is read only up to
 * where the terms stop, so a 1 MiB Resource is not tokenised past its
 * last indexed position.
 */

export const MAX_POSITION = 16_383;
export const MAX_POSITIONS_PER_TERM = 256;
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
  const add = (into: Array<string | null>, term: string): boolean => {
    if (position >= MAX_POSITION) return false;
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
  let going = true;
  scanTerms(title, ({ term }) => (going = add(out.title, term)));
  if (!going) return out;
  // The gap between title and body.
  position += 1;
  scanTerms(body, ({ term }) => add(out.body, term));
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
 * letters and digits, so quoting needs no escapes; they are escaped anyway.
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
 * A character no term can contain (a private-use code point, neither letter
 * nor digit), so no query can match it: it stands in FTS5 for an
 * occurrence PostgreSQL would not keep, holding its position.
 */
export const UNINDEXED = '\u{E000}';

/** SQLite: one FTS5 column's text, its terms separated by spaces. */
export function ftsColumn(terms: Array<string | null>): string {
  return terms.map((term) => term ?? UNINDEXED).join(' ');
}

/** Counted, not encoded: this runs for every distinct term of every post. */
function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
