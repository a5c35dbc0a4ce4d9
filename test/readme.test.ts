import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startSession } from '../src/identity/sessions.js';
import { CliRunner, type CliResult } from './support/cli.js';
import { outbox } from './support/mail.js';
import { startServer, type TestServer } from './support/server.js';

const README = fileURLToPath(new URL('../README.md', import.meta.url));
const BIN = fileURLToPath(new URL('../bin/atrium.js', import.meta.url));

/** The shell lines of the README's "First steps", in order, without comments. */
function firstSteps(): string[] {
  const text = readFileSync(README, 'utf8');
  const section = text.slice(text.indexOf('## First steps'), text.indexOf('\n## ', text.indexOf('## First steps') + 1));
  const lines: string[] = [];
  for (const block of section.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const raw of block[1]!.split('\n')) {
      const line = raw.replace(/\s+#.*$/, '').trim();
      if (line !== '') lines.push(line);
    }
  }
  return lines;
}

/**
 * The README's first hour, run as printed against a real server: every command
 * is the README's own line, run by a shell, with `npx atrium` as the CLI under
 * test and the documented host replaced by this server. What a person does
 * outside the terminal (approving the login in a browser, reading a mailed
 * code, copying the agent's key) the test does the same way, through the API
 * and the outbox.
 */
describe('README first steps (sqlite)', () => {
  let server: TestServer;
  let cli: CliRunner;
  before(async () => {
    server = await startServer('sqlite');
    cli = new CliRunner(server.url);
  });
  after(async () => {
    await cli.cleanup();
    await server.stop();
  });

  it('works as printed, from the first owner to a completed task done by an agent', async () => {
    const lines = firstSteps();
    assert.ok(lines.length >= 20, `the story has its steps (${lines.length} lines)`);
    const env: Record<string, string> = {
      ATRIUM_DATABASE_URL: server.database.url,
      ATRIUM_DATA_DIR: server.app.ctx.config.dataDir,
      ATRIUM_LOG_LEVEL: 'warn',
    };
    const mail = outbox(server);
    for (const line of lines) {
      const command = line.replaceAll('http://localhost:8080', server.url);
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

  /** Runs one README line in a shell, with the CLI under test as `npx atrium`, letting `interact` play the person. */
  async function run(
    command: string,
    extra: Record<string, string>,
    interact: (proc: { waitForOutput(pattern: RegExp): Promise<RegExpMatchArray>; answer(text: string): void }) => Promise<void>,
  ): Promise<CliResult> {
    const shellLine = command.replace(/\bnpx atrium\b/g, `"${process.execPath}" "${BIN}"`);
    const child = spawn('sh', ['-c', shellLine], { env: cli.env(extra), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const waiters = new Set<() => void>();
    const notify = () => waiters.forEach((w) => w());
    child.stdout.setEncoding('utf8').on('data', (c: string) => ((stdout += c), notify()));
    child.stderr.setEncoding('utf8').on('data', (c: string) => ((stderr += c), notify()));
    const exited = new Promise<CliResult>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code, signal) => {
        notify();
        resolve({ code, signal, stdout, stderr });
      });
    });
    let done = false;
    void exited.then(() => (done = true));
    await interact({
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
    });
    child.stdin.end();
    return exited;
  }
});
