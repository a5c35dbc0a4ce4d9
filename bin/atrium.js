#!/usr/bin/env node
// Runs the compiled CLI (npm run build). ATRIUM_CLI_BUILD names another
// compiled tree to run instead: the test runner compiles the sources afresh
// into a temporary directory for every run, so tests never exercise a stale
// build. In a development checkout without a build, or when
// ATRIUM_CLI_SOURCES=1, runs the TypeScript sources through tsx.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = join(process.env.ATRIUM_CLI_BUILD || join(root, 'dist'), 'cli', 'main.js');
let entry = built;
if (process.env.ATRIUM_CLI_BUILD) {
  if (!existsSync(built)) throw new Error(`ATRIUM_CLI_BUILD names no compiled CLI: ${built} is missing`);
} else if (!existsSync(built) || process.env.ATRIUM_CLI_SOURCES === '1') {
  const { register } = await import('tsx/esm/api');
  register();
  entry = join(root, 'src', 'cli', 'main.ts');
}
const { main } = await import(pathToFileURL(entry).href);
const code = await main(process.argv);
// `serve` keeps the process alive through its server; every other command ends here.
// A failure ends the process outright: something started before it (a worker, a
// pool) must not keep a failed command alive with its error already printed.
if (code !== 0) process.exit(code);
if (!process.argv.slice(2).includes('serve')) process.exitCode = code;
