import { MAX_POSITION } from './document-terms.js';
import { markdownPlainText } from './plain-text.js';
import type { Clause, ParsedQuery } from './query-language.js';
import { scanTerms, terms, type Term } from './text.js';

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
 * The snippet of a record's Markdown: a window of its plain text (what a reader
 * sees, src/search/plain-text.ts), with highlights into that text.
 *
 * Records can be long (a Resource of a megabyte) and parsing Markdown costs
 * far more than reading terms, so the Markdown is parsed a growing start at a
 * time (each cut at the end of a line, a blank one where there is one), until
 * the window lies inside what was read. Whatever found the record lies within
 * the terms the index keeps of it (docs/search-index.md), so reading stops
 * once the plain text read holds more terms than that: the text's start is
 * then the snippet.
 */
export function markdownSnippet(markdown: string, parsed: ParsedQuery, width = 160): Snippet {
  for (let size = FIRST_READ; ; size *= 4) {
    const whole = size >= markdown.length;
    const read = window(markdownPlainText(whole ? markdown : markdown.slice(0, lineEnd(markdown, size))), parsed, width, !whole);
    if (whole || read.settled || read.terms > MAX_POSITION) return { snippet: read.snippet, highlights: read.highlights };
  }
}

/** Code units of Markdown parsed first: most messages, tasks and Resources whole. */
const FIRST_READ = 8192;

/** Where to cut `text` at or before `size`: after a blank line, else after a line, else at `size`, never inside a surrogate pair. */
function lineEnd(text: string, size: number): number {
  const blank = text.lastIndexOf('\n\n', size - 2);
  if (blank > size / 2) return blank + 2;
  const line = text.lastIndexOf('\n', size - 1);
  if (line > size / 2) return line + 1;
  const code = text.charCodeAt(size - 1);
  return code >= 0xd800 && code < 0xdc00 ? size - 1 : size;
}

/**
 * Whether every word and phrase of the query matches `text`: a record whose
 * title does was found by its title, which is then its snippet, and its body
 * need not be read.
 */
export function matchesEveryClause(text: string, parsed: ParsedQuery): boolean {
  if (parsed.include.length === 0) return false;
  const found = terms(text);
  return parsed.include.every((clause) => {
    for (let k = clause.terms.length; k <= found.length; k += 1) if (endsMatch(found.slice(k - clause.terms.length, k), clause)) return true;
    return false;
  });
}

/** A snippet of plain text, read whole. */
export function snippet(text: string, parsed: ParsedQuery, width = 160): Snippet {
  const { snippet: shown, highlights } = window(text, parsed, width, false);
  return { snippet: shown, highlights };
}

/** A window, whether it is final (the text went on past it, so more text cannot move it), and the terms read. */
interface Window extends Snippet {
  settled: boolean;
  terms: number;
}

/**
 * A window of at most `width` code points of `text` around the first term that
 * matches a positive clause of the query, a quarter of it kept for what comes
 * before, and the highlights of every matching term inside. The window starts
 * at a term (or the text's start) and ends after one, unless the matching term
 * is wider than the window; `…` marks each end where the text goes on, and
 * runs of whitespace show as one space. A text that matches nothing (a query
 * of filters alone, or a record that matched by its title) shows from its
 * start. `more`: the text is the start of a longer one, so its end is marked as cut.
 *
 * The text is read only as far as the window's end.
 */
function window(text: string, parsed: ParsedQuery, width: number, more: boolean): Window {
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
  let read = 0;
  let settled = false;
  scanTerms(text, (t) => {
    read += 1;
    // Until the first match the whole text may have to be read; past the
    // window, only as far as a phrase begun inside it could reach.
    if ((anchor >= 0 || clauses.length === 0) && t.start >= to && ++beyond >= longest) {
      settled = true;
      return false;
    }
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
    // `width` when the match sits near the end, nor cut a match that fits:
    // a window starts at a term, so a term before the match may have to go
    // even when the room it leaves is short of the whole term.
    const matchEnd = found[found.length - 1]!.end;
    const context = Math.min(anchor - Math.floor(width / 4), length - width);
    const target = matchEnd - anchor <= width ? Math.min(Math.max(context, matchEnd - width), anchor) : context;
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
  return { ...cutOut(text, from, to, { first, length, more }, spansOf(found, clauses)), settled, terms: read };
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
function cutOut(text: string, from: number, to: number, { first, length, more }: { first: number; length: number; more: boolean }, spans: Array<[number, number]>): Snippet {
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
  return { snippet: lead + out.join('') + (to < length || more ? ELLIPSIS : ''), highlights };
}
