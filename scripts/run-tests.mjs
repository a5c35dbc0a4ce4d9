#!/usr/bin/env node
// Runs the whole test suite with Node's own test runner over the TypeScript
// sources (tsx loads them). Node 20's runner does not expand globs, so the
// files are listed here.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'support' ? [] : testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const files = process.argv.length > 2 ? process.argv.slice(2) : testFiles('test').sort();
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files], {
  stdio: 'inherit',
  env: { ...process.env, ATRIUM_CLI_SOURCES: '1' },
});
process.exit(result.status ?? 1);
