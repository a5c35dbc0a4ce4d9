import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { ensureWebBuild, launchBrowser, mailTo, outbox, Pages, type Mail } from './support/browser.js';
import { isCliBuildSetting } from './support/cli.js';
import { startServer, type TestServer } from './support/server.js';

// The whole `atrium login` story, end to end, with every part real: the CLI
// as a separate process, the server, and Chromium on the approval page.

const ATRIUM = fileURLToPath(new URL('../bin/atrium.js', import.meta.url));

interface Run {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in stdout, as soon as it is printed. */
  waitForOutput(pattern: RegExp): Promise<RegExpExecArray>;
  exit: Promise<number | null>;
}

describe('web app with atrium login (sqlite)', () => {
  let server: TestServer;
  let browser: Browser;
  let pages: Pages;
  let mails: () => Promise<Mail[]>;
  let configDir: string;
  const running: ChildProcessWithoutNullStreams[] = [];

  before(async () => {
    ensureWebBuild();
    // The real clock: the CLI really waits between polls, and the server must see that time pass.
    server = await startServer('sqlite');
    browser = await launchBrowser();
    pages = new Pages(browser, server);
    mails = outbox(server);
    configDir = mkdtempSync(join(tmpdir(), 'atrium-cli-config-'));
  });
  afterEach(() => pages.finish());
  after(async () => {
    // Only the CLI processes this test started, should one still be running after a failure.
    for (const child of running) if (child.exitCode === null) child.kill();
    await browser?.close();
    await server?.stop();
    rmSync(configDir, { recursive: true, force: true });
  });

  /** Runs the CLI against the test server only: its own config dir, no browser, no inherited ATRIUM_* settings but the build under test. */
  function atrium(...args: string[]): Run {
    const env: NodeJS.ProcessEnv = {};
    for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('ATRIUM_') || isCliBuildSetting(name)) env[name] = value;
    Object.assign(env, { ATRIUM_CONFIG_DIR: configDir, ATRIUM_NO_BROWSER: '1', NO_COLOR: '1' });
    // cwd is the config dir, so no developer's .env is picked up either.
    const child = spawn(process.execPath, [ATRIUM, ...args], { cwd: configDir, env });
    running.push(child);
    let out = '';
    let err = '';
    const watchers: Array<() => void> = [];
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      watchers.forEach((w) => w());
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    return {
      child,
      stdout: () => out,
      stderr: () => err,
      exit,
      waitForOutput(pattern) {
        return new Promise((resolve, reject) => {
          const check = () => {
            const match = pattern.exec(out);
            if (match) resolve(match);
          };
          watchers.push(check);
          check();
          void exit.then((code) => reject(new Error(`atrium exited (${code}) before printing ${pattern}:\n${out}\n${err}`)));
        });
      },
    };
  }

  it('logs the CLI in through the approval page, and revoking the key there logs it out', { timeout: 120_000 }, async () => {
    await server.human('gus');
    const login = atrium('login', '--host', server.url);
    const [, url] = await login.waitForOutput(/^\s*(http\S+\/activate\/\S+)\s*$/m);
    const [, code] = await login.waitForOutput(/this code:\s+(\S+)/);
    assert.ok(url!.startsWith(`${server.url}/activate/`), url);

    // Not signed in yet: the page sends the human to sign in, then back.
    const page = await pages.open();
    await page.goto(url!);
    await page.waitForURL((u) => u.pathname === '/sign-in');
    await page.getByLabel('E-mail address').fill('gus@example.test');
    await page.getByRole('button', { name: 'Send code' }).click();
    await page.getByLabel('Sign-in code').waitFor();
    await page.getByLabel('Sign-in code').fill((await mailTo(mails, 'gus@example.test')).code);
    const verified = page.waitForResponse((r) => new URL(r.url()).pathname === '/v0/sign-in/verify');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL((u) => u.pathname === new URL(url!).pathname);

    // The page asks for the cookie alone and is never handed the token: the HttpOnly cookie is the session.
    const answer = await verified;
    assert.equal(answer.status(), 200);
    const signedIn = (await answer.json()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(signedIn).sort(), ['expires_ts', 'member']);
    assert.equal((answer.request().postDataJSON() as { session_token?: string }).session_token, 'cookie');
    const cookie = (await page.context().cookies()).find((c) => c.name === 'atrium_session');
    assert.ok(cookie?.httpOnly, 'the session is an HttpOnly cookie');
    assert.ok(!(await answer.text()).includes(cookie.value), 'the answer does not carry the token');
    assert.doesNotMatch(await page.evaluate<string>('document.cookie'), /atrium_session/);

    // The human compares the codes, confirms and approves.
    await page.getByRole('heading', { level: 1, name: 'Approve a command-line client?' }).waitFor();
    assert.equal(await page.locator('.code-display').textContent(), code);
    await page.getByLabel(`The code in my terminal is ${code}`).check();
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('heading', { level: 1, name: 'Approved' }).waitFor();

    assert.equal(await login.exit, 0, `atrium login failed:\n${login.stdout()}\n${login.stderr()}`);
    assert.match(login.stdout(), /Logged in to .* as gus/);

    const whoami = atrium('whoami');
    assert.equal(await whoami.exit, 0, whoami.stderr());
    assert.match(whoami.stdout(), /\bgus\b/);

    // Revoked on the credentials page, the stored key stops working.
    await page.getByRole('link', { name: 'API credentials' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'API credentials' }).waitFor();
    const row = page.getByRole('row').filter({ hasText: 'atrium CLI on' });
    await row.getByRole('cell', { name: 'Active' }).waitFor();
    await row.getByRole('button', { name: /^Revoke/ }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await row.getByRole('cell', { name: /^Revoked / }).waitFor();

    const refused = atrium('whoami');
    assert.notEqual(await refused.exit, 0, `whoami still works after the revoke:\n${refused.stdout()}`);
  });
});
