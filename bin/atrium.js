#!/usr/bin/env node
// Runs the compiled CLI (npm run build); in a development checkout without a
// build, or when ATRIUM_CLI_SOURCES=1 (the test runner sets it, so tests never
// exercise a stale build), runs the TypeScript sources through tsx.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = join(root, 'dist', 'cli', 'main.js');
let entry = built;
if (!existsSync(built) || process.env.ATRIUM_CLI_SOURCES === '1') {
  const { register } = await import('tsx/esm/api');
  register();
  entry = join(root, 'src', 'cli', 'main.ts');
}
const { main } = await import(pathToFileURL(entry).href);
const code = await main(process.argv);
// `serve` keeps the process alive through its server; every other command ends here.
if (code !== 0 || !process.argv.slice(2).includes('serve')) process.exitCode = code;
