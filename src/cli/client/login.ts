import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { normaliseHost, resolveHost, send, type Schemas, type Target } from './api.js';
import { credentialsPath, readCredentials, removeCredentials, writeCredentials } from './credentials-file.js';
import { ClientError } from './errors.js';
import { printJson } from './output.js';

type CreatedActivation = Pick<Schemas['ClientActivation'], 'code' | 'activation_url' | 'expires_ts'> & { poll_secret: string; poll_interval_seconds: number };

export interface LoginOptions {
  host?: string;
  clientName?: string;
  browser: boolean;
  json?: boolean;
}

/**
 * Browser-mediated client activation (protocol: Client activation): the
 * human approves in a browser where they are signed in, and this client
 * receives a separately revocable API key through the poll. The session
 * itself never leaves the browser.
 */
export async function login(opts: LoginOptions): Promise<void> {
  // Creating and polling are anonymous: no key is sent, and a broken credentials file is about to be replaced.
  const previous = safeRead();
  const host = resolveHost(opts.host, process.env, () => previous);
  const target: Target = { host, token: undefined, tokenSource: 'none' };
  const { body: activation } = await send(target, (api) =>
    api.POST('/v0/client-activations', { body: { client_name: opts.clientName ?? defaultClientName() } }),
  );

  // In --json mode stdout is for the result only.
  const out = opts.json ? process.stderr : process.stdout;
  // On a terminal the code stands out in bold inside a box; pipes and logs get the plain line.
  const code = out.isTTY
    ? [`    ┌${'─'.repeat(activation.code.length + 2)}┐`, `    │ \x1b[1m${activation.code}\x1b[22m │`, `    └${'─'.repeat(activation.code.length + 2)}┘`]
    : [`    ${activation.code}`];
  const opened = opts.browser && browserAllowed() && openBrowser(activation.activation_url);
  out.write(
    [
      opened ? 'Opening this page in your browser; if it does not appear, open it yourself:' : 'Open this page in a browser where you are signed in:',
      '',
      `    ${activation.activation_url}`,
      '',
      'Approve only if the page shows this code:',
      '',
      ...code,
      '',
      '',
    ].join('\n'),
  );

  const answer = await waitForApproval(target, activation);
  if (!answer.key || !answer.member) throw new ClientError('the host approved the activation but sent no key');
  const path = writeCredentials({ host: target.host, key: answer.key, handle: answer.member.handle });
  if (opts.json) {
    printJson({ host: target.host, handle: answer.member.handle, member: answer.member, credentials_file: path });
    return;
  }
  process.stdout.write(`Logged in to ${target.host} as ${answer.member.handle}. The key is stored in ${path}.\n`);
  if (previous && previous.key !== answer.key) {
    process.stdout.write(
      `The previous key (for ${previous.handle} on ${previous.host}) was forgotten but still works until revoked ` +
        '("atrium credentials revoke", with a sign-in session).\n',
    );
  }
  if (process.env.ATRIUM_TOKEN) {
    process.stdout.write('Note: ATRIUM_TOKEN is set and takes precedence over the stored key.\n');
  }
}

async function waitForApproval(target: Target, activation: CreatedActivation) {
  const indicator = waitingIndicator(activation.expires_ts);
  // Without this, Ctrl-C would leave the spinner's half-drawn line behind.
  const cancel = () => {
    indicator.stop();
    process.stderr.write('atrium: login cancelled; nothing was stored\n');
    process.exit(130);
  };
  process.once('SIGINT', cancel);
  try {
    let wait = activation.poll_interval_seconds;
    for (;;) {
      await sleep(Math.max(1, wait) * 1000);
      const { body } = await send(target, (api) =>
        api.POST('/v0/client-activations/{code}/poll', { params: { path: { code: activation.code } }, body: { poll_secret: activation.poll_secret } }),
      );
      if (body.status === 'approved') return body;
      if (body.status === 'expired') {
        throw new ClientError(`activation ${activation.code} expired before it was approved; run "atrium login" again`);
      }
      wait = body.retry_after_seconds;
    }
  } finally {
    process.off('SIGINT', cancel);
    indicator.stop();
  }
}

/** A spinner with the time left on a terminal; a single plain line for logs and pipes. */
function waitingIndicator(expiresTs: string): { stop(): void } {
  const err = process.stderr;
  if (!err.isTTY) {
    err.write('Waiting for approval...\n');
    return { stop() {} };
  }
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  const expires = Date.parse(expiresTs);
  let i = 0;
  const draw = () => {
    const left = Math.max(0, Math.round((expires - Date.now()) / 1000));
    const clock = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`;
    err.write(`\r\x1b[K${frames[i++ % frames.length]} Waiting for approval in the browser (${clock} left, Ctrl-C to cancel)`);
  };
  draw();
  const timer = setInterval(draw, 100);
  return {
    stop() {
      clearInterval(timer);
      err.write('\r\x1b[K');
    },
  };
}

function defaultClientName(): string {
  return `atrium CLI on ${hostname() || 'this computer'}`.slice(0, 128);
}

function flag(value: string | undefined): boolean {
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

/** No browser in CI, when asked not to, or on a Linux machine without a display (e.g. over SSH). */
export function browserAllowed(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): boolean {
  if (flag(env.CI) || flag(env.ATRIUM_NO_BROWSER)) return false;
  if (platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) return false;
  return true;
}

/** Best effort: the URL is printed anyway, so any failure to open it is ignored. */
function openBrowser(url: string): boolean {
  const [command, args]: [string, string[]] =
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['explorer.exe', [url]] : ['xdg-open', [url]];
  try {
    const child = spawn(command, args, { detached: true, stdio: 'ignore' });
    child.on('error', () => {});
    child.unref();
    return true;
  } catch {
    return false;
  }
}

function safeRead() {
  try {
    return readCredentials();
  } catch {
    return undefined;
  }
}

export function logout(opts: { host?: string } = {}): void {
  const stored = safeRead();
  if (opts.host !== undefined && stored && normaliseHost(opts.host) !== normaliseHost(stored.host)) {
    process.stdout.write(`Not logged in to ${normaliseHost(opts.host)}: the stored key is for ${stored.host}, and stays.\n`);
    return;
  }
  const removed = removeCredentials();
  if (!removed) {
    process.stdout.write('Not logged in: there was no stored key.\n');
  } else if (stored) {
    process.stdout.write(
      `Logged out of ${stored.host}: the key of ${stored.handle} was removed from ${credentialsPath()}.\n` +
        'It still works until revoked ("atrium credentials revoke ID" with a sign-in session, or the web app).\n',
    );
  } else {
    process.stdout.write(`Removed ${credentialsPath()}.\n`);
  }
  if (process.env.ATRIUM_TOKEN) process.stdout.write('Note: ATRIUM_TOKEN is still set in your environment.\n');
}
