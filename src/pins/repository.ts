import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { devNull } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Reads files from the `main` branch of the repository at ATRIUM_REPOSITORY_PATH
 * (docs/configuration.md) through the git CLI: `ls-tree` and `cat-file` on git's object
 * store, never a working tree, so what is served is exactly what `main` holds
 * and uncommitted or ignored files never leak. Processes are started with
 * `spawn` and an argument vector (no shell), a time limit and an output cap.
 */

/** Largest repository file served or pinned; larger ones are "not text" for the front page. */
export const MAX_REPOSITORY_FILE_BYTES = 1024 * 1024;
const GIT_TIMEOUT_MS = 10_000;
const MAIN = 'refs/heads/main';

export type RepositoryFileState =
  | { state: 'text'; text: string; byteLength: number }
  | { state: 'missing' }
  /** A directory, symbolic link or submodule at that path: not a file. */
  | { state: 'not_file' }
  | { state: 'not_text'; why: string };

export interface MainSnapshot {
  /** The commit `main` pointed at when read; null when there is no readable `main`. */
  commit: string | null;
  files: Map<string, RepositoryFileState>;
}

/**
 * What a commit holds never changes, so file states are kept per (repository,
 * commit, paths): a front page with repository pins costs no git process while
 * `main` stays where it is. Bounded, oldest entry first out.
 */
const snapshots = new Map<string, Map<string, RepositoryFileState>>();
const SNAPSHOT_CACHE_ENTRIES = 256;

/** The state of each path on `main`, all read from one commit. */
export async function readMainFiles(repositoryPath: string, paths: readonly string[]): Promise<MainSnapshot> {
  const wanted = [...new Set(paths)];
  const gitDir = gitDirOf(repositoryPath);
  const commit = (await mainFromRefFiles(gitDir)) ?? (await mainFromGit(gitDir));
  if (commit === null || wanted.length === 0) {
    return { commit, files: new Map(wanted.map((path) => [path, { state: 'missing' }])) };
  }
  const key = `${gitDir}\n${commit}\n${[...wanted].sort().join('\n')}`;
  const cached = snapshots.get(key);
  if (cached) return { commit, files: new Map(cached) };
  const files = await readFilesAt(gitDir, commit, wanted);
  if (snapshots.size >= SNAPSHOT_CACHE_ENTRIES) snapshots.delete(snapshots.keys().next().value!);
  snapshots.set(key, files);
  return { commit, files: new Map(files) };
}

const COMMIT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/**
 * `main` read from git's own ref files (loose, then packed) without starting a
 * process; undefined when that is not conclusive (a symbolic ref, no such
 * file), and git itself is asked instead. Git replaces ref files by rename, so
 * a read never sees half of one.
 */
async function mainFromRefFiles(gitDir: string): Promise<string | undefined> {
  try {
    const loose = (await readFile(join(gitDir, MAIN), 'utf8')).trim();
    return COMMIT_ID.test(loose) ? loose : undefined;
  } catch {
    // Not a loose ref: look in packed-refs.
  }
  try {
    const packed = await readFile(join(gitDir, 'packed-refs'), 'utf8');
    const lines = packed.split('\n');
    const at = lines.findIndex((line) => line.endsWith(` ${MAIN}`));
    const id = at >= 0 ? lines[at]!.slice(0, lines[at]!.indexOf(' ')) : undefined;
    // A peeled line (`^…`) after the ref means it names a tag object, not a commit: let git decide.
    if (id === undefined || lines[at + 1]?.startsWith('^')) return undefined;
    return COMMIT_ID.test(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

async function mainFromGit(gitDir: string): Promise<string | null> {
  const head = await git(gitDir, ['rev-parse', '--verify', '--quiet', `${MAIN}^{commit}`], { maxBytes: 1024 });
  return head.code === 0 ? head.stdout.toString('utf8').trim() : null;
}

async function readFilesAt(gitDir: string, commit: string, wanted: string[]): Promise<Map<string, RepositoryFileState>> {
  const files = new Map<string, RepositoryFileState>();

  // Reading from the commit id rather than the branch name: every path comes from the same tree.
  const listing = await git(gitDir, ['--literal-pathspecs', 'ls-tree', '-z', '-l', '--full-tree', commit, '--', ...wanted], {
    maxBytes: 64 * 1024,
  });
  if (listing.code !== 0) throw new Error(`git ls-tree failed (${listing.code}): ${listing.stderr}`);
  const entries = parseLsTree(listing.stdout);

  const blobs: Array<{ path: string; oid: string }> = [];
  for (const path of wanted) {
    const entry = entries.get(path);
    if (!entry) files.set(path, { state: 'missing' });
    else if (entry.type !== 'blob' || (entry.mode !== '100644' && entry.mode !== '100755')) files.set(path, { state: 'not_file' });
    else if (entry.size > MAX_REPOSITORY_FILE_BYTES) {
      files.set(path, { state: 'not_text', why: `is larger than ${MAX_REPOSITORY_FILE_BYTES} bytes` });
    } else blobs.push({ path, oid: entry.oid });
  }
  if (blobs.length === 0) return files;

  const input = blobs.map((b) => `${b.oid}\n`).join('');
  const batch = await git(gitDir, ['cat-file', '--batch'], { input, maxBytes: blobs.length * (MAX_REPOSITORY_FILE_BYTES + 256) });
  if (batch.code !== 0) throw new Error(`git cat-file failed (${batch.code}): ${batch.stderr}`);
  const contents = parseBatch(batch.stdout);
  for (const { path, oid } of blobs) {
    const bytes = contents.get(oid);
    files.set(path, bytes === undefined ? { state: 'missing' } : decode(bytes));
  }
  return files;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Text means NUL-free, valid UTF-8 (protocol: Pins and the front page). */
function decode(bytes: Buffer): RepositoryFileState {
  if (bytes.includes(0)) return { state: 'not_text', why: 'contains a NUL byte' };
  try {
    return { state: 'text', text: UTF8.decode(bytes), byteLength: bytes.length };
  } catch {
    return { state: 'not_text', why: 'is not valid UTF-8' };
  }
}

/** A working tree's repository is its `.git`; a bare repository is the directory itself. */
function gitDirOf(repositoryPath: string): string {
  const root = resolve(repositoryPath);
  const dotGit = join(root, '.git');
  return existsSync(dotGit) ? dotGit : root;
}

interface TreeEntry {
  mode: string;
  type: string;
  oid: string;
  size: number;
}

/** `ls-tree -z -l`: `<mode> SP <type> SP <oid> SP+ <size> TAB <path> NUL`; paths are not quoted. */
function parseLsTree(out: Buffer): Map<string, TreeEntry> {
  const entries = new Map<string, TreeEntry>();
  for (const record of out.toString('utf8').split('\0')) {
    if (record === '') continue;
    const tab = record.indexOf('\t');
    const [mode, type, oid, size] = record.slice(0, tab).trim().split(/ +/);
    if (tab < 0 || !mode || !type || !oid || size === undefined) throw new Error(`unexpected git ls-tree output: ${record}`);
    entries.set(record.slice(tab + 1), { mode, type, oid, size: size === '-' ? 0 : Number(size) });
  }
  return entries;
}

/** `cat-file --batch`: `<oid> <type> <size> LF <bytes> LF` per object, or `<oid> missing LF`. */
function parseBatch(out: Buffer): Map<string, Buffer> {
  const objects = new Map<string, Buffer>();
  let at = 0;
  while (at < out.length) {
    const eol = out.indexOf(0x0a, at);
    if (eol < 0) throw new Error('truncated git cat-file output');
    const [oid, type, size] = out.subarray(at, eol).toString('utf8').split(' ');
    at = eol + 1;
    if (!oid || type === 'missing' || size === undefined) continue;
    const length = Number(size);
    if (type === 'blob') objects.set(oid, out.subarray(at, at + length));
    at += length + 1;
  }
  return objects;
}

interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/**
 * Runs git on the repository with an environment of its own: no inherited
 * GIT_* variables (a GIT_DIR or GIT_OBJECT_DIRECTORY of the server's would
 * redirect the read), no system or user configuration, no replace refs.
 * `--git-dir` also skips the repository discovery that would walk up from the
 * current directory.
 */
function git(gitDir: string, args: string[], opts: { input?: string; maxBytes: number }): Promise<GitResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('git', [`--git-dir=${gitDir}`, ...args], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        ...(process.env.HOME ? { HOME: process.env.HOME } : {}),
        LC_ALL: 'C',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: devNull,
        GIT_NO_REPLACE_OBJECTS: '1',
        GIT_OPTIONAL_LOCKS: '0',
        GIT_TERMINAL_PROMPT: '0',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: GIT_TIMEOUT_MS,
      killSignal: 'SIGKILL',
      windowsHide: true,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let overflow = false;
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > opts.maxBytes) {
        overflow = true;
        child.kill('SIGKILL');
        return;
      }
      chunks.push(chunk);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < 4096) stderr += chunk;
    });
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (overflow) return reject(new Error(`git ${args[0]} wrote more than ${opts.maxBytes} bytes`));
      if (code === null) return reject(new Error(`git ${args[0]} ended by ${signal ?? 'a signal'} (time limit ${GIT_TIMEOUT_MS} ms)`));
      resolvePromise({ code, stdout: Buffer.concat(chunks), stderr: stderr.trim() });
    });
    // git may exit before reading its input (a broken repository); that is its answer, not ours.
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input ?? '');
  });
}
