import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Two modules that import each other, written where the project's own lint
 * configuration applies (test/), and linted with it: the circle is refused
 * by name, so none can land unnoticed.
 */
describe('lint: import circles', () => {
  const dir = join(ROOT, 'test', `cycle-probe-${process.pid}`);
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses two modules that import each other, and accepts imports that point one way', { timeout: 120_000 }, async () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'a.ts'), "import { b } from './b.js';\n\nexport const a = (): number => b() + 1;\n");
    writeFileSync(join(dir, 'b.ts'), "import { a } from './a.js';\n\nexport const b = (): number => (a.length > 0 ? 1 : 0);\n");
    writeFileSync(join(dir, 'c.ts'), "export const c = 1;\n");
    writeFileSync(join(dir, 'd.ts'), "import { c } from './c.js';\n\nexport const d = c + 1;\n");

    const eslint = new ESLint({ cwd: ROOT });
    const results = await eslint.lintFiles(['a.ts', 'b.ts', 'c.ts', 'd.ts'].map((name) => join(dir, name)));
    const cycles = (name: string) =>
      results.find((result) => result.filePath.endsWith(name))!.messages.filter((message) => message.ruleId === 'import-x/no-cycle');

    assert.equal(cycles('a.ts').length, 1);
    assert.equal(cycles('b.ts').length, 1);
    assert.match(cycles('a.ts')[0]!.message, /cycle/i);
    assert.equal(cycles('c.ts').length, 0);
    assert.equal(cycles('d.ts').length, 0);
  });
});
