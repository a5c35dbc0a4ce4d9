import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { ensureWebBuild, launchBrowser, mailTo, outbox, Pages, type Mail } from './support/browser.js';
import { isCliBuildSetting } from './support/cli.js';
import { pkce, REDIRECT_URI, registerClient } from './support/oauth.js';
import { startServer, type TestServer } from './support/server.js';

// The whole `atrium login` story, end to end, with every part real: the CLI
// as a separate process, the server, and Chromium on the approval page.

const ATRIUM = fileURLToPath(new URL('../bin/atrium.js', import.meta.url));
const SCREENSHOTS = join(tmpdir(), 'atrium-web-login');
const WIDTHS = [1280, 390] as const;

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
    mkdirSync(SCREENSHOTS, { recursive: true });
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
    // The sign-in page says what the person signs in for.
    await page.getByRole('heading', { level: 1, name: 'Sign in to approve the command-line login' }).waitFor();
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

  it("says on the sign-in page which program's access the person signs in to approve", { timeout: 60_000 }, async () => {
    await server.human('ivy');
    const clientId = await registerClient(server, [REDIRECT_URI], 'Desk agent');
    const { challenge } = pkce();
    const query = { response_type: 'code', client_id: clientId, redirect_uri: REDIRECT_URI, code_challenge: challenge, code_challenge_method: 'S256', state: 's' };
    for (const width of WIDTHS) {
      const page = await pages.open();
      await page.setViewportSize({ width, height: 800 });
      // The program sends the browser to the authorization endpoint; consent sends a signed-out person to sign in.
      await page.goto(`/oauth/authorize?${new URLSearchParams(query).toString()}`);
      await page.waitForURL((u) => u.pathname === '/sign-in');
      await page.getByRole('heading', { level: 1, name: 'Sign in to approve Desk agent’s access' }).waitFor();
      await page.getByText('A program calling itself “Desk agent” asked to use your Atrium account.').waitFor();
      assert.equal(await page.title(), 'Sign in to approve Desk agent’s access · Atrium');
      await page.screenshot({ path: join(SCREENSHOTS, `sign-in-for-consent-${width}.png`), fullPage: true });
      if (width === 390) {
        // Signed in, the person is back at the consent page.
        await page.getByLabel('E-mail address').fill('ivy@example.test');
        await page.getByRole('button', { name: 'Send code' }).click();
        await page.getByLabel('Sign-in code').fill((await mailTo(mails, 'ivy@example.test')).code);
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        await page.waitForURL((u) => u.pathname === '/oauth/consent');
      }
    }
  });

  it('says when the next sign-in code can be asked for once five were asked, and sends none', { timeout: 60_000 }, async () => {
    await server.human('hal');
    for (let i = 0; i < 5; i++) assert.equal((await server.request('POST', '/v0/sign-in/email', { body: { email: 'hal@example.test' } })).status, 202);
    assert.equal((await mails()).filter((m) => m.to.includes('hal@example.test')).length, 5);
    for (const width of WIDTHS) {
      pages.expectRefusal(429, /^\/v0\/sign-in\/email$/);
      const page = await pages.open();
      await page.setViewportSize({ width, height: 800 });
      await page.goto('/sign-in');
      await page.getByLabel('E-mail address').fill('hal@example.test');
      await page.getByRole('button', { name: 'Send code' }).click();
      const said = page.getByText(/^No new code was sent: five codes were already asked for hal@example\.test in the last 15 minutes\./);
      await said.waitFor();
      assert.match((await said.textContent())!, /You can ask for another at \d\d:\d\d \(in 1[45] minutes\)\. A code that already reached you still works/);
      // The page never claims a code is on its way, and offers the code field for one that came earlier.
      assert.equal(await page.getByText(/a sign-in code is on its way/).count(), 0);
      await page.getByLabel('Sign-in code').waitFor();
      await page.screenshot({ path: join(SCREENSHOTS, `sign-in-code-limit-${width}.png`), fullPage: true });
      await pages.finish();
    }
    assert.equal((await mails()).length, 0, 'no sixth code was mailed');
  });

  it('shows a page in plain words when a program\'s metadata document cannot be fetched', { timeout: 60_000 }, async () => {
    const query = {
      response_type: 'code',
      client_id: 'https://client.invalid/oauth/client.json',
      redirect_uri: REDIRECT_URI,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    };
    for (const width of WIDTHS) {
      // A page of its own: Chromium logs the 400 the document itself answers, which is the point here.
      const page = await browser.newPage({ viewport: { width, height: 800 } });
      const answer = await page.goto(`${server.url}/oauth/authorize?${new URLSearchParams(query).toString()}`);
      assert.equal(answer?.status(), 400);
      await page.getByRole('heading', { level: 1, name: "The program's details could not be fetched" }).waitFor();
      await page.getByText(/identifies itself by a document on client\.invalid, and .* could not fetch it from there/).waitFor();
      await page.getByText(/may be able to register with .* directly instead \(dynamic client registration\)/).waitFor();
      await page.screenshot({ path: join(SCREENSHOTS, `authorize-unreachable-document-${width}.png`), fullPage: true });
      await page.close();
    }
  });
});
