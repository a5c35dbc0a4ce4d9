import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startSession } from '../src/identity/sessions.js';
import { CliProcess, CliRunner, type CliResult } from './support/cli.js';
import { startGateway, startUpstream, type DestinationEntry, type TestGateway, type Upstream } from './support/gateway.js';
import { outbox } from './support/mail.js';
import { freePort, startServer, type TestServer } from './support/server.js';

const README = fileURLToPath(new URL('../README.md', import.meta.url));
const GATEWAY_GUIDE = fileURLToPath(new URL('../docs/gateway.md', import.meta.url));
const BIN = fileURLToPath(new URL('../bin/atrium.js', import.meta.url));

/** The text of one section of a Markdown file, from its heading to the next heading of that level. */
function section(file: string, heading: string): string {
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf(`${heading}\n`);
  assert.ok(start >= 0, `${file} has a section ${heading}`);
  const level = heading.slice(0, heading.indexOf(' ') + 1);
  const end = text.indexOf(`\n${level}`, start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

/** The shell lines of a README section, in order, without comments, continued lines joined. */
function shellLines(heading: string): string[] {
  const lines: string[] = [];
  for (const block of section(README, heading).matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const raw of block[1]!.replace(/\\\n\s*/g, '').split('\n')) {
      const line = raw.replace(/\s+#.*$/, '').trim();
      if (line !== '') lines.push(line);
    }
  }
  return lines;
}

/** The first JSON block of a section of docs/gateway.md, parsed. */
function gatewayExample<T>(heading: string): T {
  const block = /```json\n([\s\S]*?)```/.exec(section(GATEWAY_GUIDE, heading));
  assert.ok(block, `docs/gateway.md shows a file under ${heading}`);
  return JSON.parse(block[1]!) as T;
}

/** The variables an `npm start` line sets before the command, by name. */
function startSettings(line: string): Map<string, string> {
  assert.match(line, /(^|\s)npm start$/, line);
  return new Map([...line.matchAll(/(\w+)=(\S+)\s/g)].map((m) => [m[1]!, m[2]!]));
}

/**
 * The README's first hour, run as printed against a real server: every command
 * is the README's own line, run by a shell, with `npx atrium` as the CLI under
 * test and the documented host replaced by this server. What a person does
 * outside the terminal (approving the login in a browser, reading a mailed
 * code, copying the agent's key) the test does the same way, through the API
 * and the outbox. Then the webhook and external-call sections, on the state the
 * first steps left (each step of the story needs the one before): the
 * receiver and the provider are on loopback, the provider's origin stands for
 * the documented one, and the gateway's files are docs/gateway.md's own.
 */
describe('README, as printed (sqlite)', () => {
  /** The provider's secret, which only the gateway holds. */
  const secret = 'weather-provider-secret';
  let server: TestServer;
  let cli: CliRunner;
  let upstream: Upstream;
  let gateway: TestGateway;
  let dir: string;
  /** What the README's `npm start` lines set, as this server runs with it. */
  const hostSettings = new Map<string, string>();
  const env: Record<string, string> = {};
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'atrium-readme-'));
    // The provider of docs/gateway.md's examples, on loopback: the same files, but its origin is this one.
    upstream = await startUpstream();
    const { destinations } = gatewayExample<{ destinations: DestinationEntry[] }>('## Destinations');
    const onLoopback = destinations.map((d) => ({ ...d, origins: d.origins.map((o) => (o === 'https://api.weather.example' ? upstream.origin : o)) }));
    writeFileSync(join(dir, 'connections.json'), JSON.stringify(gatewayExample('### Connections')));
    // The provider's key is given as the README's start line names it: the gateway finds it only if that is the variable the destination reads.
    const gatewayLine = startSettings(shellLines('## Make an approved external call').find((l) => l.endsWith('npm start'))!);
    const secrets = Object.fromEntries([...gatewayLine.keys()].filter((name) => !name.startsWith('ATRIUM_')).map((name) => [name, secret]));
    gateway = await startGateway({ destinations: onLoopback, env: secrets, inProcess: true });
    hostSettings.set('ATRIUM_EGRESS_ALLOW_CIDRS', '127.0.0.0/8');
    hostSettings.set('ATRIUM_GATEWAY_DESTINATIONS', 'destinations.json');
    hostSettings.set('ATRIUM_CREDENTIAL_CONNECTIONS', 'connections.json');
    for (const name of Object.keys(secrets)) hostSettings.set(name, '…');
    server = await startServer('sqlite', {
      env: {
        ATRIUM_EGRESS_ALLOW_CIDRS: hostSettings.get('ATRIUM_EGRESS_ALLOW_CIDRS')!,
        ATRIUM_CREDENTIAL_CONNECTIONS: join(dir, 'connections.json'),
        // What `npm start` does with destinations configured: run the gateway and reach it with the issuer key.
        ATRIUM_GATEWAY_URL: gateway.url,
        ATRIUM_GATEWAY_ISSUER_KEY: gateway.issuerKey,
      },
    });
    cli = new CliRunner(server.url);
    Object.assign(env, { ATRIUM_DATABASE_URL: server.database.url, ATRIUM_DATA_DIR: server.app.ctx.config.dataDir, ATRIUM_LOG_LEVEL: 'warn' });
  });
  after(async () => {
    await cli?.cleanup();
    await server?.stop();
    await gateway?.stop();
    await upstream?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A README line for this host: the documented host is this server. */
  const here = (line: string) => line.replaceAll('http://localhost:8080', server.url);

  /** A line that starts the host must ask for what this host was started with. */
  const assertStartedAs = (line: string) => {
    for (const [name, value] of startSettings(line)) assert.equal(hostSettings.get(name), value, `${line}: ${name}`);
  };

  it('works as printed, from the first owner to a completed task done by an agent', async () => {
    const lines = shellLines('## First steps');
    assert.ok(lines.length >= 20, `the story has its steps (${lines.length} lines)`);
    const mail = outbox(server);
    for (const line of lines) {
      const command = here(line);
      if (command.startsWith('export SCOUT_KEY=')) continue;
      const result = await run(command, env, async (proc) => {
        if (/atrium login\b/.test(command)) {
          // The browser: ada, signed in, approves the code the terminal shows.
          // Not a terminal, so the code is a plain indented line.
          const [, code] = await proc.waitForOutput(/^\s+([A-Z0-9]{4}-[A-Z0-9]{4})$/m);
          const session = await server.app.ctx.db.transaction(async (tx) => (await startSession(tx, 'ada')).token);
          const approved = await server.request('POST', `/v0/client-activations/${code}/approve`, { token: session, body: {} });
          assert.equal(approved.status, 200, approved.body?.detail);
        }
        if (/atrium sign-in\b/.test(command)) {
          await proc.waitForOutput(/Code from the e-mail: $/);
          const [sent] = await mail();
          assert.ok(sent, 'a sign-in code was mailed');
          proc.answer(`${sent.code}\n`);
        }
      });
      assert.equal(result.code, 0, `${line}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
      if (/agents register scout/.test(command)) {
        env.SCOUT_KEY = /key: (sk_atrium_\S+)$/m.exec(result.stdout)![1]!;
      }
      if (/atrium inbox/.test(command)) assert.match(result.stdout, /Welcome, @scout/);
      if (/tasks get garden 1/.test(command)) assert.match(result.stdout, /completed/);
    }
  });

  it('receives webhooks as printed: a receiver on loopback, verified, then woken by a post', async () => {
    const lines = shellLines('## Receive webhooks');
    // The receiver's port, free on this machine, wherever the README says 8787.
    const port = String(await freePort());
    const ids = new Map<string, string>();
    let listener: Shell | undefined;
    try {
      for (const line of lines) {
        if (line.endsWith('npm start')) {
          assertStartedAs(line);
          continue;
        }
        const command = here(line)
          .replaceAll('8787', port)
          .replace(/\b(whep|whsub)_…/g, (placeholder, kind: string) => ids.get(kind) ?? placeholder);
        if (/webhooks listen\b/.test(command)) {
          // The second terminal: the reference receiver runs until it is stopped.
          listener = start(command, env, { background: true });
          await listener.waitForOutput(/^Listening on /m);
          continue;
        }
        const result = await run(command, env);
        assert.equal(result.code, 0, `${line}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
        for (const kind of ['whep', 'whsub']) {
          const printed = new RegExp(`\\b${kind}_[a-z2-7]+`).exec(result.stdout);
          if (printed && !ids.has(kind)) ids.set(kind, printed[0]);
        }
        if (/endpoints verify/.test(command)) await listener!.waitForOutput(new RegExp(`^Answered the challenge whd_\\S+ for ${ids.get('whep')}\\.$`, 'm'));
        if (/atrium post garden general "Anyone awake\?"/.test(command)) await listener!.waitForOutput(/Anyone awake\?/);
        if (/webhooks deliveries/.test(command)) assert.match(result.stdout, /\bwhd_[a-z2-7]+/);
      }
      assert.ok(listener, 'the section starts a receiver');
    } finally {
      listener?.stop();
    }
    const stopped = await listener.exited;
    assert.equal(stopped.code, 0, stopped.stderr);
  });

  it('makes an approved external call as printed, through the gateway to the provider on loopback', async () => {
    const lines = shellLines('## Make an approved external call');
    for (const line of lines) {
      if (line.endsWith('npm start')) {
        assertStartedAs(line);
        continue;
      }
      const command = here(line).replaceAll('https://api.weather.example', upstream.origin);
      const result = await run(command, env);
      assert.equal(result.code, 0, `${line}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
      if (/connections list/.test(command)) assert.match(result.stdout, /\bweather\b/);
      if (/atrium call\b/.test(command)) assert.match(result.stdout, /^status: +200$/m);
    }
    // The provider got the request the README sends, with the key only the gateway holds.
    const got = upstream.received.at(-1);
    assert.equal(got?.url, '/v2/forecast?city=Oslo');
    assert.equal(got?.headers.authorization, `Bearer ${secret}`);
  });

  /** One README line running in a shell, with the CLI under test as `npx atrium`. */
  interface Shell {
    waitForOutput(pattern: RegExp): Promise<RegExpMatchArray>;
    answer(text: string): void;
    /** Ends its input: a line that asks nothing more reads no further. */
    end(): void;
    /** Stops a line that runs until stopped (Ctrl-C in a terminal). */
    stop(): void;
    exited: Promise<CliResult>;
  }

  function start(command: string, extra: Record<string, string>, opts: { background?: boolean } = {}): Shell {
    const cliLine = command.replace(/\bnpx atrium\b/g, `"${process.execPath}" "${BIN}"`);
    // A line that runs until stopped replaces the shell, so that the stop reaches the CLI itself.
    const shellLine = opts.background ? `exec ${cliLine}` : cliLine;
    const child = spawn('sh', ['-c', shellLine], { env: cli.env(extra), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const waiters = new Set<() => void>();
    const notify = () => waiters.forEach((w) => w());
    child.stdout.setEncoding('utf8').on('data', (c: string) => ((stdout += c), notify()));
    child.stderr.setEncoding('utf8').on('data', (c: string) => ((stderr += c), notify()));
    let done = false;
    const exited = new Promise<CliResult>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code, signal) => {
        done = true;
        notify();
        resolve({ code, signal, stdout, stderr });
      });
    });
    return {
      waitForOutput: (pattern) =>
        new Promise((resolve, reject) => {
          const check = () => {
            const match = pattern.exec(stdout) ?? pattern.exec(stderr);
            if (match) {
              waiters.delete(check);
              resolve(match);
            } else if (done) {
              waiters.delete(check);
              reject(new Error(`${command} ended without printing ${pattern}\nstdout: ${stdout}\nstderr: ${stderr}`));
            }
          };
          waiters.add(check);
          check();
        }),
      answer: (text) => child.stdin.write(text),
      end: () => child.stdin.end(),
      stop: () => void child.kill('SIGTERM'),
      exited,
    };
  }

  /** Runs one README line to its end, letting `interact` play the person. */
  async function run(command: string, extra: Record<string, string>, interact: (proc: Shell) => Promise<void> = async () => {}): Promise<CliResult> {
    const proc = start(command, extra);
    await interact(proc);
    proc.end();
    return proc.exited;
  }
});

/**
 * "Keep it running", as printed: back up a host that serves from ./data, restore
 * the archive into a fresh data directory and check it, each the README's own
 * line run by a shell in the host's directory.
 */
describe('README, keep it running, as printed (sqlite)', () => {
  let cwd: string;
  let cli: CliRunner;
  before(() => {
    cwd = mkdtempSync(join(tmpdir(), 'atrium-readme-keep-'));
    cli = new CliRunner('http://127.0.0.1:1');
  });
  after(async () => {
    await cli.cleanup();
    rmSync(cwd, { recursive: true, force: true });
  });

  /** The section's inline commands that start with `npx atrium admin` (a variable or two may come first). */
  const adminLines = () => [...section(README, '## Keep it running').matchAll(/`((?:\w+=\S+ )*npx atrium admin [^`]+)`/g)].map((m) => m[1]!);

  const sh = (line: string, env: Record<string, string>) =>
    new Promise<CliResult>((resolve, reject) => {
      const child = spawn('sh', ['-c', line.replace(/\bnpx atrium\b/g, `"${process.execPath}" "${BIN}"`)], { cwd, env: cli.env(env), stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
      child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
      child.once('error', reject);
      child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    });

  it('backs up a serving host, restores into a fresh data directory and verifies it, line by line', async () => {
    const lines = adminLines();
    const verbs = lines.map((l) => / admin (\S+)/.exec(l)![1]);
    assert.ok(verbs.indexOf('backup') >= 0 && verbs.indexOf('backup') < verbs.indexOf('restore') && verbs.lastIndexOf('verify') > verbs.indexOf('restore'), verbs.join(', '));
    const env = { ATRIUM_PORT: String(await freePort()), ATRIUM_LOG_LEVEL: 'warn', ATRIUM_URL: '' };
    // The host serves from ./data in the directory the lines run in.
    const server = new CliProcess(['serve'], cli.env(env), cwd);
    try {
      await server.waitForStdout(/Atrium is listening/);
      const owner = await sh('npx atrium admin create-owner --handle ada --email ada@example.org', env);
      assert.equal(owner.code, 0, owner.stderr);
      // In order, each as printed: the restore goes where the line says, and the verify lines check what it names.
      for (const line of lines) {
        const result = await sh(line, env);
        assert.equal(result.code, 0, `${line}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
        if (/ admin verify/.test(line)) assert.match(result.stdout, /^All checks passed\.$/m);
      }
    } finally {
      server.child.kill('SIGTERM');
    }
    assert.equal((await server.exited).code, 0);
  });
});
