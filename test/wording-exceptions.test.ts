import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const TEST_DIR = fileURLToPath(new URL('.', import.meta.url));

const ASSERT_ON = String.raw`assert\.(?:match|doesNotMatch|equal|notEqual|strictEqual)\(\s*`;
/** What a detail or a CLI's stderr is reached by: `res.body.detail`, `meta['atrium/detail']`, `result.stderr`, `body.detail ?? ''`. */
const WORDS = String.raw`(?!typeof\b)[^,;\n]*?(?:detail|stderr)['"\]]*!?(?:\s*\?\?\s*'')?`;
/** A helper that answers a detail: `assertError` itself, or one named for it (`detailOf`, `assertDetailOnly`). */
const DETAIL_HELPER = String.raw`(?:assertError|\w*[dD]etail\w*)\(`;

const FORMS: RegExp[] = [
  // assert.match(res.body.detail, …), assert.equal(result.stderr, …), but not assert.equal(result.stderr, '')
  new RegExp(`${ASSERT_ON}${WORDS}\\s*,(?!\\s*''\\s*[,)])`),
  // assert.match(assertError(res, code), …)
  new RegExp(`${ASSERT_ON}${DETAIL_HELPER}`),
  // /…/.test(res.body.detail)
  new RegExp(String.raw`\.test\(\s*[^()\n]*?detail['"\]]*\s*\)`),
  // result.stderr.includes(…), (out + stderr).includes(…), stderr.includes(res.body.detail)
  new RegExp(String.raw`\b(?:detail|stderr)\)?\s*\.(?:includes|startsWith|endsWith)\(`),
  // assert.deepEqual(res.body, { detail: 'internal server error' })
  new RegExp(String.raw`assert\.deepEqual\([^;]*?\bdetail:\s*['"\x60]`),
];

/**
 * The lines of a test file that assert on the words of an error, as far as a
 * regular expression can tell: an assertion whose subject is a detail, the
 * detail `assertError` (or a helper named for the detail) answers, a variable
 * holding that answer, or a command's stderr; a regular expression tested on
 * a detail; `includes` on one; a body compared whole with its detail written
 * out. A detail only named in an assertion's message (`res.body?.detail`
 * after the values compared) or checked for its type is not its wording.
 */
function wordingAssertions(source: string): string[] {
  const held = [...source.matchAll(new RegExp(String.raw`(?:const|let)\s+(\w+)\s*=\s*${DETAIL_HELPER}`, 'g'))].map((m) => m[1]!);
  const forms = [...FORMS, ...held.map((name) => new RegExp(`${ASSERT_ON}${name}\\s*[,)]`))];
  // A statement may run over several lines, so each is judged whole.
  return source.split(/;\s*\n/).flatMap((statement) => {
    const found = forms.map((form) => form.exec(statement)).find((match) => match !== null);
    if (!found) return [];
    const end = statement.indexOf('\n', found.index);
    return [statement.slice(statement.lastIndexOf('\n', found.index) + 1, end === -1 ? undefined : end).trim()];
  });
}

/** The test files the reasons in the comment above `assertError` (its bullets) name. */
function listedFiles(): Set<string> {
  const source = readFileSync(`${TEST_DIR}support/errors.ts`, 'utf8');
  const end = source.indexOf('export function assertError');
  const comment = source.slice(source.lastIndexOf('/**', end), end);
  const reasons = comment.slice(comment.indexOf('\n * - '));
  return new Set([...reasons.matchAll(/[\w-]+\.test\.ts/g)].map((m) => m[0]));
}

describe('the wording exceptions listed above assertError', () => {
  it('recognises the forms a wording assertion takes, and not a detail used as a message or a type', () => {
    const found = [
      'assert.match(res.body.detail, /name/);',
      'assert.equal(\n  byAgent.body.detail,\n  "merge tasks always need",\n);',
      "assert.match(result.body.detail ?? '', /loopback/);",
      "assert.equal(meta['atrium/detail'], 'member newbie is pending approval');",
      'assert.match(result.stderr, /not logged in/);',
      "assert.match(assertError(res, 'validation_failed'), /status/);",
      "assert.equal(detailOf(tooLarge, 'body_too_large'), rest.body.detail);",
      "const words = assertError(res, 'validation_failed');\nassert.match(words, /field/);",
      'losers.every((r) => r.status === 409 && /stale/.test(r.body.detail));',
      'assert.ok(refused.stderr.includes(sessionOnly.body.detail));',
      "assert.deepEqual(res.body, { detail: 'internal server error' });",
    ];
    for (const source of found) assert.equal(wordingAssertions(source).length, 1, source);
    const passed = [
      'assert.equal(res.status, 201, res.body?.detail);',
      "assert.equal(typeof res.body.detail, 'string');",
      "assert.deepEqual(Object.keys(res.body), ['detail']);",
      "assertError(res, 'validation_failed');",
      "assert.equal(assertRefusal(refused, 403), 'session_required');",
      "assert.deepEqual(res.body, { code: 'unauthorized', detail: res.body.detail });",
      'assert.equal(result.code, 0, result.stderr);',
      "assert.equal(back.stderr, '');",
    ];
    for (const source of passed) assert.deepEqual(wordingAssertions(source), [], source);
  });

  it('names every test file that asserts on the words of an error, and only files that exist', () => {
    const listed = listedFiles();
    // This file holds examples of the forms, not assertions on an error.
    const files = readdirSync(TEST_DIR).filter((name) => name.endsWith('.test.ts') && name !== 'wording-exceptions.test.ts');
    for (const name of listed) assert.ok(files.includes(name), `${name} is listed above assertError but is no test file`);
    const unlisted = files.flatMap((name) => {
      const lines = wordingAssertions(readFileSync(`${TEST_DIR}${name}`, 'utf8'));
      return lines.length > 0 && !listed.has(name) ? [`${name}: ${lines.join(' | ')}`] : [];
    });
    assert.deepEqual(unlisted, [], 'assert the code instead, or list the file and its reason above assertError in test/support/errors.ts');
  });
});
