import type { Schemas } from '../api/client';
import { spacePath } from '../spaces/space';

// What a search is, as the address holds it (`/search?q=…&space=…&kind=…&sort=newest`),
// so Back, reload and a shared link all show the same results; and where each
// result leads. Pure functions: no React, no requests.

export type SearchResult = Schemas['SearchResult'];
export type SearchKind = SearchResult['kind'];
export type SearchSort = 'relevance' | 'newest';

export interface SearchFilters {
  q: string;
  /** `space=`: only this Space (the header's "In this Space"). */
  space: string | null;
  kind: SearchKind | null;
  sort: SearchSort;
}

export const SEARCH_KINDS: readonly SearchKind[] = ['message', 'task', 'resource'];

/** The filters in the address; anything the app would not have written is left out. */
export function readFilters(params: URLSearchParams): SearchFilters {
  const kind = params.get('kind');
  const space = params.get('space');
  return {
    q: params.get('q') ?? '',
    space: space === null || space === '' ? null : space,
    kind: SEARCH_KINDS.find((k) => k === kind) ?? null,
    sort: params.get('sort') === 'newest' ? 'newest' : 'relevance',
  };
}

/** The results page for these filters; defaults are left out, so addresses stay short. */
export function searchPath(filters: SearchFilters): string {
  const params = new URLSearchParams({ q: filters.q });
  if (filters.space !== null) params.set('space', filters.space);
  if (filters.kind !== null) params.set('kind', filters.kind);
  if (filters.sort !== 'relevance') params.set('sort', filters.sort);
  return `/search?${params.toString()}`;
}

// `is:dm` as the query language reads it: a part on its own, in any case. The
// "Direct messages only" chip edits these words in `q`, so what the field shows
// is what is searched.
const DIRECT_ONLY = /^is:dm$/i;

export function directOnly(q: string): boolean {
  return q.split(/\s+/).some((part) => DIRECT_ONLY.test(part));
}

export function withDirectOnly(q: string, on: boolean): string {
  const parts = q.split(/\s+/).filter((part) => part !== '' && !DIRECT_ONLY.test(part));
  return (on ? [...parts, 'is:dm'] : parts).join(' ');
}

/**
 * The snippet cut at its highlights. Offsets are Unicode code points, so the
 * text is split into code points first: an emoji before a match is one
 * character here too, never two UTF-16 halves.
 */
export function highlightParts(snippet: string, highlights: number[][]): Array<{ text: string; marked: boolean }> {
  const points = Array.from(snippet);
  const parts: Array<{ text: string; marked: boolean }> = [];
  let at = 0;
  for (const [rawStart, rawEnd] of highlights) {
    const start = Math.max(at, Math.min(rawStart ?? 0, points.length));
    const end = Math.max(start, Math.min(rawEnd ?? 0, points.length));
    if (start > at) parts.push({ text: points.slice(at, start).join(''), marked: false });
    if (end > start) parts.push({ text: points.slice(start, end).join(''), marked: true });
    at = end;
  }
  if (at < points.length) parts.push({ text: points.slice(at).join(''), marked: false });
  return parts;
}

// As the server cuts snippets (src/search/snippet.ts): whitespace and control
// characters, every run shown as one space, and `…` where the text goes on.
const SPACE = /[\s\p{Cc}]/u;
const ELLIPSIS = '…';

/**
 * Where, in `text` (a string index), the snippet's first highlight stands: the
 * snippet is found in the text with its whitespace runs made one space, as
 * the server made them. Null when the snippet has no highlight or is not in
 * the text (it came from the title, or the text changed since).
 */
export function firstMatchOffset(text: string, snippet: string, highlights: number[][]): number | null {
  const first = highlights[0]?.[0];
  if (first === undefined) return null;
  // The text with whitespace runs made one space, and for each of its string
  // indices the index in `text` it came from.
  let flat = '';
  const from: number[] = [];
  let space = false;
  let i = 0;
  for (const ch of text) {
    if (SPACE.test(ch)) space = true;
    else {
      if (space && flat.length > 0) {
        flat += ' ';
        from.push(i);
      }
      space = false;
      flat += ch;
      for (let k = 0; k < ch.length; k += 1) from.push(i);
    }
    i += ch.length;
  }
  const points = Array.from(snippet);
  const lead = points[0] === ELLIPSIS ? 1 : 0;
  const trail = points.length > lead && points[points.length - 1] === ELLIPSIS ? 1 : 0;
  // A text may itself begin or end with `…`: try the snippet whole before without its marks.
  const cuts = [
    [0, 0],
    [lead, trail],
    [lead, 0],
    [0, trail],
  ];
  for (const [skip, drop] of cuts) {
    if (first < skip!) continue;
    const core = points.slice(skip, points.length - drop!).join('');
    if (core === '') continue;
    const found = flat.indexOf(core);
    if (found < 0) continue;
    const into = points.slice(skip, first).join('').length;
    return from[found + into] ?? null;
  }
  return null;
}

/** Where a result leads: the message in its conversation, the task, the Resource at `anchor` (a heading id). */
export function resultPath(result: SearchResult, reader: string | null, anchor: string | null = null): string {
  const base = (rest: string) => spacePath(result.space, rest);
  const id = encodeURIComponent(String(result.id));
  if (result.kind === 'task') return base(`/tasks/${id}`);
  if (result.kind === 'resource') return base(`/resources/${id}${anchor ? `#${encodeURIComponent(anchor)}` : ''}`);
  const message = `?message=${id}`;
  if (result.task_id !== undefined) return base(`/tasks/${result.task_id}${message}`);
  if (result.channel !== undefined) return base(`/channels/${encodeURIComponent(result.channel)}${message}`);
  return base(`/dm/${encodeURIComponent(directPartner(result, reader))}${message}`);
}

/** The other member of a direct message, for its reader. */
export function directPartner(result: SearchResult, reader: string | null): string {
  const members = result.direct_members ?? [];
  return members.find((handle) => handle !== reader) ?? members[0] ?? result.author;
}
