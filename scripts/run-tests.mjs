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
// well.
//
// Each file gets at most ATRIUM_TEST_FILE_TIMEOUT_MS (15 minutes; the slowest
// takes a few), then fails by name and its process is ended: a test that
// hangs costs a quarter of an hour and says where, rather than holding the
// whole run until CI gives up on it.
//
// The tests start hundreds of `atrium` processes. Through tsx each one spent
// about two and a half seconds of CPU compiling the sources before doing
// anything (a compiled one needs about one), so before the files start, the
// sources are compiled once, in about a second (esbuild, the compiler tsx
// itself uses, with tsx's settings: the children run the same code the tests
// import), into a fresh temporary directory, and children run that
// (ATRIUM_CLI_BUILD, read by bin/atrium.js). Every run compiles anew and
// removes the directory when it ends, so no child runs a stale build. On a
// shared two-core machine this cut the CLI test files, on SQLite two at a
// time, from 1,526 s to 596 s.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { build } from 'esbuild';

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'support' ? [] : testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * Compiles src/ into `<temp>/dist`, module for module as `npm run build`
 * lays it out. The compiled code finds its neighbours by relative paths
 * (../../web/dist, ../../bin/atrium.js, node_modules up the tree), so the
 * temporary directory links to the checkout's own.
 */
async function compileCli() {
  const root = resolve('.');
  const dir = mkdtempSync(join(tmpdir(), 'atrium-test-build-'));
  try {
    await build({
      entryPoints: sources(join(root, 'src')),
      outbase: join(root, 'src'),
      outdir: join(dir, 'dist'),
      format: 'esm',
      platform: 'node',
      target: `node${process.versions.node}`,
      keepNames: true,
      sourcemap: true,
      logLevel: 'error',
    });
    for (const name of ['node_modules', 'bin', 'web', 'docs']) symlinkSync(join(root, name), join(dir, name), 'dir');
    copyFileSync(join(root, 'package.json'), join(dir, 'package.json'));
    return dir;
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * A certificate for `localhost`, made fresh for this run and trusted by every
 * test process (NODE_EXTRA_CA_CERTS is read when Node starts, so it must be
 * set here). OAuth clients identify themselves by an `https` URL, and the
 * official SDK accepts no other: the tests serve such documents on loopback
 * over real TLS, verified as any host would verify them.
 */
function testCertificate(dir) {
  const tls = join(dir, 'tls');
  mkdirSync(tls);
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost',
    '-keyout', join(tls, 'key.pem'), '-out', join(tls, 'cert.pem'),
  ], { stdio: 'ignore' });
  return tls;
}

// The runner starts files in the order given, so the longest start first and
// the short ones fill in around them, rather than one long file starting last
// and running on alone. Measured in a full run (both databases, three files at
// a time; the run prints its slowest files at the end, so keep this list by
// that): web-conversations 195 s, web-spaces 141, web-story 132, web-resources
// 101, web-search 91, web-tasks 75, cli 68, messages-cli 62, web-webhooks 65,
// web-edits 59, readme 55; the others come after them in name order.
const SLOWEST_FIRST = [
  'web-conversations',
  'web-spaces',
  'web-story',
  'web-resources',
  'web-search',
  'web-tasks',
  'cli',
  'web-webhooks',
  'messages-cli',
  'web-edits',
  'readme',
  'webhooks-listen',
  'webhooks-subscriptions-cli',
  'tasks-cli',
].map((name) => join('test', `${name}.test.ts`));

function slowestFirst(paths) {
  const rank = (path) => {
    const at = SLOWEST_FIRST.indexOf(path);
    return at === -1 ? SLOWEST_FIRST.length : at;
  };
  return paths.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

const files = process.argv.length > 2 ? process.argv.slice(2) : slowestFirst(testFiles('test'));
const concurrency = process.env.ATRIUM_TEST_CONCURRENCY ?? '3';
const fileTimeout = process.env.ATRIUM_TEST_FILE_TIMEOUT_MS ?? String(15 * 60_000);
const args = ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, `--test-timeout=${fileTimeout}`, '--test-force-exit', '--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=./scripts/test-file-times.mjs', '--test-reporter-destination=stdout'];
const buildDir = await compileCli();
const tls = testCertificate(buildDir);
const times = join(buildDir, 'file-times.jsonl');
const child = spawn(process.execPath, [...args, ...files], {
  stdio: 'inherit',
  env: {
    ...process.env,
    ATRIUM_CLI_BUILD: join(buildDir, 'dist'),
    ATRIUM_TEST_TLS_DIR: tls,
    NODE_EXTRA_CA_CERTS: join(tls, 'cert.pem'),
    ATRIUM_TEST_TIMES: times,
  },
});
// Ctrl-C reaches the test runner too (same process group); this process
// outlives it to remove the build.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  printSlowest(times);
  rmSync(buildDir, { recursive: true, force: true });
  process.exit(code ?? (signal ? 1 : 0));
});

/**
 * The files whose suites took longest, added up (they run one after another
 * within a file; files run several at a time, so the sum exceeds the run).
 */
function printSlowest(path) {
  if (!existsSync(path)) return;
  const byFile = new Map();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line) continue;
    const { file, ms } = JSON.parse(line);
    byFile.set(file, (byFile.get(file) ?? 0) + ms);
  }
  const total = [...byFile.values()].reduce((sum, ms) => sum + ms, 0);
  console.log(`\nSlowest test files (their suites added up; ${byFile.size} files, ${(total / 1000).toFixed(0)} s in all):`);
  for (const [file, ms] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    console.log(`${(ms / 1000).toFixed(1).padStart(8)} s  ${relative(process.cwd(), file)}`);
  }
}
