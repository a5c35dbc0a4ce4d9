import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { parseQuery, type ParsedQuery } from '../src/search/query-language.js';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import { markdownPlainText, plainText } from '../src/search/plain-text.js';
import { markdownSnippet, snippet } from '../src/search/snippet.js';
import { fold, indexTerms, MAX_TERM_LENGTH, terms } from '../src/search/text.js';

/** Each term as `term@start-end`, offsets in code points. */
const spans = (text: string) => terms(text).map((t) => `${t.term}@${t.start}-${t.end}`);

describe('search terms: how text becomes terms', () => {
  const cases: Array<[string, string, string[]]> = [
    ['case', 'Trellis SOUTH wall', ['trellis', 'south', 'wall']],
    ['accents', 'Café naïve Ångström Łódź façade', ['cafe', 'naive', 'angstrom', 'łodz', 'facade']],
    ['accents written as combining marks', 'Cafe\u0301 n\u0303', ['cafe', 'n']],
    ['full-width letters and digits', 'ＡＢＣ ｄｅｆ １２３', ['abc', 'def', '123']],
    ['ligatures and compatibility forms', 'ﬁle ﬀ ℌello ǅemal', ['file', 'ff', 'hello', 'dzemal']],
    ['Turkish dotted capital I', 'İstanbul', ['istanbul']],
    ['German sharp s', 'Straße STRAẞE', ['straße', 'straße']],
    ['Greek final sigma, as FTS5 folds it', 'ΟΔΟΣ οδος', ['οδοσ', 'οδοσ']],
    ['Cyrillic', 'Привет, МИР', ['привет', 'мир']],
    ['Han, one term a character', '東京タワー', ['東', '京', 'タ', 'ワ', 'ー']],
    ['Hiragana and Katakana, half-width folded', 'ひらがな ｶﾀｶﾅ', ['ひ', 'ら', 'か', 'な', 'カ', 'タ', 'カ', 'ナ']],
    ['Hangul syllables', '한국어 문서', ['한', '국', '어', '문', '서']],
    ['Thai, its marks dropped', 'ภาษาไทย', ['ภ', 'า', 'ษ', 'า', 'ไ', 'ท', 'ย']],
    ['Devanagari, its marks dropped', 'नमस्ते काम', ['नमसत', 'कम']],
    ['Arabic', 'مرحبا بالعالم', ['مرحبا', 'بالعالم']],
    ['emoji separate', 'rose🌹bed 👍🏽done 👨‍👩‍👧 ok', ['rose', 'bed', 'done', 'ok']],
    ['Markdown punctuation', '# Plan\n**bold** _it_ [link](https://ex.am/ple?q=1) > quote\n- item', ['plan', 'bold', 'it', 'link', 'https', 'ex', 'am', 'ple', 'q', '1', 'quote', 'item']],
    ['code spans and blocks', '`npm run build` and\n```ts\nconst x_y = fooBar(1);\n```', ['npm', 'run', 'build', 'and', 'ts', 'const', 'x', 'y', 'foobar', '1']],
    ['hyphens, apostrophes, e-mail addresses', "foo-bar it's bea@example.com", ['foo', 'bar', 'it', 's', 'bea', 'example', 'com']],
    ['digits of other scripts', '٣ 四 ⅻ', ['٣', '四', 'xii']],
    ['characters folding to separators, read as their folded forms are', 'a½b ⑴x ㊀x', ['a1', '2b', '1', 'x', '一', 'x']],
    ['Arabic ligature folding to words', 'ﷺ', ['صلى', 'الله', 'عليه', 'وسلم']],
    ['nothing but separators', ' \0\t\n*"-:()&&|\\ ', []],
    ['a mark with no letter before it', '\u0301 \u0301a', ['a']],
  ];
  for (const [label, text, want] of cases) {
    it(label, () => assert.deepEqual(indexTerms(text), want));
  }

  it('reports offsets in code points, so astral characters count once', () => {
    assert.deepEqual(spans('😀 café 𝐀𝐁c'), ['cafe@2-6', 'abc@7-10']);
    assert.deepEqual(spans('🌹🌹rose'), ['rose@2-6']);
  });

  it('gives a term the marks after its letters, so a highlight keeps each accent', () => {
    assert.deepEqual(spans('e\u0301te\u0301 ก\u0e34น'), ['ete@0-5', 'ก@6-8', 'น@8-9']);
  });

  it('gives each term folded from one character that character', () => {
    assert.deepEqual(spans('x½ ヿ'), ['x1@0-2', '2@1-2', 'コ@3-4', 'ト@3-4']);
  });

  it(`cuts a term at ${MAX_TERM_LENGTH} code points, the span still covering the whole run`, () => {
    const run = `${'Ab'.repeat(100)}😀`;
    assert.deepEqual(terms(run), [{ term: 'ab'.repeat(MAX_TERM_LENGTH / 2), start: 0, end: 200 }]);
    assert.equal(indexTerms('東'.repeat(200)).length, 200, 'unspaced scripts are never one long term');
    const astral = '𝐀'.repeat(100);
    assert.equal(Array.from(indexTerms(astral)[0]!).length, MAX_TERM_LENGTH);
  });

  it('folds one string as terms() folds its letters', () => {
    assert.equal(fold('Ça ΒΑΣ İ'), 'ca βασ i');
  });

  it('gives, for every code point, exactly the terms FTS5 finds again in them', () => {
    // The index gives FTS5 the terms joined by spaces: its tokenizer (Unicode
    // 6.1 tables, its own case folding) must find each term again, whole and
    // unchanged, or SQLite and PostgreSQL would hold different terms.
    const ours: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp += 1) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      if (!/[\p{L}\p{N}\p{M}]/u.test(ch)) continue;
      ours.push(...indexTerms(ch), ...indexTerms(`a${ch}b`));
    }
    const db = new Database(':memory:');
    try {
      db.exec("CREATE VIRTUAL TABLE t USING fts5(body, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0')");
      db.exec("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')");
      db.prepare('INSERT INTO t(rowid, body) VALUES (1, ?)').run(ours.join(' '));
      const theirs = db.prepare('SELECT term FROM v ORDER BY offset').pluck().all() as string[];
      assert.ok(ours.length > 250_000);
      assert.equal(theirs.length, ours.length);
      const differ = ours.findIndex((term, k) => theirs[k] !== term);
      assert.equal(differ, -1, `FTS5 reads ${JSON.stringify(theirs[differ])} where the term is ${JSON.stringify(ours[differ])}`);
    } finally {
      db.close();
    }
  });
});

const anyText = fc.oneof(fc.string({ unit: 'binary', maxLength: 80 }), fc.string({ unit: 'grapheme', maxLength: 80 }));

describe('search terms: properties', () => {
  it('gives terms of letters and digits only, in order, inside the text', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const length = Array.from(text).length;
        let previous = 0;
        for (const t of terms(text)) {
          assert.match(t.term, /^[\p{L}\p{N}]+$/u);
          assert.ok(Array.from(t.term).length <= MAX_TERM_LENGTH);
          assert.ok(t.start >= previous && t.start < t.end && t.end <= length, JSON.stringify({ text, t }));
          previous = t.start;
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('reads text of ASCII alone (its own quicker path) as it reads the same text among other characters', () => {
    const ascii = fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((code) => String.fromCharCode(code)), maxLength: 200 });
    fc.assert(
      fc.property(ascii, (text) => {
        // A character past ASCII, after a separator, sends the whole text through the general path.
        assert.deepEqual(terms(text), terms(`${text} é`).slice(0, -1));
      }),
      { numRuns: 3000 },
    );
    assert.deepEqual(spans(`A${'b'.repeat(70)} x\u0010y Z9`), [`a${'b'.repeat(63)}@0-71`, 'x@72-73', 'y@74-75', 'z9@76-78']);
  });

  it('finds the same terms again in its own terms, as the index and FTS5 rely on', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const once = indexTerms(text);
        assert.deepEqual(indexTerms(once.join(' ')), once);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('search snippets', () => {
  const q = (text: string) => parseQuery(text);

  it('shows a short text whole, with every matching term highlighted', () => {
    assert.deepEqual(snippet('The South Wall needs a trellis.', q('wall trellis')), {
      snippet: 'The South Wall needs a trellis.',
      highlights: [
        [10, 14],
        [23, 30],
      ],
    });
  });

  it('counts highlights in code points, after emoji and other astral characters', () => {
    const text = '🌹😀 𝐀 Café crème';
    const { snippet: s, highlights } = snippet(text, q('cafe creme'));
    assert.deepEqual(highlights, [
      [5, 9],
      [10, 15],
    ]);
    assert.deepEqual(
      highlights.map(([a, b]) => Array.from(s).slice(a, b).join('')),
      ['Café', 'crème'],
    );
  });

  it('highlights prefixes, and a phrase only where its terms stand together', () => {
    const { snippet: s, highlights } = snippet('south of the wall; walled garden by the south wall', q('"south wall" gard*'));
    assert.deepEqual(
      highlights.map(([a, b]) => s.slice(a, b)),
      ['garden', 'south', 'wall'],
    );
  });

  it('highlights a CJK phrase character by character, and accents with their letters', () => {
    const { snippet: s, highlights } = snippet('私は東京に住む。Cafe\u0301!', q('東京 cafe'));
    assert.deepEqual(highlights.map(([a, b]) => Array.from(s).slice(a, b).join('')), ['東', '京', 'Cafe\u0301']);
  });

  it('makes each run of whitespace one space, and keeps offsets right', () => {
    assert.deepEqual(snippet('\n\n  first\tline\n\n\n  second \0 line  ', q('line')), {
      snippet: 'first line second line',
      highlights: [
        [6, 10],
        [18, 22],
      ],
    });
  });

  it('cuts a long text around the first match, at term boundaries, marking the cuts', () => {
    const text = `${'alpha beta gamma delta '.repeat(20)}the rose garden ${'epsilon zeta eta theta '.repeat(20)}`;
    const { snippet: s, highlights } = snippet(text, q('rose'), 60);
    assert.ok(s.startsWith('…') && s.endsWith('…'), s);
    const body = s.slice(1, -1);
    assert.ok(Array.from(body).length <= 60, s);
    assert.ok(text.includes(body), 'the window is the text itself');
    assert.match(body, /^(alpha|beta|gamma|delta)\b/, 'starts at a term');
    assert.match(body, /\b(epsilon|zeta|eta|theta)$/, 'ends after a term');
    const [[a, b]] = highlights as [[number, number]];
    assert.equal(s.slice(a, b), 'rose');
    assert.ok(a >= 10 && a <= 20, `context before the match: ${a}`);
  });

  it('fills the window with what comes before a match near the end', () => {
    const text = `${'alpha beta '.repeat(30)}the end rose`;
    const { snippet: s } = snippet(text, q('rose'), 40);
    assert.ok(s.startsWith('…') && s.endsWith('rose'), s);
    assert.ok(Array.from(s).length >= 35, s);
  });

  it('shows the start of the text when nothing matches, as for a query of filters alone', () => {
    const text = `Weekly notes. ${'word '.repeat(100)}`;
    const { snippet: s, highlights } = snippet(text, q('from:bea'), 30);
    assert.match(s, /^Weekly notes\. (word )*word…$/, 'from the start, cut after a whole term');
    assert.deepEqual(highlights, []);
    assert.deepEqual(snippet('short', q('absent')), { snippet: 'short', highlights: [] });
    assert.deepEqual(snippet('', q('absent')), { snippet: '', highlights: [] });
  });

  it('moves past a term before the match rather than cut a match that fits', () => {
    // Found by the property below: the window kept "x́ " before the match and cut "Caféwalled" at its end.
    const { snippet: s, highlights } = snippet('x\u0301 Caféwalled ', q('Caféwalled'), 12);
    assert.equal(s, '…Caféwalled');
    assert.deepEqual(highlights, [[1, 11]]);
  });

  it('cuts inside a term only when the term that matched is too long for the window', () => {
    const { snippet: s, highlights } = snippet(`key ${'x'.repeat(300)} end`, q('xxx*'), 50);
    assert.equal(s, `key ${'x'.repeat(46)}…`);
    assert.deepEqual(highlights, [[4, 50]]);
  });
});

const words = ['rose', 'Roses', 'wall', 'walled', 'South', 'Café', 'cafe', '東', '京', '🌹', '𝐀𝐁', 'x\u0301', 'ok'];
const snippetText = fc
  .array(fc.tuple(fc.constantFrom(...words), fc.constantFrom(' ', '  ', '\n\n', '-', '. ', '\t', '', '😀')), { maxLength: 60 })
  .map((ws) => ws.map(([w, s]) => w + s).join(''));
const snippetQuery = fc
  .array(fc.tuple(fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 2 }), fc.constantFrom('', '*'), fc.boolean()), { minLength: 1, maxLength: 3 })
  .map((parts) => parts.map(([ws, star, quoted]) => (quoted ? `"${ws.join(' ')}"${star}` : `${ws.join('')}${star}`)).join(' '));

/** Whether a term matches some term of a positive clause: exactly, or as the prefix a clause's last term is. */
function matchesClause(term: string, parsed: ParsedQuery): boolean {
  return parsed.include.some((c) => c.terms.some((want, j) => term === want || (c.prefix && j === c.terms.length - 1 && term.startsWith(want))));
}

/** Whether the clause matches somewhere in the terms: its terms together, in order. */
function occurs(all: string[], clause: ParsedQuery['include'][number]): boolean {
  const n = clause.terms.length;
  return all.some((_, k) =>
    clause.terms.every((want, j) => {
      const term = all[k + j];
      return term !== undefined && (clause.prefix && j === n - 1 ? term.startsWith(want) : term === want);
    }),
  );
}

describe('search snippets: properties', () => {
  it('highlights only matching terms, inside the snippet, in order, apart, in code points', () => {
    fc.assert(
      fc.property(snippetText, snippetQuery, fc.integer({ min: 10, max: 200 }), (text, query, width) => {
        let parsed: ParsedQuery;
        try {
          parsed = parseQuery(query);
        } catch {
          return;
        }
        const { snippet: s, highlights } = snippet(text, parsed, width);
        const chars = Array.from(s);
        const body = s.replace(/^…/, '').replace(/…$/, '');
        assert.ok(Array.from(body).length <= width, 'at most width code points besides the cut marks');
        assert.ok(text.replace(/\s+/g, ' ').includes(body), 'the snippet is the text, whitespace runs made one space');
        let previous = 0;
        for (const [a, b] of highlights) {
          assert.ok(previous <= a && a < b && b <= chars.length, JSON.stringify({ s, highlights }));
          previous = b;
          const span = chars.slice(a, b).join('');
          assert.ok(indexTerms(span).some((t) => matchesClause(t, parsed)), `highlighted ${JSON.stringify(span)} matches no clause`);
        }
        const all = indexTerms(text);
        if (!all.some((t) => matchesClause(t, parsed))) assert.deepEqual(highlights, []);
        if (parsed.include.some((c) => occurs(all, c))) assert.ok(highlights.length > 0, 'the first match is shown');
      }),
      { numRuns: 2000 },
    );
  });
});

describe('search snippets of Markdown', () => {
  it('reads the text a reader sees: syntax gone, links by their text, images by theirs, each block apart', () => {
    const markdown = [
      '## Trellis care',
      'Water **weekly**, _gently_ and ~~never~~ `twice`; see [the guide](https://x.test/guide "Guide").',
      '',
      '> quoted',
      '- one',
      '- two',
      '',
      '![a vine](vine.png) <b>raw</b> [ref][g] and a note[^1]',
      '',
      '| tool | use |',
      '|---|---|',
      '| shears | vines |',
      '',
      '```ts',
      'const trellis = 1;',
      '```',
      '',
      '[g]: https://x.test/g',
      '[^1]: The note.',
    ].join('\n');
    assert.equal(
      markdownPlainText(markdown).replace(/\s+/g, ' ').trim(),
      'Trellis care Water weekly, gently and never twice; see the guide. quoted one two a vine <b>raw</b> ref and a note tool use shears vines const trellis = 1; The note.',
    );
    // Blocks never run together into one word.
    assert.deepEqual(indexTerms(markdownPlainText('# Care\nWater')), ['care', 'water']);
  });

  it('reads text without Markdown syntax as written, but for whitespace, without parsing it', () => {
    const unit = fc.constantFrom(...'abc XYZ 019 é東\n\n\t  .,;:?\'"/()@$%^{}-+ 1'.split(''));
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 120 }), (text) => {
        const parsed = plainText(fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }));
        const flat = (t: string) => t.replace(/\s+/g, ' ').trim();
        const fast = markdownPlainText(text);
        if (fast === text) assert.equal(flat(fast), flat(parsed), JSON.stringify(text));
      }),
      { numRuns: 3000 },
    );
    assert.equal(markdownPlainText('a plain note, nothing more\n'), 'a plain note, nothing more\n');
    // Found by the property: a delimiter row with no pipe makes a one-column table.
    assert.equal(markdownPlainText('a\n:-'), 'a \n');
  });

  it('shows text nested too deep to parse as it is written', () => {
    assert.equal(markdownPlainText(`${'>'.repeat(100_000)} deep`), `${'>'.repeat(100_000)} deep`);
  });

  it('reads a long text only as far as its window, finding what lies past the first part read', () => {
    // Six terms a paragraph: the index holds the first 2,730 or so.
    const markdown = Array.from({ length: 5_000 }, (_, i) => `Paragraph ${i} of the **orchard** log.\n\n`).join('') + 'The *quokka* at the end.\n';
    const plain = markdownPlainText(markdown);
    for (const query of ['orchard', '"paragraph 2000"', 'paragraph 2500 log']) {
      assert.deepEqual(markdownSnippet(markdown, parseQuery(query)), snippet(plain, parseQuery(query)), query);
    }
    // Past what the index holds, a match can only have been found elsewhere: the text's start.
    const late = markdownSnippet(markdown, parseQuery('quokka'));
    assert.deepEqual(late.highlights, []);
    assert.ok(late.snippet.startsWith('Paragraph 0 of the orchard log.') && late.snippet.endsWith('…'), late.snippet);
  });
});
