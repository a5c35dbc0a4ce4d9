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
 * - Terms are case-folded and accent-folded (`Café` → `cafe`), after NFKC
 *   (full-width `ＡＢＣ` → `abc`).
 * - Scripts written without spaces between words (Han, Hiragana, Katakana,
 *   Hangul, Thai, Lao, Khmer, Myanmar) give one term per character, so any
 *   run of characters is findable as a phrase of single-character terms.
 */

export interface Term {
  /** The folded term, as the index holds it. */
  term: string;
  /** Where it came from in the original text, in Unicode code points (end exclusive). */
  start: number;
  end: number;
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}\p{M}]/u;
const UNSPACED_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const COMBINING_MARK = /\p{Mn}/gu;

/** Case- and accent-folds one run of letters and digits. */
export function fold(run: string): string {
  return run.normalize('NFKD').replace(COMBINING_MARK, '').normalize('NFC').toLowerCase();
}

/**
 * The text's terms with their positions in the original, in order. Offsets are
 * code points, as search results report highlights.
 */
export function terms(text: string): Term[] {
  const out: Term[] = [];
  const chars = Array.from(text);
  let runStart = -1;
  const flush = (end: number) => {
    if (runStart < 0) return;
    const term = fold(chars.slice(runStart, end).join(''));
    // Folding can leave nothing (a lone combining mark): no term then.
    if (term.length > 0) out.push({ term, start: runStart, end });
    runStart = -1;
  };
  for (let i = 0; i < chars.length; i += 1) {
    const ch = chars[i]!;
    if (UNSPACED_SCRIPT.test(ch)) {
      flush(i);
      runStart = i;
      flush(i + 1);
    } else if (LETTER_OR_DIGIT.test(ch)) {
      if (runStart < 0) runStart = i;
    } else {
      flush(i);
    }
  }
  flush(chars.length);
  return out;
}

/** The folded terms alone, in order: what the index stores for a text. */
export function indexTerms(text: string): string[] {
  return terms(text).map((t) => t.term);
}
