import { createHash } from 'node:crypto';
import { invalid } from '../shared/errors.js';

/**
 * A search page's `next_cursor`: how far into the ranked results the next page
 * starts, bound to the query it came from. The binding is a digest of the
 * request that shaped the order (q, space, kind, sort), so a cursor handed to
 * another query is refused rather than silently starting somewhere arbitrary.
 * Results are ranked, not keyed, so the position is an offset; MAX_OFFSET
 * bounds how deep paging goes (a person refines a query long before then, and
 * the database need never rank past it).
 */
export const MAX_OFFSET = 1000;

export interface CursorBinding {
  q: string;
  space?: string;
  kind?: string;
  sort?: string;
}

function bindingDigest(binding: CursorBinding): string {
  const canonical = JSON.stringify([binding.q, binding.space ?? null, binding.kind ?? null, binding.sort ?? 'relevance']);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 16);
}

export function encodeCursor(binding: CursorBinding, offset: number): string {
  return Buffer.from(JSON.stringify({ q: bindingDigest(binding), o: offset })).toString('base64url');
}

/** The offset a cursor carries; 422 for a cursor of another query, or one not made by Atrium. */
export function decodeCursor(binding: CursorBinding, cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid('search_cursor_invalid', 'cursor is not a search cursor: pass the `next_cursor` of the previous page');
  }
  const { q, o } = (parsed ?? {}) as { q?: unknown; o?: unknown };
  if (typeof q !== 'string' || typeof o !== 'number' || !Number.isSafeInteger(o) || o < 0 || o > MAX_OFFSET) {
    throw invalid('search_cursor_invalid', 'cursor is not a search cursor: pass the `next_cursor` of the previous page');
  }
  if (q !== bindingDigest(binding)) {
    throw invalid('search_cursor_invalid', 'cursor belongs to another query: pass it with the same q, space, kind and sort');
  }
  // Base64 decoding passes over stray characters; only the exact text Atrium wrote is its cursor.
  if (encodeCursor(binding, o) !== cursor) {
    throw invalid('search_cursor_invalid', 'cursor is not a search cursor: pass the `next_cursor` of the previous page');
  }
  return o;
}
