import type { Clause, ParsedQuery } from './query-language.js';
import { scanTerms, type Term } from './text.js';

export interface Snippet {
  /** Plain text from the record: whitespace runs made one space, `…` where it was cut. */
  snippet: string;
  /** Where `snippet` matched the query: code-point offsets, end exclusive, ascending, not overlapping. */
  highlights: Array<[number, number]>;
}

const ELLIPSIS = '…';
// Whitespace and control characters; a snippet is one line of plain text.
const SPACE = /[\s\p{Cc}]/u;

/**
 * A window of at most `width` code points of `text` around the first term that
 * matches a positive clause of the query, a quarter of it kept for what comes
 * before, and the highlights of every matching term inside. The window starts
 * at a term (or the text's start) and ends after one, unless the matching term
 * is wider than the window; `…` marks each end where the text goes on, and
 * runs of whitespace show as one space. A text that matches nothing (a query
 * of filters alone, or a record that matched by its title) shows from its
 * start.
 *
 * Records can be long (a Resource of a megabyte), so the text is read only as
 * far as the window's end.
 */
export function snippet(text: string, parsed: ParsedQuery, width = 160): Snippet {
  const { first, length } = extent(text);
  const clauses = parsed.include;
  const longest = Math.max(1, ...clauses.map((c) => c.terms.length));

  // The terms of the opening window, shown when nothing matches.
  const opening: Term[] = [];
  // The terms read, less those too far behind the newest to matter for the first match.
  let found: Term[] = [];
  let anchor = -1;
  let from = first;
  let to = Math.min(length, from + width);
  let beyond = 0;
  scanTerms(text, (t) => {
    // Until the first match the whole text may have to be read; past the
    // window, only as far as a phrase begun inside it could reach.
    if ((anchor >= 0 || clauses.length === 0) && t.start >= to && ++beyond >= longest) return false;
    if (t.start < first + width) opening.push(t);
    found.push(t);
    if (anchor >= 0) return;
    if (found.length > 4 * (width + longest)) {
      const keep = found.findIndex((f, k) => f.start >= t.start - width || k >= found.length - longest);
      found = found.slice(keep);
    }
    const hit = clauses.find((c) => endsMatch(found, c));
    if (!hit) return;
    anchor = found[found.length - hit.terms.length]!.start;
    // Keep context before the match, but never leave the window short of
    // `width` when the match sits near the end.
    const target = Math.min(anchor - Math.floor(width / 4), length - width);
    if (target > from) from = found.find((f) => f.start >= target)?.start ?? anchor;
    to = Math.min(length, from + width);
  });
  if (anchor < 0) found = opening;

  if (to < length) {
    // Cut before a term the end would split, unless it starts the window or
    // is the match: then it is cut where the window ends.
    const straddling = found.find((t) => t.start < to && t.end > to);
    if (straddling && straddling.start > Math.max(from, anchor)) to = straddling.start;
  }
  return cutOut(text, from, to, { first, length }, spansOf(found, clauses));
}

/** Whether the last terms found match the clause (a phrase's terms together, the last as a prefix for `word*`). */
function endsMatch(found: Term[], clause: Clause): boolean {
  const n = clause.terms.length;
  const at = found.length - n;
  if (at < 0) return false;
  for (let j = 0; j < n; j += 1) {
    const want = clause.terms[j]!;
    const term = found[at + j]!.term;
    if (clause.prefix && j === n - 1 ? !term.startsWith(want) : term !== want) return false;
  }
  return true;
}

/**
 * The spans of every term that matches a clause, sorted, and merged where
 * they touch the same characters (two terms folded from one character share
 * its span).
 */
function spansOf(found: Term[], clauses: Clause[]): Array<[number, number]> {
  const hit = new Set<number>();
  for (const clause of clauses) {
    const n = clause.terms.length;
    for (let k = n; k <= found.length; k += 1) {
      if (endsMatch(found.slice(k - n, k), clause)) for (let j = k - n; j < k; j += 1) hit.add(j);
    }
  }
  const spans: Array<[number, number]> = [];
  for (const k of [...hit].sort((a, b) => a - b)) {
    const { start, end } = found[k]!;
    const last = spans[spans.length - 1];
    if (last && start < last[1]) last[1] = Math.max(last[1], end);
    else spans.push([start, end]);
  }
  return spans;
}

/** Where the text's content starts and ends, in code points: whitespace at either end does not count. */
function extent(text: string): { first: number; length: number } {
  let first = -1;
  let length = 0;
  let i = 0;
  for (const ch of text) {
    if (!SPACE.test(ch)) {
      if (first < 0) first = i;
      length = i + 1;
    }
    i += 1;
  }
  return { first: Math.max(first, 0), length };
}

/** Code points from..to of the text, whitespace runs made one space, and the spans moved to match. */
function cutOut(text: string, from: number, to: number, { first, length }: { first: number; length: number }, spans: Array<[number, number]>): Snippet {
  const lead = from > first ? ELLIPSIS : '';
  const out: string[] = [];
  // Where each code point of the window landed in the snippet.
  const at: number[] = [];
  let space = false;
  let i = 0;
  for (const ch of text) {
    if (i >= to) break;
    if (i >= from) {
      if (SPACE.test(ch)) {
        space = true;
      } else {
        if (space && out.length > 0) out.push(' ');
        space = false;
        at[i - from] = lead.length + out.length;
        out.push(ch);
      }
    }
    i += 1;
  }
  const highlights: Array<[number, number]> = [];
  for (const [start, end] of spans) {
    const a = Math.max(start, from);
    const b = Math.min(end, to);
    // A term holds no whitespace, so its first and last code points place it.
    if (a < b) highlights.push([at[a - from]!, at[b - 1 - from]! + 1]);
  }
  return { snippet: lead + out.join('') + (to < length ? ELLIPSIS : ''), highlights };
}
