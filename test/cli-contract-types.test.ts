import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * The CLI is typed by the generated contract (src/client/openapi.ts): a field
 * the contract renames fails the CLI's typecheck, so it never reaches users
 * as `undefined` on their screen. The CLI's sources and what they import are
 * copied beside a contract with one response field renamed, and the copy is
 * type-checked as the project's own settings do; the unmodified contract
 * passes the same check. No database is involved.
 */

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
/** What the CLI's client sources import from outside src/cli/client. */
const SHARED = ['src/webhooks/verifier.ts', 'src/webhooks/debounce.ts'];

function typecheck(project: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [tsc, '-p', project], { encoding: 'utf8' }, (_err, stdout, stderr) =>
      resolve({ code: child.exitCode, output: stdout + stderr }),
    );
  });
}

/** A copy of the CLI's client sources with the given contract, and a tsconfig to check them. */
function cliWithContract(dir: string, contract: string): string {
  const cli = join(dir, 'src/cli/client');
  mkdirSync(cli, { recursive: true });
  for (const file of readdirSync(join(root, 'src/cli/client'))) cpSync(join(root, 'src/cli/client', file), join(cli, file));
  for (const file of SHARED) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(join(root, file), join(dir, file));
  }
  mkdirSync(join(dir, 'src/client'), { recursive: true });
  writeFileSync(join(dir, 'src/client/openapi.ts'), contract);
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  const { compilerOptions } = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
  const config = { compilerOptions: { ...compilerOptions, noEmit: true, sourceMap: false, types: ['node'] }, include: ['src'] };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(config));
  return dir;
}

describe("the CLI's types come from the contract", () => {
  let dir: string;
  let contract: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'atrium-cli-types-'));
    contract = readFileSync(join(root, 'src/client/openapi.ts'), 'utf8');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('type-checks against the committed contract', async () => {
    const result = await typecheck(cliWithContract(join(dir, 'as-is'), contract));
    assert.equal(result.code, 0, result.output);
  });

  it('fails to type-check when the contract renames a field the CLI prints', async () => {
    // The Space schema's `pinned_resources`, which `atrium spaces get` and the pin commands print.
    const space = /\n {8}Space: \{\n[\s\S]*?\n {8}\};/.exec(contract);
    assert.ok(space && space[0].includes(' pinned_resources: string[];'), 'the contract has a Space schema with pinned_resources');
    const renamed = contract.replace(space[0], space[0].replace(' pinned_resources: string[];', ' pinned_entries: string[];'));
    const result = await typecheck(cliWithContract(join(dir, 'renamed'), renamed));
    assert.notEqual(result.code, 0, 'a renamed field must fail the typecheck');
    assert.match(result.output, /src\/cli\/client\/\S+\.ts\(\d+,\d+\): error TS\d+: .*pinned_resources/);
  });
});
