import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ClientError } from './errors.js';

/** What `atrium login` remembers: one host and the API key minted for this client there. */
export interface StoredCredentials {
  host: string;
  key: string;
  handle: string;
}

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ATRIUM_CONFIG_DIR) return env.ATRIUM_CONFIG_DIR;
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'atrium');
  return join(homedir(), '.config', 'atrium');
}

export function credentialsPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), 'credentials.json');
}

export function readCredentials(env: NodeJS.ProcessEnv = process.env): StoredCredentials | undefined {
  const path = credentialsPath(env);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ClientError(`cannot read ${path}: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ClientError(`${path} is not valid JSON; run "atrium logout" to remove it, then "atrium login"`);
  }
  const c = parsed as Partial<StoredCredentials> | null;
  if (!c || typeof c.host !== 'string' || typeof c.key !== 'string' || typeof c.handle !== 'string') {
    throw new ClientError(`${path} does not hold {host, key, handle}; run "atrium logout" to remove it, then "atrium login"`);
  }
  return { host: c.host, key: c.key, handle: c.handle };
}

/**
 * Writes the key so that no other user can read it at any moment: the
 * directory is 0700, the file is created 0600 under a temporary name and
 * renamed over the old one, so a crash never leaves a half-written file.
 */
export function writeCredentials(credentials: StoredCredentials, env: NodeJS.ProcessEnv = process.env): string {
  return writePrivateJson(credentialsPath(env), credentials, env);
}

/** What `atrium sign-in` remembers: a sign-in session for the few powers an API key does not carry. */
export interface StoredSession {
  host: string;
  handle: string;
  token: string;
  expires_ts: string;
}

export function sessionPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), 'session.json');
}

export function writeSession(session: StoredSession, env: NodeJS.ProcessEnv = process.env): string {
  return writePrivateJson(sessionPath(env), session, env);
}

/**
 * The stored session, unless it is missing or unreadable (a session is only a
 * convenience, never an error). Its expiry is the server's to judge: an expired
 * one is answered 401, which says to sign in again.
 */
export function readSession(env: NodeJS.ProcessEnv = process.env): StoredSession | undefined {
  let parsed: Partial<StoredSession> | null;
  try {
    parsed = JSON.parse(readFileSync(sessionPath(env), 'utf8')) as Partial<StoredSession> | null;
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed.host !== 'string' || typeof parsed.token !== 'string' || typeof parsed.handle !== 'string') return undefined;
  return { host: parsed.host, handle: parsed.handle, token: parsed.token, expires_ts: String(parsed.expires_ts) };
}

export function removeSession(env: NodeJS.ProcessEnv = process.env): boolean {
  try {
    rmSync(sessionPath(env));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new ClientError(`cannot remove ${sessionPath(env)}: ${(err as Error).message}`);
  }
}

function writePrivateJson(path: string, value: unknown, env: NodeJS.ProcessEnv): string {
  const dir = configDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  restrictDirectory(dir);
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(value, null, 2)}\n`);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw err;
  }
  closeSync(fd);
  try {
    // The umask cannot widen 0600, but an odd one could narrow it; make it exact.
    chmodSync(temp, 0o600);
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  return path;
}

/** Returns whether there was anything to forget. */
export function removeCredentials(env: NodeJS.ProcessEnv = process.env): boolean {
  const path = credentialsPath(env);
  try {
    rmSync(path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new ClientError(`cannot remove ${path}: ${(err as Error).message}`);
  }
}

/**
 * An existing directory of ours that others can read is tightened; a directory
 * that belongs to someone else (ATRIUM_CONFIG_DIR pointed at a shared place)
 * is left alone, since the file itself is 0600 anyway.
 */
function restrictDirectory(dir: string): void {
  if (process.platform === 'win32') return;
  const st = statSync(dir);
  if ((st.mode & 0o077) !== 0 && st.uid === process.getuid?.()) chmodSync(dir, 0o700);
}
