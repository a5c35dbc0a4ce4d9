import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, openSync, fsyncSync, closeSync, renameSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import tar from 'tar-stream';

/**
 * A backup is one tar archive: the files it holds, then `manifest.json`, which
 * names every file with its size and SHA-256 digest. The manifest comes last,
 * so an archive cut short (a backup killed, a copy interrupted) has none and
 * is refused as incomplete; and it is written as `FILE.partial`, renamed to
 * FILE only once complete and on disk, so a backup that did not finish never
 * leaves a file under the name asked for.
 */
export const MANIFEST = 'manifest.json';
export const ARCHIVE_FORMAT = 'atrium-backup';
export const ARCHIVE_VERSION = 1;

export interface ManifestFile {
  /** Relative, `/`-separated: `atrium.db`, `gateway.db`, `data/webhook-sealing.key`. */
  path: string;
  bytes: number;
  sha256: string;
}

export interface Manifest {
  format: typeof ARCHIVE_FORMAT;
  version: typeof ARCHIVE_VERSION;
  created_ts: string;
  /** Where the host's database is: `sqlite` (the database is in the archive) or `postgres` (pg_dump holds it). */
  database: 'sqlite' | 'postgres';
  /** ATRIUM_BASE_URL of the host backed up: member ids and the webhook issuer are made from it. */
  base_url: string;
  /** The newest event in the database copied (SQLite), or in the database when the files were taken (PostgreSQL). */
  event_cursor: number | null;
  /** The newest migration the database had. */
  migration: string | null;
  files: ManifestFile[];
}

/** One file into the archive, under `path`, from `source` on disk (a snapshot that no longer changes). */
export interface ArchivedFile {
  path: string;
  source: string;
}

/** Thrown for an archive that restore must refuse; `message` says why in words for a person. */
export class ArchiveRefused extends Error {}

/** Writes the archive and answers its manifest. Nothing is left under `to` unless all of it was written. */
export async function writeArchive(
  to: string,
  files: readonly ArchivedFile[],
  about: Omit<Manifest, 'files' | 'format' | 'version'>,
  say: (line: string) => void = () => undefined,
): Promise<Manifest> {
  const partial = `${to}.partial`;
  const out = createWriteStream(partial, { flags: 'wx', mode: 0o600 });
  // Open before anything is said to be written: a refusal (the file exists) fails here, and a person reading along sees only true lines.
  await once(out, 'open');
  const pack = tar.pack();
  const written = pipeline(pack, out);
  const listed: ManifestFile[] = [];
  try {
    for (const file of files) {
      const bytes = statSync(file.source).size;
      say(`Writing ${file.path} (${bytes} bytes) to ${partial}…`);
      const hash = createHash('sha256');
      const entry = pack.entry({ name: file.path, size: bytes, mode: 0o600 });
      await pipeline(createReadStream(file.source), digesting(hash), entry);
      listed.push({ path: file.path, bytes, sha256: hash.digest('hex') });
    }
    const manifest: Manifest = { format: ARCHIVE_FORMAT, version: ARCHIVE_VERSION, ...about, files: listed };
    pack.entry({ name: MANIFEST, mode: 0o600 }, `${JSON.stringify(manifest, null, 2)}\n`);
    pack.finalize();
    await written;
    syncFile(partial);
    renameSync(partial, to);
    syncFile(dirname(to));
    return manifest;
  } catch (err) {
    pack.destroy();
    await written.catch(() => undefined);
    throw err;
  }
}

/**
 * Reads an archive into `into` (a new, empty directory), checking every file
 * against the manifest: all present, none extra, each of its size and digest.
 * Throws ArchiveRefused, saying what is wrong, for an archive cut short,
 * damaged or not ours.
 */
export async function readArchive(from: string, into: string): Promise<Manifest> {
  const extract = tar.extract();
  const source = createReadStream(from);
  const fed = pipeline(source, extract).catch((err: unknown) => {
    throw new ArchiveRefused(`${from} is incomplete or not a backup archive (${(err as Error).message})`);
  });
  const found = new Map<string, { bytes: number; sha256: string }>();
  let manifest: Manifest | undefined;
  try {
    for await (const entry of extract) {
      const name = entry.header.name;
      if (manifest !== undefined) throw new ArchiveRefused(`${from} has ${name} after its manifest, which comes last in a backup`);
      if (name === MANIFEST) {
        const chunks: Buffer[] = [];
        for await (const chunk of entry) chunks.push(chunk as Buffer);
        manifest = parseManifest(Buffer.concat(chunks).toString('utf8'), from);
        continue;
      }
      if (entry.header.type !== 'file' || !isSafePath(name)) throw new ArchiveRefused(`${from} holds ${JSON.stringify(name)}, which no backup holds`);
      if (found.has(name)) throw new ArchiveRefused(`${from} holds ${name} twice`);
      const target = join(into, name);
      mkdirSync(dirname(target), { recursive: true });
      const hash = createHash('sha256');
      let bytes = 0;
      await pipeline(
        entry,
        digesting(hash, (n) => (bytes += n)),
        createWriteStream(target, { flags: 'wx', mode: 0o600 }),
      );
      found.set(name, { bytes, sha256: hash.digest('hex') });
    }
  } catch (err) {
    source.destroy();
    await fed.catch(() => undefined);
    if (err instanceof ArchiveRefused) throw err;
    throw new ArchiveRefused(`${from} is incomplete or not a backup archive (${(err as Error).message})`);
  }
  await fed;
  if (manifest === undefined) throw new ArchiveRefused(`${from} is incomplete: it has no manifest, so the backup that wrote it did not finish`);
  for (const file of manifest.files) {
    const got = found.get(file.path);
    if (got === undefined) throw new ArchiveRefused(`${from} is incomplete: ${file.path} is missing`);
    if (got.bytes !== file.bytes || got.sha256 !== file.sha256) {
      throw new ArchiveRefused(`${from} is damaged: ${file.path} has ${got.bytes} bytes with SHA-256 ${got.sha256}, its manifest says ${file.bytes} bytes with ${file.sha256}`);
    }
    found.delete(file.path);
  }
  const extra = [...found.keys()];
  if (extra.length > 0) throw new ArchiveRefused(`${from} holds files its manifest does not list: ${extra.join(', ')}`);
  return manifest;
}

function parseManifest(text: string, from: string): Manifest {
  let parsed: Partial<Manifest>;
  try {
    parsed = JSON.parse(text) as Partial<Manifest>;
  } catch {
    throw new ArchiveRefused(`${from} has a manifest that is not JSON`);
  }
  if (parsed.format !== ARCHIVE_FORMAT) throw new ArchiveRefused(`${from} is not an Atrium backup`);
  if (parsed.version !== ARCHIVE_VERSION) throw new ArchiveRefused(`${from} is a backup of format version ${String(parsed.version)}; this Atrium reads version ${ARCHIVE_VERSION}`);
  if (!Array.isArray(parsed.files) || !parsed.files.every((f) => typeof f?.path === 'string' && isSafePath(f.path) && Number.isSafeInteger(f.bytes) && /^[0-9a-f]{64}$/.test(String(f.sha256)))) {
    throw new ArchiveRefused(`${from} has a manifest whose file list is malformed`);
  }
  if (parsed.database !== 'sqlite' && parsed.database !== 'postgres') throw new ArchiveRefused(`${from} has a manifest that names no database kind`);
  return parsed as Manifest;
}

/** Relative, without `..`, `.` or empty segments: nothing in an archive may land outside the directory restored into. */
function isSafePath(path: string): boolean {
  return path.length > 0 && path.length <= 255 && path.split('/').every((segment) => /^[A-Za-z0-9_][A-Za-z0-9._-]*$/.test(segment));
}

function digesting(hash: ReturnType<typeof createHash>, counted?: (n: number) => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      counted?.(chunk.length);
      done(null, chunk);
    },
  });
}

/** Flushes a file or directory to disk: a rename is durable only once the directory holding it is. */
export function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
