#!/usr/bin/env node
// Runs the whole test suite with Node's own test runner over the TypeScript
// sources (tsx loads them). Node 20's runner does not expand globs, so the
// files are listed here.
//
// Files run three at a time (ATRIUM_TEST_CONCURRENCY to change it). The
// runner's default is one fewer than the cores, which on a two-core machine
// is one: but most of a test file's time is spent waiting on a database, a
// child process or a browser, not on the CPU, and every file isolates itself
// (its own SQLite file or PostgreSQL schema, its own ports), so they overlap
// well. Measured on two cores: about 26 minutes one at a time, 11 three at a time.
//
// Each file gets at most ATRIUM_TEST_FILE_TIMEOUT_MS (15 minutes; the slowest
// takes about two), then fails by name and its process is ended: a test that
// hangs costs a quarter of an hour and says where, rather than holding the
// whole run until CI gives up on it.
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
const concurrency = process.env.ATRIUM_TEST_CONCURRENCY ?? '3';
const fileTimeout = process.env.ATRIUM_TEST_FILE_TIMEOUT_MS ?? String(15 * 60_000);
const args = ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, `--test-timeout=${fileTimeout}`, '--test-force-exit', '--test-reporter=spec'];
const result = spawnSync(process.execPath, [...args, ...files], {
  stdio: 'inherit',
  env: { ...process.env, ATRIUM_CLI_SOURCES: '1' },
});
process.exit(result.status ?? 1);
