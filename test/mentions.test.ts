import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { mentionCandidates } from '../src/messages/mentions.js';

type Row = [markdown: string, expected: string[]];

const corpus: Record<string, Row[]> = {
  plain: [
    ['hi @alice', ['alice']],
    ['@alice', ['alice']],
    ['@alice\n@bob', ['alice', 'bob']],
    ['line one\n@alice on line two', ['alice']],
    ['no mentions here', []],
    ['', []],
    ['@123 and @a1-b2-c3', ['123', 'a1-b2-c3']],
  ],
  'multiple, deduplicated, first-appearance order': [
    ['@carol @alice @bob @alice @carol', ['carol', 'alice', 'bob']],
    ['@bob\n\n# @alice\n\n- @bob\n- @carol', ['bob', 'alice', 'carol']],
    ['`@alice` then @bob then @alice', ['bob', 'alice']],
  ],
  case: [
    ['@Alice', ['alice']],
    ['@ALICE and @alice and @aLiCe', ['alice']],
    ['@Alice-Bob', ['alice-bob']],
  ],
  'punctuation around handles': [
    ['@alice.', ['alice']],
    ['@alice...', ['alice']],
    ['@alice, @bobby; @carol: @dave? @erin!', ['alice', 'bobby', 'carol', 'dave', 'erin']],
    ["@alice's review", ['alice']],
    ['(@alice) [@bob] {@carol} "@dave" \'@erin\'', ['alice', 'bob', 'carol', 'dave', 'erin']],
    ['@alice-', ['alice']],
    ['@alice--', ['alice']],
    ['cc:@alice #@bob =@carol', ['alice', 'bob', 'carol']],
    ['@alice/@bob', ['alice']],
    ['@alice.\n@bob.', ['alice', 'bob']],
  ],
  'not a mention: boundaries': [
    ['bob@example', []],
    ['a@@b', []],
    ['@@alice', []],
    ['x.@alice y+@bob z-@carol w_@dave', []],
    ['x.test/@alice', []],
    ['@', []],
    ['@ alice', []],
    ['@-alice', []],
    ['@alice--bob', []],
    ['@ab', []],
    [`@${'a'.repeat(33)}`, []],
    [`@${'a'.repeat(30)}-bc`, []],
    ['@alice_b', []],
    ['@alice_', []],
    ['@alice.bob', []],
    ['@alice@social.test', []],
    ['@types/node', []],
  ],
  'longest handles': [
    [`@${'a'.repeat(32)}`, ['a'.repeat(32)]],
    [`@${'a'.repeat(32)}.`, ['a'.repeat(32)]],
    ['@abc', ['abc']],
  ],
  'Unicode around handles': [
    ['«@alice»', ['alice']],
    ['„@alice“', ['alice']],
    ['@alice—ok', ['alice']],
    ['@alice…', ['alice']],
    ['é@alice', []],
    ['алиса@bob', []],
    ['@aliceé', []],
    ['@alice\u0301', []],
    ['请@alice看一下', ['alice']],
    ['@aliceさん、@bob님', ['alice', 'bob']],
    ['👋@alice👋 @bob🎉', ['alice', 'bob']],
    ['👩🏽‍💻@alice', ['alice']],
    ['＠alice', []],
    ['\u00a0@alice\u00a0', ['alice']],
  ],
  'emphasis, strong, strikethrough': [
    ['*@alice*', ['alice']],
    ['***@alice***', ['alice']],
    ['_@bob_', ['bob']],
    ['__@bob__', ['bob']],
    ['~~@alice~~', ['alice']],
    ["**@alice**'s", ['alice']],
    ['@alice**!**', ['alice']],
    ['*bob*@alice', []],
    ['@ali*ce*', ['alice']],
    ['@alice*b*', ['aliceb']],
  ],
  'block containers': [
    ['# @alice', ['alice']],
    ['@alice\n===', ['alice']],
    ['## Ask @alice ##', ['alice']],
    ['- @alice\n- @bob\n  - @carol', ['alice', 'bob', 'carol']],
    ['1. @alice\n2. [ ] @bob', ['alice', 'bob']],
    ['> @alice\n> > @bob', ['alice', 'bob']],
    ['> - quoted item @alice\nlazy @bob', ['alice', 'bob']],
  ],
  'tables (GFM)': [
    ['| a | b |\n|---|---|\n| @alice | `@bob` |', ['alice']],
    ['| @alice | x |\n|---|---|\n| y | @carol |', ['alice', 'carol']],
    ['| a |\n|---|\n| @alice\\|@bob |', ['alice', 'bob']],
  ],
  'code spans': [
    ['`@alice`', []],
    ['`` `@alice` ``', []],
    ['``a ` @alice``', []],
    ['`@alice` @bob', ['bob']],
    ['``@alice`', ['alice']],
    ['`x`@alice', []],
    ['@alice`x`', []],
    ['@alice `x`', ['alice']],
  ],
  'code blocks': [
    ['```\n@alice\n```', []],
    ['~~~md\n@alice\n~~~\n@bob', ['bob']],
    ['```\n@alice', []],
    ['    @alice', []],
    ['text\n\n    @alice\n\n@bob', ['bob']],
    ['- item\n\n      @alice', []],
  ],
  'raw HTML': [
    ['<span>@alice</span>', []],
    ['<span>@alice</span> and @bob', ['bob']],
    ['<b>*@alice*</b>', []],
    ['<!-- @alice -->', []],
    ['x <!-- @alice --> @bob', ['bob']],
    ['<div>\n@alice\n</div>', []],
    ['<div>\n\n@alice\n\n</div>', ['alice']],
    ['<details><summary>@alice</summary>@bob</details>', []],
    ['<a href="https://x.test/@alice">@bob</a>', []],
    ['@alice<br>@bob', ['alice', 'bob']],
    ['<img src="x.png" alt="@alice"> @bob', ['bob']],
    ['@alice<sup>2</sup>', ['alice']],
    ['<b>@alice', []],
  ],
  'links and images': [
    ['[@alice](https://x.test/@bob)', []],
    ['[docs](https://x.test/@bob "@carol")', []],
    ['[see @alice](u) @bob', ['bob']],
    ['[x](u)@alice', []],
    ['[(x)](u)@alice', ['alice']],
    ['![@alice](x.png)', []],
    ['![@alice][img]\n\n[img]: x.png', []],
    ['[![@alice](x.png)](u) @bob', ['bob']],
  ],
  'reference links and definitions': [
    ['[@alice][ref]\n\n[ref]: https://x.test/@bob "title @carol"', []],
    ['[@alice]\n\n[@alice]: https://x.test', []],
    ['[ref]: https://x.test/@bob "title @carol"', []],
    ['[@alice][missing]', ['alice']],
  ],
  autolinks: [
    ['<https://x.test/@alice>', []],
    ['<https://x.test/@alice> @bob', ['bob']],
    ['https://x.test/@alice', []],
    ['see https://x.test/@alice. ok @bob', ['bob']],
    ['www.x.test/@alice', []],
    ['(www.x.test/@alice) @bob', ['bob']],
  ],
  'e-mail addresses': [
    ['bob@x.test', []],
    ['<bob@x.test>', []],
    ['mailto:bob@x.test', []],
    ['alice.b+tag@x.test', []],
    ['@alice.b@x.test', []],
    ['write to bob@x.test or @carol', ['carol']],
  ],
  'escapes and character references': [
    ['\\@alice', []],
    ['\\@alice @bob', ['bob']],
    ['\\\\@alice', ['alice']],
    ['\\@@alice', []],
    ['&#64;alice', []],
    ['&#x40;alice &#0064;bob &commat;carol', []],
    ['@alice&#46;bob', []],
    ['@alice&amp;bob', ['alice']],
    ['@ali\\-ce', ['ali-ce']],
    ['bob\\@x.test @carol', ['carol']],
    ['**\\@alice** @bob', ['bob']],
    // NUL marks a hidden `@` internally; the parser turns a typed one into U+FFFD.
    ['\u0000@alice &#0;@bob', ['alice', 'bob']],
  ],
  'line breaks': [
    ['@alice  \n@bob', ['alice', 'bob']],
    ['@alice\\\n@bob', ['alice', 'bob']],
    ['x  \n@alice', ['alice']],
  ],
  footnotes: [
    ['Thanks @alice[^1]\n\n[^1]: and @bob', ['alice', 'bob']],
    ['x[^@alice]\n\n[^@alice]: note', []],
    ['[^1]: note by @alice\n\ntext[^1]', ['alice']],
  ],
};

describe('mentionCandidates: corpus', () => {
  for (const [group, rows] of Object.entries(corpus)) {
    it(group, () => {
      for (const [markdown, expected] of rows) {
        assert.deepEqual(mentionCandidates(markdown), expected, `for ${JSON.stringify(markdown)}`);
      }
    });
  }

  it('reads a realistic message', () => {
    const markdown = readFileSync(new URL('fixtures/mentions/handover.md', import.meta.url), 'utf8');
    assert.deepEqual(mentionCandidates(markdown), ['olivia', 'hana', 'runner-2', 'bob', 'quinn', 'tanvi', 'victor', 'walt', 'yara', 'irene']);
  });

  it('does not throw on a body nested deeper than the parser can follow', () => {
    const result = mentionCandidates(`${'>'.repeat(10_000)} @alice`);
    // Depends on the stack size: either the parser copes, or nobody is notified.
    assert.ok(result.length === 0 || (result.length === 1 && result[0] === 'alice'), JSON.stringify(result));
  });
});

interface SpecExample {
  markdown: string;
  html: string;
  number: number;
  section: string;
}

// The spec writes tabs as → (its own test runner substitutes them).
const specExamples = (createRequire(import.meta.url)('commonmark-spec') as { tests: SpecExample[] }).tests.map((example) => ({
  ...example,
  markdown: example.markdown.replaceAll('→', '\t'),
  html: example.html.replaceAll('→', '\t'),
}));

/** Text a reader sees in the spec's expected HTML, without code, links and images. */
function proseOf(html: string): string {
  return html
    .replace(/<pre[\s>][\s\S]*?<\/pre>/g, ' ')
    .replace(/<code[\s>][\s\S]*?<\/code>/g, ' ')
    .replace(/<a\s[\s\S]*?<\/a>/g, ' ')
    .replace(/<img\s[^>]*>/g, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<[^>]*>/g, '');
}

function appearsInProse(prose: string, handle: string): boolean {
  return new RegExp(`(?<![\\p{L}\\p{N}_.+\\-@/])@${handle}-*(?![A-Za-z0-9_])`, 'iu').test(prose);
}

function assertValidCandidates(candidates: string[], context: string): void {
  assert.equal(new Set(candidates).size, candidates.length, `duplicates ${context}`);
  for (const handle of candidates) {
    assert.match(handle, /^[a-z0-9]+(?:-[a-z0-9]+)*$/, context);
    assert.ok(handle.length >= 3 && handle.length <= 32, `length of ${handle} ${context}`);
  }
}

describe('mentionCandidates: CommonMark spec examples', () => {
  it(`parses all ${specExamples.length} examples; candidates occur only outside code and links`, () => {
    assert.ok(specExamples.length > 600);
    for (const example of specExamples) {
      const context = `in example ${example.number} (${example.section})`;
      const candidates = mentionCandidates(example.markdown);
      assertValidCandidates(candidates, context);
      const prose = proseOf(example.html);
      for (const handle of candidates) assert.ok(appearsInProse(prose, handle), `@${handle} ${context}`);
    }
  });

  it('with "foo" turned into "@foo", finds @foo only where the spec renders foo as prose', () => {
    // The spec has few `@`s, so its `foo`s become mentions. Skipped are
    // examples where the `@` would change the parse: `foo` inside angle
    // brackets (raw HTML, autolinks) and right after an emphasis delimiter
    // that follows punctuation (an `@` there changes which delimiters flank).
    let examined = 0;
    let found = 0;
    for (const example of specExamples) {
      if (!/foo/i.test(example.markdown) || /<[^>\n]*foo/i.test(example.markdown) || /[\p{P}\p{S}][*_]+foo/iu.test(example.markdown)) continue;
      examined++;
      const context = `in example ${example.number} (${example.section}) with @foo`;
      const candidates = mentionCandidates(example.markdown.replace(/foo/gi, '@$&'));
      assertValidCandidates(candidates, context);
      const prose = proseOf(example.html).replace(/foo/gi, '@$&');
      for (const handle of candidates) assert.ok(appearsInProse(prose, handle), `@${handle} ${context}`);
      if (candidates.length > 0) found++;
    }
    assert.ok(examined > 300, `examined ${examined}`);
    assert.ok(found > 200, `found mentions in ${found}`);
  });
});

/** mulberry32: a small seeded PRNG, so every run tests the same strings. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FRAGMENTS = [
  '@alice', '@Bob', '@carol-d', '@x', '@', '@@', `@${'a'.repeat(33)}`, '@ALICE', '@alice_b', '@alice.bob',
  'alice', 'x', ' ', ' ', '\n', '\n\n', '  \n', '\t', '`', '``', '```\n', '    ', '[', ']', '(', ')', '](u)', '[^1]', '[^1]: ',
  '<', '>', '> ', '<span>', '</span>', '<!--', '-->', '<br>', '\\', '\\@', '&#64;', '&amp;', '*', '**', '_', '~~', '|', '|---|',
  '- ', '1. ', '# ', '===', '![', 'https://x.test/', 'www.', 'bob@x.test', '.', '-', ':', "'", 'é', '请', '👋', '\u0301',
];

function randomMarkdown(random: () => number): string {
  const length = 1 + Math.floor(random() * 40);
  let markdown = '';
  for (let i = 0; i < length; i++) markdown += FRAGMENTS[Math.floor(random() * FRAGMENTS.length)]!;
  return markdown;
}

describe('mentionCandidates: generated Markdown', () => {
  const random = prng(0x5eed);
  const samples = Array.from({ length: 400 }, () => randomMarkdown(random));

  it('never throws and returns valid, deduplicated, lower-case handles', () => {
    let withMentions = 0;
    for (const markdown of samples) {
      const candidates = mentionCandidates(markdown);
      assertValidCandidates(candidates, `for ${JSON.stringify(markdown)}`);
      if (candidates.length > 0) withMentions++;
    }
    assert.ok(withMentions > 100, `mentions found in ${withMentions} samples`);
  });

  it('finds nothing once the text is inside a fenced code block', () => {
    for (const markdown of samples) {
      const longestRun = Math.max(0, ...(markdown.match(/`+/g) ?? []).map((run) => run.length));
      const fence = '`'.repeat(Math.max(3, longestRun + 1));
      assert.deepEqual(mentionCandidates(`${fence}\n${markdown}\n${fence}`), [], `for ${JSON.stringify(markdown)}`);
    }
  });

  it('finds the same handles whether or not the text is wrapped in a blockquote of its own', () => {
    let compared = 0;
    for (const markdown of samples) {
      // Only single-paragraph text: across blank lines the quote's laziness and
      // container rules legitimately change the structure.
      if (/\n|^[ \t]|^[>#|`~*_=-]|^\d+\./.test(markdown)) continue;
      compared++;
      assert.deepEqual(mentionCandidates(`> ${markdown}`), mentionCandidates(markdown), `for ${JSON.stringify(markdown)}`);
    }
    assert.ok(compared > 20, `compared ${compared}`);
  });
});
