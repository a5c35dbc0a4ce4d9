import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import pg from 'pg';
import { fts5Match, tsquery } from '../src/search/match-syntax.js';
import { MAX_QUERY_PARTS, parseQuery, type ParsedQuery } from '../src/search/query-language.js';
import { indexTerms } from '../src/search/text.js';
import { AtriumError } from '../src/shared/errors.js';

/** The parsed query's fields a case cares about; the rest must be empty. */
function parsed(overrides: Partial<ParsedQuery>): ParsedQuery {
  return { include: [], exclude: [], authors: [], places: [], kinds: [], directOnly: false, createdBefore: null, createdAfter: null, ...overrides };
}
const word = (...terms: string[]) => ({ terms, prefix: false });
const prefix = (...terms: string[]) => ({ terms, prefix: true });

/** Asserts `q` is refused as `search_query_invalid`; returns the detail. */
function refused(q: string): string {
  try {
    parseQuery(q);
  } catch (err) {
    assert.ok(err instanceof AtriumError, `${JSON.stringify(q)}: ${String(err)}`);
    assert.equal(err.code, 'search_query_invalid', JSON.stringify(q));
    return err.detail;
  }
  assert.fail(`${JSON.stringify(q)} was not refused`);
}

describe('search query language: what q says', () => {
  const cases: Array<[string, Partial<ParsedQuery>]> = [
    ['trellis', { include: [word('trellis')] }],
    ['Trellis SOUTH', { include: [word('trellis'), word('south')] }],
    ['trel*', { include: [prefix('trel')] }],
    ['trel**', { include: [prefix('trel')] }],
    ['foo-*', { include: [word('foo')] }],
    ['*foo', { include: [word('foo')] }],
    ['fo*o', { include: [word('fo', 'o')] }],
    ['"south wall"', { include: [word('south', 'wall')] }],
    ['"south wa"*', { include: [prefix('south', 'wa')] }],
    ['"south wa*"', { include: [prefix('south', 'wa')] }],
    ['"south wall', { include: [word('south', 'wall')] }],
    ['say "south   wall" now', { include: [word('say'), word('south', 'wall'), word('now')] }],
    ['foo"bar baz"qux', { include: [word('foo'), word('bar', 'baz'), word('qux')] }],
    ['foo-bar', { include: [word('foo', 'bar')] }],
    ['東京', { include: [word('東', '京')] }],
    ['東京*', { include: [prefix('東', '京')] }],
    ['Café ＡＢＣ ΟΔΟΣ', { include: [word('cafe'), word('abc'), word('οδοσ')] }],
    ['trellis -draft', { include: [word('trellis')], exclude: [word('draft')] }],
    ['trellis --draft', { include: [word('trellis')], exclude: [word('draft')] }],
    ['trellis -"old plan"', { include: [word('trellis')], exclude: [word('old', 'plan')] }],
    ['trellis -dra*', { include: [word('trellis')], exclude: [prefix('dra')] }],
    ['trellis - -- -"" -!!', { include: [word('trellis')] }],
    ['trellis trellis Trellis', { include: [word('trellis')] }],
    ['trellis -trellis', { include: [word('trellis')], exclude: [word('trellis')] }],
    ['from:bea', { authors: ['bea'] }],
    ['from:@Bea from:cal from:bea', { authors: ['bea', 'cal'] }],
    ['FROM:bea', { authors: ['bea'] }],
    ['in:garden', { places: [{ space: 'garden', channel: null }] }],
    ['in:Garden/General in:garden in:orchard', { places: [{ space: 'garden', channel: 'general' }, { space: 'garden', channel: null }, { space: 'orchard', channel: null }] }],
    ['kind:message', { kinds: ['message'] }],
    ['kind:task kind:Resource kind:task', { kinds: ['task', 'resource'] }],
    ['is:dm', { directOnly: true }],
    ['IS:DM', { directOnly: true }],
    ['before:2024-03-01', { createdBefore: '2024-03-01T00:00:00.000Z' }],
    ['after:2024-02-29', { createdAfter: '2024-02-29T23:59:59.999Z' }],
    ['before:2024-03-01 before:2024-01-31 after:2023-01-01 after:2023-06-30', { createdBefore: '2024-01-31T00:00:00.000Z', createdAfter: '2023-06-30T23:59:59.999Z' }],
    ['after:9999-12-31', { createdAfter: '9999-12-31T23:59:59.999Z' }],
    ['before:2000-02-29', { createdBefore: '2000-02-29T00:00:00.000Z' }],
    ['from:bea -draft', { authors: ['bea'], exclude: [word('draft')] }],
    ['x:y', { include: [word('x', 'y')] }],
    ['http://example.com/a', { include: [word('http', 'example', 'com', 'a')] }],
    ['note:', { include: [word('note')] }],
    ['NEAR(', { include: [word('near')] }],
    ['NEAR(a b) OR c AND NOT d', { include: [word('near', 'a'), word('b'), word('or'), word('c'), word('and'), word('not'), word('d')] }],
    ["it's \\ 'quoted' \\\\", { include: [word('it', 's'), word('quoted')] }],
    ['trellis\0south\u0007wall\u2028\u00a0x', { include: [word('trellis'), word('south'), word('wall'), word('x')] }],
    ['trellis 🌹 && :*', { include: [word('trellis')] }],
  ];
  for (const [q, want] of cases) {
    it(`reads ${JSON.stringify(q)}`, () => assert.deepEqual(parseQuery(q), parsed(want)));
  }

  it('cuts a word longer than a term may be exactly as the index cuts it', () => {
    const long = 'x'.repeat(300);
    assert.deepEqual(parseQuery(long).include, [word(indexTerms(long)[0]!)]);
    assert.deepEqual(parseQuery(`${long}*`).include, [prefix('x'.repeat(64))]);
  });

  it('allows 500 characters and as many as 32 words and operators together', () => {
    assert.equal(parseQuery('a'.repeat(500)).include.length, 1);
    assert.equal(parseQuery('🌹'.repeat(499) + 'a').include.length, 1, 'characters are code points, not UTF-16 units');
    const parts = Array.from({ length: MAX_QUERY_PARTS }, (_, k) => (k % 2 ? `w${k}` : 'from:bea'));
    assert.equal(parseQuery(parts.join(' ')).include.length, MAX_QUERY_PARTS / 2);
  });
});

describe('search query language: refusals', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['empty q', '', /empty/],
    ['501 characters', 'a'.repeat(501), /501.*500/],
    ['501 code points of emoji', '🌹'.repeat(501), /501.*500/],
    ['a lone quote', '"', /nothing to search for/i],
    ['a star', '*', /nothing to search for/i],
    ['a hyphen', '-', /nothing to search for/i],
    ['&&', '&&', /nothing to search for/i],
    [':*', ':*', /nothing to search for/i],
    ['backslashes', '\\\\ \\', /nothing to search for/i],
    ['NUL', '\0', /nothing to search for/i],
    ['control characters and spaces', '\0\u0001 \t\r\n\u007f\u0085', /nothing to search for/i],
    ['punctuation and emoji', '(*) "" [?] 🌹👍🏽', /nothing to search for/i],
    ['words to leave out alone', '-draft -"old plan"', /leave out/],
    // No 200 known operators fit in 500 characters (is:dm is the shortest): the length is the limit that names them.
    ['200 operators', 'is:dm '.repeat(200), /500/],
    ['33 operators', 'is:dm '.repeat(33), /32/],
    ['33 words', Array.from({ length: 33 }, (_, k) => `w${k}`).join(' '), /32/],
    ['a bad kind', 'kind:foo', /kind:foo/],
    ['an empty kind', 'trellis kind:', /kind:/],
    ['is: other than dm', 'is:open', /is:open/],
    ['before: out of the calendar', 'before:2024-13-45', /before:2024-13-45/],
    ['before: not a date', 'before:yesterday', /before:yesterday/],
    ['before: the 31st of April', 'before:2024-04-31', /before:2024-04-31/],
    ['before: the 29th of February in 1900', 'before:1900-02-29', /before:1900-02-29/],
    ['after: with a time', 'after:2024-01-01T00:00', /after:2024-01-01T00:00/],
    ['after: without leading zeros', 'after:2024-1-1', /after:2024-1-1/],
    ['an empty in:', 'in:', /in:/],
    ['in: not a slug', 'in:My_Space', /in:My_Space/],
    ['in: with an empty channel', 'in:garden/', /in:garden\//],
    ['in: with two slashes', 'in:garden/a/b', /in:garden\/a\/b/],
    ['an empty from:', 'from:', /from:/],
    ['from: followed by a quote', 'from:"bea"', /from:/],
    ['from: too short for a handle', 'from:ab', /from:ab/],
    ['from: not a handle', 'from:bea!', /from:bea!/],
    ['a negated operator', 'trellis -from:bea', /-from/],
  ];
  for (const [label, q, detail] of cases) {
    it(`refuses ${label}`, () => assert.match(refused(q), detail));
  }
});

describe('search query language: compiled for each database', () => {
  it('writes FTS5 strings and a tsquery literal', () => {
    const q = parseQuery('trellis "south wa"* 東京 -draft -"old plan" from:bea');
    assert.deepEqual(fts5Match(q), { match: '"trellis" "south wa"* "東 京"', exclude: '"draft" OR "old plan"' });
    assert.equal(tsquery(q), "'trellis' & ('south' <-> 'wa':*) & ('東' <-> '京') & !'draft' & !('old' <-> 'plan')");
  });

  it('writes nothing for a query of filters alone, and only the exclusions beside filters', () => {
    assert.deepEqual(fts5Match(parseQuery('from:bea')), { match: null, exclude: null });
    assert.equal(tsquery(parseQuery('from:bea')), null);
    assert.deepEqual(fts5Match(parseQuery('from:bea -draft')), { match: null, exclude: '"draft"' });
    assert.equal(tsquery(parseQuery('from:bea -draft')), "!'draft'");
  });

  it('quotes as each syntax requires, should a term ever hold a quote or a backslash', () => {
    const odd = parsed({ include: [word(`a"b`, "c'd"), prefix('e\\f')] });
    assert.equal(fts5Match(odd).match, '"a""b c\'d" "e\\f"*');
    assert.equal(tsquery(odd), "('a\"b' <-> 'c''d') & 'e\\\\f':*");
  });
});

/** Strings built from the query syntax's own pieces, the words of several scripts, and anything at all. */
const queryish = fc
  .array(
    fc.oneof(
      fc.constantFrom('"', '*', '-', ':', '(', ')', '^', '+', '{', '}', '\\', "'", '&', '|', '!', '<->', ':*', '\0', ' ', '  ', '\t', '\n', '/', '@'),
      fc.constantFrom('from:', 'in:', 'kind:', 'is:', 'before:', 'after:', 'x:', 'NEAR', 'AND', 'OR', 'NOT', 'near/3', 'col:'),
      fc.constantFrom('bea', 'garden', 'garden/general', 'message', 'task', 'dm', '2024-02-29', '2024-13-45', 'Café', 'ΟΔΟΣ', 'ＡＢＣ'),
      fc.constantFrom('東京', 'ภาษาไทย', 'नमस्ते', '한국어', '🌹', '👍🏽', 'e\u0301', 'ǅ', '½', '⑴', 'İ', 'ﷺ', '\uD800', '\uDC00', 'x'.repeat(70)),
      fc.string({ unit: 'binary', maxLength: 6 }),
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(''));
const anyQuery = fc.oneof(queryish, fc.string({ unit: 'binary', maxLength: 60 }), fc.string({ maxLength: 60 }));

/** Runs parseQuery, answering undefined for a refusal, which must be search_query_invalid. */
function parseOrRefuse(q: string): ParsedQuery | undefined {
  try {
    return parseQuery(q);
  } catch (err) {
    assert.ok(err instanceof AtriumError && err.code === 'search_query_invalid', `${JSON.stringify(q)}: ${String(err)}`);
    return undefined;
  }
}

/** A folded term stands for itself: its own text gives exactly that term again. */
const isTerm = (text: string) => /^[\p{L}\p{N}]+$/u.test(text) && indexTerms(text).join('\n') === text;

const FTS5_STRING = /"([^"]*)"(\*?)/gu;
const TS_LEXEME = /'([^']*)'(:\*)?/gu;

function assertFts5Shape(compiled: string | null, joiner: string, clauses: ParsedQuery['include']): void {
  if (clauses.length === 0) return assert.equal(compiled, null);
  assert.ok(compiled !== null);
  const strings = [...compiled.matchAll(FTS5_STRING)];
  assert.equal(strings.map((m) => m[0]).join(joiner), compiled, 'nothing but quoted strings and the joiner');
  strings.forEach((m, k) => {
    const words = m[1]!.split(' ');
    assert.ok(words.every(isTerm), `only folded terms inside quotes: ${m[0]}`);
    assert.deepEqual(words, clauses[k]!.terms);
    assert.equal(m[2] === '*', clauses[k]!.prefix);
  });
}

function assertTsqueryShape(compiled: string | null, q: ParsedQuery): void {
  const clauses = [...q.include, ...q.exclude];
  if (clauses.length === 0) return assert.equal(compiled, null);
  assert.ok(compiled !== null);
  const parts = compiled.split(' & ');
  assert.equal(parts.length, clauses.length);
  parts.forEach((part, k) => {
    const clause = clauses[k]!;
    const negated = k >= q.include.length;
    let body = part;
    if (negated) {
      assert.ok(body.startsWith('!'), part);
      body = body.slice(1);
    }
    if (clause.terms.length > 1) {
      assert.ok(body.startsWith('(') && body.endsWith(')'), part);
      body = body.slice(1, -1);
    }
    const lexemes = body.split(' <-> ');
    assert.equal(lexemes.length, clause.terms.length, part);
    lexemes.forEach((lexeme, j) => {
      const m = /^'([^']*)'(:\*)?$/u.exec(lexeme);
      assert.ok(m && isTerm(m[1]!), `only folded terms inside quotes: ${lexeme}`);
      assert.equal(m[1], clause.terms[j]);
      assert.equal(m[2] === ':*', clause.prefix && j === clause.terms.length - 1);
    });
  });
}

describe('search query language: properties', () => {
  it('reads any string or refuses it as search_query_invalid, never anything else', () => {
    fc.assert(fc.property(anyQuery, (q) => void parseOrRefuse(q)), { numRuns: 3000 });
  });

  it('compiles only quoted folded terms and its own operators', () => {
    fc.assert(
      fc.property(anyQuery, (q) => {
        const p = parseOrRefuse(q);
        if (!p) return;
        const { match, exclude } = fts5Match(p);
        assertFts5Shape(match, ' ', p.include);
        assertFts5Shape(exclude, ' OR ', p.exclude);
        assertTsqueryShape(tsquery(p), p);
        assert.equal([...(tsquery(p) ?? '').matchAll(TS_LEXEME)].length, [...p.include, ...p.exclude].reduce((n, c) => n + c.terms.length, 0));
      }),
      { numRuns: 3000 },
    );
  });

  it('compiles FTS5 strings a real FTS5 table accepts', () => {
    const db = new Database(':memory:');
    try {
      db.exec(
        "CREATE VIRTUAL TABLE search_terms USING fts5(title, body, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0')",
      );
      db.prepare('INSERT INTO search_terms(rowid, title, body) VALUES (1, ?, ?)').run('south wall', 'trellis 東 京 cafe');
      const find = db.prepare('SELECT rowid FROM search_terms WHERE search_terms MATCH ?');
      const leaveOut = db.prepare('SELECT rowid FROM search_terms WHERE rowid NOT IN (SELECT rowid FROM search_terms WHERE search_terms MATCH ?)');
      assert.deepEqual(find.all(fts5Match(parseQuery('"south wa"* 東京 Café')).match), [{ rowid: 1 }], 'a match is found');
      fc.assert(
        fc.property(anyQuery, (q) => {
          const p = parseOrRefuse(q);
          if (!p) return;
          const { match, exclude } = fts5Match(p);
          if (match !== null) find.all(match);
          if (exclude !== null) leaveOut.all(exclude);
        }),
        { numRuns: 3000 },
      );
    } finally {
      db.close();
    }
  });

  describe('on PostgreSQL', { skip: process.env.ATRIUM_TEST_DATABASE_URL ? false : 'ATRIUM_TEST_DATABASE_URL is not set' }, () => {
    let client: pg.Client;
    before(async () => {
      client = new pg.Client({ connectionString: process.env.ATRIUM_TEST_DATABASE_URL });
      await client.connect();
    });
    after(() => client.end());

    it('compiles tsquery literals PostgreSQL accepts as they stand', async () => {
      const found = await client.query<{ hit: boolean }>("SELECT $1::tsvector @@ $2::tsquery AS hit", [
        "'south':1A 'wall':2A 'trellis':3 '東':4 '京':5 'cafe':6",
        tsquery(parseQuery('"south wa"* 東京 Café')),
      ]);
      assert.equal(found.rows[0]?.hit, true, 'a match is found');
      await fc.assert(
        fc.asyncProperty(anyQuery, async (q) => {
          const p = parseOrRefuse(q);
          const literal = p && tsquery(p);
          if (!literal) return;
          await client.query('SELECT $1::tsquery', [literal]);
        }),
        { numRuns: 1000 },
      );
    });

    it('finds the same records as FTS5 does, for the same terms', async () => {
      // Both indexes hold what the design says: FTS5 the terms joined by
      // spaces, title and body apart; PostgreSQL a tsvector literal of the same
      // terms with positions, the body's after a gap so no phrase spans the two.
      const db = new Database(':memory:');
      db.exec(
        "CREATE VIRTUAL TABLE search_terms USING fts5(title, body, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0')",
      );
      const insert = db.prepare('INSERT INTO search_terms(rowid, title, body) VALUES (?, ?, ?)');
      const clear = db.prepare('DELETE FROM search_terms');
      const tsvector = (title: string, body: string) => {
        const lexemes = new Map<string, string[]>();
        const add = (terms: string[], first: number, weight: string) =>
          terms.forEach((term, k) => lexemes.set(term, [...(lexemes.get(term) ?? []), `${first + k}${weight}`]));
        const titleTerms = indexTerms(title);
        add(titleTerms, 1, 'A');
        add(indexTerms(body), titleTerms.length + 2, '');
        return [...lexemes].map(([term, positions]) => `'${term.replaceAll("'", "''")}':${positions.join(',')}`).join(' ');
      };
      const vocabulary = fc.constantFrom('rose', 'Roses', 'rosa', 'wall', 'walled', 'South', 'sud', '東', '京', 'Café', 'cafe', 'ΟΔΟΣ', 'οδος', 'x');
      const text = fc.array(fc.tuple(vocabulary, fc.constantFrom(' ', '-', '. ', '\n', '')), { maxLength: 8 }).map((ws) => ws.map(([w, s]) => w + s).join(''));
      const queryPart = fc.tuple(fc.constantFrom('', '-'), fc.array(vocabulary, { minLength: 1, maxLength: 3 }), fc.constantFrom('', '*'), fc.boolean());
      const query = fc
        .array(queryPart, { minLength: 1, maxLength: 4 })
        .map((parts) => parts.map(([sign, words, star, quoted]) => (quoted ? `${sign}"${words.join(' ')}"${star}` : `${sign}${words.join('')}${star}`)).join(' '));
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(text, text), { minLength: 1, maxLength: 12 }), query, async (docs, q) => {
          const p = parseOrRefuse(`${q} kind:message`);
          if (!p) return;
          clear.run();
          docs.forEach(([title, body], k) => insert.run(k + 1, indexTerms(title).join(' '), indexTerms(body).join(' ')));
          const { match, exclude } = fts5Match(p);
          const candidates = match === null ? 'SELECT rowid FROM search_terms' : 'SELECT rowid FROM search_terms WHERE search_terms MATCH ?';
          const sqlite = db
            .prepare(`${candidates}${exclude === null ? '' : `${match === null ? ' WHERE' : ' AND'} rowid NOT IN (SELECT rowid FROM search_terms WHERE search_terms MATCH ?)`} ORDER BY rowid`)
            .all(...[match, exclude].filter((s) => s !== null))
            .map((r) => (r as { rowid: number }).rowid);
          const postgres = await client.query<{ id: number }>(
            'SELECT id FROM unnest($1::int[], $2::text[]::tsvector[]) AS d(id, terms) WHERE terms @@ $3::tsquery ORDER BY id',
            [docs.map((_, k) => k + 1), docs.map(([title, body]) => tsvector(title, body)), tsquery(p)],
          );
          assert.deepEqual(sqlite, postgres.rows.map((r) => r.id), `${q}\n${JSON.stringify(docs)}`);
        }),
        { numRuns: 300 },
      );
      db.close();
    });
  });
});
