import { createInterface } from 'node:readline';
import { normaliseHost, resolveHost, send, type Target } from './api.js';
import { readCredentials, readSession, removeSession, sessionPath, writeSession } from './credentials-file.js';
import { ClientError } from './errors.js';
import { printJson } from './output.js';

export interface SignInOptions {
  host?: string;
  email?: string;
  json?: boolean;
}

/**
 * `atrium sign-in`: the e-mail code flow, typed in the terminal. The session
 * it starts is kept next to the key from `atrium login` (0600, in the config
 * directory) and used only for what an API key may not do: review policy,
 * role assignments and credentials (docs/cli.md).
 */
export async function signIn(opts: SignInOptions): Promise<void> {
  // The host `atrium login` stored, unless told otherwise: sign-in finds the same host as every other command.
  const host = resolveHost(opts.host, process.env, storedQuietly);
  const target: Target = { host, token: undefined, tokenSource: 'none' };
  const prompt = linePrompt();
  try {
    const email = (opts.email ?? (await prompt.question('E-mail address: '))).trim();
    if (email === '') throw new ClientError('an e-mail address is needed to sign in');
    await send(target, (api) => api.POST('/v0/sign-in/email', { body: { email } }));
    process.stderr.write(`If ${email} belongs to a member of ${host}, a sign-in code is on its way (it works for 10 minutes).\n`);
    const code = (await prompt.question('Code from the e-mail: ')).trim();
    if (code === '') throw new ClientError('no code was entered; nothing was stored');
    const { body } = await send(target, (api) => api.POST('/v0/sign-in/verify', { body: { email, code, session_token: 'body' } }));
    if (body.token === undefined) throw new ClientError(`${host} started a session but sent no token; nothing was stored`);
    const path = writeSession({ host, handle: body.member.handle, token: body.token, expires_ts: body.expires_ts });
    if (opts.json) return printJson({ host, handle: body.member.handle, expires_ts: body.expires_ts, session_file: path });
    process.stdout.write(
      `Signed in to ${host} as ${body.member.handle} until ${body.expires_ts}. The session is stored in ${path} and used only ` +
        'where an API key is refused (review policy, roles, credentials); "atrium sign-out" ends it.\n',
    );
  } finally {
    prompt.close();
  }
}

/**
 * Asks on stderr and reads answers from stdin, a line each. Lines that arrive
 * before their question (a script piping its answers in) wait in order rather
 * than being lost, as they would be with readline's own `question`.
 */
function linePrompt(): { question(text: string): Promise<string>; close(): void } {
  const lines = createInterface({ input: process.stdin, terminal: false });
  const ready: string[] = [];
  const waiting: Array<(line: string) => void> = [];
  let ended = false;
  lines.on('line', (line) => (waiting.length > 0 ? waiting.shift()!(line) : ready.push(line)));
  lines.on('close', () => {
    ended = true;
    for (const resolve of waiting.splice(0)) resolve('');
  });
  return {
    question(text) {
      process.stderr.write(text);
      if (ready.length > 0) return Promise.resolve(ready.shift()!);
      if (ended) return Promise.resolve('');
      return new Promise((resolve) => waiting.push(resolve));
    },
    close: () => lines.close(),
  };
}

/** Ends the stored session on the server and forgets it. */
export async function signOut(opts: { host?: string }): Promise<void> {
  const stored = readSession();
  if (!stored || (opts.host && normaliseHost(opts.host) !== normaliseHost(stored.host))) {
    removeSession();
    process.stdout.write('Not signed in: there was no stored session.\n');
    return;
  }
  try {
    await send({ host: stored.host, token: undefined, tokenSource: 'none', session: stored.token }, (api) => api.POST('/v0/sign-out'));
  } finally {
    removeSession();
  }
  process.stdout.write(`Signed out of ${stored.host}: the session of ${stored.handle} has ended and ${sessionPath()} is removed.\n`);
}

/** A broken credentials file is no reason to refuse a sign-in: it only suggests a host. */
function storedQuietly() {
  try {
    return readCredentials();
  } catch {
    return undefined;
  }
}
