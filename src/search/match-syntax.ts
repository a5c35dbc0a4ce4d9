import type { Clause, ParsedQuery } from './query-language.js';

/**
 * The parsed query's clauses in each database's match syntax. Both compilers
 * write only folded terms (letters and digits, text.ts), each inside quotes,
 * and the operators below; a term never holds a quote, but quoting still
 * doubles what the syntax would read as one, so no term could ever end its
 * string early.
 */

export interface Fts5Match {
  /** For `search_terms MATCH ?`: every included clause (null when there are none). */
  match: string | null;
  /** For `rowid NOT IN (SELECT rowid FROM search_terms WHERE search_terms MATCH ?)`: any excluded clause. */
  exclude: string | null;
}

/**
 * FTS5: a clause is one string, `"term"`, `"a b"` for a phrase, with `*` after
 * it for a prefix (FTS5 reads the star as applying to the string's last term).
 * Juxtaposed strings must all match; excluded ones are joined with OR, as a row
 * is left out when any of them matches.
 */
export function fts5Match(parsed: ParsedQuery): Fts5Match {
  const strings = (clauses: Clause[]) => clauses.map((c) => `"${c.terms.join(' ').replaceAll('"', '""')}"${c.prefix ? '*' : ''}`);
  const match = strings(parsed.include).join(' ');
  const exclude = strings(parsed.exclude).join(' OR ');
  return { match: match || null, exclude: exclude || null };
}

/**
 * PostgreSQL: a tsquery literal for `terms @@ ?::tsquery`, the cast reading
 * each quoted lexeme as it stands (no parser, no dictionary, no stop words):
 * `'term'`, `'term':*` for a prefix, `('a' <-> 'b')` for a phrase, `!` before
 * an excluded clause, all joined with `&`. Null when there is no clause.
 */
export function tsquery(parsed: ParsedQuery): string | null {
  const lexeme = (term: string, prefix: boolean) => `'${term.replaceAll('\\', '\\\\').replaceAll("'", "''")}'${prefix ? ':*' : ''}`;
  const clause = (c: Clause) => {
    const lexemes = c.terms.map((term, k) => lexeme(term, c.prefix && k === c.terms.length - 1));
    return lexemes.length === 1 ? lexemes.join('') : `(${lexemes.join(' <-> ')})`;
  };
  const parts = [...parsed.include.map(clause), ...parsed.exclude.map((c) => `!${clause(c)}`)];
  return parts.length > 0 ? parts.join(' & ') : null;
}
