// `npm start` builds only what changed since the last build: the server
// (src/ into dist/) and the web app (web/ into web/dist/) each carry a stamp,
// a digest of every file their build reads, and are rebuilt when it differs
// or their output is missing. Rebuilding both on every start cost 17 to 25
// seconds before the first request. Content, not modification times, decides:
// a checkout or a copy touches times without changing anything.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const SKIP = new Set(['node_modules', 'dist', '.git']);

function files(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name) || entry.name.startsWith('.dist-')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...files(path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

function digest(paths) {
  const hash = createHash('sha256');
  for (const path of paths.flatMap((p) => (statSync(p).isDirectory() ? files(p) : [p])).sort()) {
    hash.update(relative(root, path)).update('\0').update(readFileSync(path)).update('\0');
  }
  return hash.digest('hex');
}

const shared = ['package.json', 'package-lock.json', 'tsconfig.json'].map((f) => join(root, f));
const builds = [
  { name: 'server', script: 'build:server', output: join(root, 'dist', 'cli', 'main.js'), stamp: join(root, 'dist', '.build-stamp'), inputs: [join(root, 'src'), join(root, 'tsconfig.build.json'), ...shared] },
  // The web app imports the contract's types and a few pure modules from src/.
  { name: 'web app', script: 'build:web', output: join(root, 'web', 'dist', 'index.html'), stamp: join(root, 'web', 'dist', '.build-stamp'), inputs: [join(root, 'web'), join(root, 'src'), ...shared] },
];

for (const build of builds) {
  const wanted = digest(build.inputs);
  const built = existsSync(build.output) && existsSync(build.stamp) ? readFileSync(build.stamp, 'utf8').trim() : undefined;
  if (built === wanted) {
    console.log(`The ${build.name} is built from these sources already.`);
    continue;
  }
  execFileSync('npm', ['run', '-s', build.script], { cwd: root, stdio: 'inherit' });
  writeFileSync(build.stamp, `${wanted}\n`);
}
