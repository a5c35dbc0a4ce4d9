import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { DEFAULT_WEB_ROOT, registerWebApp } from '../src/web/static.js';
import { ensureWebBuild, focused, launchBrowser, mailTo, outbox, Pages, type Mail } from './support/browser.js';
import { TestClock } from './support/clock.js';
import { screenshots } from './support/web-app.js';
import { startServer, type TestServer } from './support/server.js';

// The web app's pages, driven in real headless Chromium against a real server.
// They test the user interface, not storage, so SQLite is enough. No test waits
// by time: every wait is for something to appear (Playwright's auto-waiting
// locators, waitForURL) or for a request to finish.

const FIFTEEN_MINUTES = 15 * 60 * 1000;

describe('web app (sqlite)', () => {
  // The browser keeps the session cookie only until its `expires`, judged by
  // the real clock: the server's clock must start at the real time.
  const clock = new TestClock(Date.now());
  let server: TestServer;
  let browser: Browser;
  let pages: Pages;
  let mails: () => Promise<Mail[]>;

  before(async () => {
    ensureWebBuild();
    server = await startServer('sqlite', { clock, env: { ATRIUM_ACTIVATION_RATE_LIMIT: '1000' } });
    browser = await launchBrowser();
    pages = new Pages(browser, server);
    mails = outbox(server);
  });
  afterEach(() => pages.finish());
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** An activation as a command-line client starts it, through the API. */
  async function createActivation(clientName = 'atrium CLI on test-laptop') {
    const res = await server.request('POST', '/v0/client-activations', { body: { client_name: clientName } });
    assert.equal(res.status, 201);
    return res.body as { code: string; activation_url: string; poll_secret: string; expires_ts: string };
  }

  const poll = (code: string, secret: string) =>
    server.request('POST', `/v0/client-activations/${code}/poll`, { body: { poll_secret: secret } });

  const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name });
  const signedInAs = (page: Page, handle: string) =>
    page.getByRole('navigation', { name: 'Account' }).getByText(`Signed in as @${handle}`);

  it('serves the app at its routes without shadowing the API', async () => {
    const html = { accept: 'text/html,application/xhtml+xml' };
    for (const path of ['/', '/sign-in', '/sign-in?email=a%40b.c&code=BCDF-3467', '/credentials', '/activate/BCDF-3467']) {
      const res = await fetch(server.url + path, { headers: html });
      assert.equal(res.status, 200, path);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/, path);
      assert.match(await res.text(), /<div id="root"><\/div>/, path);
      assert.match(res.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    }
    const page404 = await fetch(`${server.url}/no/such/page`, { headers: html });
    assert.equal(page404.status, 404, 'other page paths are a 404, rendered by the app');
    assert.match(await page404.text(), /<div id="root">/);

    // The API's own answers stay JSON, whatever the client accepts.
    for (const [path, status] of [
      ['/v0/nope', 404],
      ['/v0/client-activations/BCDF-3467/approve', 405],
      ['/healthz/x', 404],
    ] as const) {
      const res = await fetch(server.url + path, { headers: html });
      assert.equal(res.status, status, path);
      assert.deepEqual(Object.keys((await res.json()) as object), ['detail'], path);
    }
    assert.deepEqual(await (await fetch(`${server.url}/healthz`, { headers: html })).json(), { status: 'ok' });
    assert.equal((await fetch(`${server.url}/v0`)).status, 200);
    assert.equal((await fetch(`${server.url}/no/such/page`, { headers: { accept: 'application/json' } })).status, 404);

    const asset = readdirSync(join(DEFAULT_WEB_ROOT, 'assets')).find((f) => f.endsWith('.js'))!;
    const js = await fetch(`${server.url}/assets/${asset}`);
    assert.equal(js.status, 200);
    assert.match(js.headers.get('content-type') ?? '', /javascript/);
    assert.match(js.headers.get('cache-control') ?? '', /immutable/);
    assert.equal((await fetch(`${server.url}/assets/missing.js`)).status, 404);
    assert.equal((await fetch(`${server.url}/assets/%2e%2e/%2e%2e/package.json`)).status >= 400, true, 'no way out of web/dist');

    // Without a build, `/` says how to make one.
    const empty = mkdtempSync(join(tmpdir(), 'atrium-web-'));
    const bare = Fastify();
    try {
      await registerWebApp(bare, { root: empty });
      const res = await bare.inject({ method: 'GET', url: '/', headers: html });
      assert.equal(res.statusCode, 503);
      assert.match(res.headers['content-type'] as string, /^text\/plain/);
      assert.match(res.body, /npm run build/);
    } finally {
      await bare.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('signs in with the mailed code and returns to the page the user came from; signs out', async () => {
    const ada = await server.human('ada');
    const page = await pages.open();
    await page.goto('/credentials');
    await page.waitForURL((url) => url.pathname === '/sign-in' && url.searchParams.get('next') === '/credentials');
    await heading(page, 'Sign in').waitFor();

    await page.getByLabel('E-mail address').fill(`${ada.handle}@example.test`);
    await page.getByRole('button', { name: 'Send code' }).click();
    await page.getByLabel('Sign-in code').waitFor();
    await page.getByRole('status').filter({ hasText: 'a sign-in code is on its way' }).waitFor();
    const mail = await mailTo(mails, 'ada@example.test');

    // A wrong code is refused, and said so.
    await page.getByLabel('Sign-in code').fill('BBBB-BBBB');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'not right' }).waitFor();

    await page.getByLabel('Sign-in code').fill(mail.code);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL('**/credentials');
    await heading(page, 'API credentials').waitFor();
    await signedInAs(page, 'ada').waitFor();
    await page.getByText('You have no API credentials yet.').waitFor();

    const cookie = (await page.context().cookies()).find((c) => c.name === 'atrium_session');
    assert.ok(cookie?.httpOnly, 'the session lives in the HttpOnly cookie');
    assert.equal(await page.evaluate<string>('document.cookie'), '', 'which page scripts cannot read');
    assert.equal((await server.request('GET', '/v0/me', { token: cookie.value })).status, 200);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/sign-in');
    await heading(page, 'Sign in').waitFor();
    assert.equal((await server.request('GET', '/v0/me', { token: cookie.value })).status, 401, 'the session is revoked');
    await page.goto('/credentials');
    await page.waitForURL('**/sign-in?next=%2Fcredentials');
  });

  it('fills in the code from the mailed link without using it, then returns where sign-in began', async () => {
    await server.human('bea');
    const first = await pages.open();
    await first.goto('/credentials');
    await first.waitForURL('**/sign-in?next=%2Fcredentials');
    await first.getByLabel('E-mail address').fill('bea@example.test');
    await first.getByRole('button', { name: 'Send code' }).click();
    await first.getByLabel('Sign-in code').waitFor();
    const mail = await mailTo(mails, 'bea@example.test');

    // The link opens in a new tab, as from a mail client; opening it submits nothing.
    const page = await pages.tab(first);
    await page.goto(mail.link.pathname + mail.link.search);
    await heading(page, 'Sign in').waitFor();
    const code = page.getByLabel('Sign-in code');
    assert.equal(await code.inputValue(), mail.code);
    await page.waitForURL((url) => url.pathname === '/sign-in' && !url.searchParams.has('code'));
    assert.equal(await focused(page), 'input:Sign-in code');
    assert.equal(await page.getByText(/Signed in as/).count(), 0);

    // The code is still unused: only now does it sign in, and the new tab goes
    // on to the page the first one was headed for.
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL('**/credentials');
    await signedInAs(page, 'bea').waitFor();
  });

  it('opened in another browser, the mailed link signs in to the start page', async () => {
    await server.human('ben');
    const first = await pages.open();
    await first.goto('/sign-in');
    await first.getByLabel('E-mail address').fill('ben@example.test');
    await first.getByRole('button', { name: 'Send code' }).click();
    await first.getByLabel('Sign-in code').waitFor();
    const mail = await mailTo(mails, 'ben@example.test');

    const page = await pages.open();
    await page.goto(mail.link.toString().replace(mail.link.origin, ''));
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await heading(page, 'Atrium').waitFor();
    await page.getByText('You are signed in as ben (@ben).').waitFor();

    // Opened again, the used code is filled in and refused: the refusal replaces the "filled in" notice.
    const again = await pages.open();
    await again.goto(mail.link.toString().replace(mail.link.origin, ''));
    await again.getByRole('status').filter({ hasText: 'The code from your e-mail is filled in.' }).waitFor();
    await again.getByRole('button', { name: 'Sign in', exact: true }).click();
    await again.getByRole('alert').filter({ hasText: 'already used' }).waitFor();
    assert.equal(await again.getByText('The code from your e-mail is filled in.').count(), 0);
    await screenshots(again, 'sign-in-used-code');
  });

  it('approves an activation created through the API; the client then gets its key', async () => {
    const cid = await server.human('cid');
    const activation = await createActivation();
    const page = await pages.open({ session: cid.session });
    await page.goto(new URL(activation.activation_url).pathname);

    await heading(page, 'Approve a command-line client?').waitFor();
    assert.equal(await focused(page), 'h1:Approve a command-line client?', 'focus starts at the heading');
    await page.locator('.code-display').filter({ hasText: activation.code }).waitFor();
    await page.getByText('atrium CLI on test-laptop').waitFor();
    const requested = new Date(Date.parse(activation.expires_ts) - FIFTEEN_MINUTES);
    const time = page.locator('time').first();
    assert.equal(await time.getAttribute('datetime'), requested.toISOString());
    const hhmm = requested.toISOString().slice(11, 16);
    assert.ok((await time.textContent())?.includes(hhmm), `requested at ${hhmm} (en-GB, UTC)`);
    await page.screenshot({ path: join(tmpdir(), 'atrium-activation-page.png'), fullPage: true });

    // Approving needs the human to say the codes match.
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('alert').filter({ hasText: 'tick the box' }).waitFor();
    assert.equal(await focused(page), `input:The code in my terminal is ${activation.code}`);
    assert.equal((await poll(activation.code, activation.poll_secret)).body.status, 'pending');

    await page.getByLabel(`The code in my terminal is ${activation.code}`).check();
    await page.getByRole('button', { name: 'Approve' }).click();
    await heading(page, 'Approved').waitFor();
    await page.getByText('Go back to your terminal').waitFor();

    clock.advance(10_000); // the poll interval
    const delivered = await poll(activation.code, activation.poll_secret);
    assert.equal(delivered.status, 200);
    assert.equal(delivered.body.status, 'approved');
    const me = await server.request('GET', '/v0/me', { token: delivered.body.key });
    assert.equal(me.status, 200);
    assert.equal(me.body.handle, 'cid');

    // Reloaded now, the page says the request is used up.
    await page.reload();
    await heading(page, 'This request was already used').waitFor();
    await page.getByRole('link', { name: 'API credentials' }).last().waitFor();
  });

  it('explains expired, already used and unknown activations', async () => {
    const dan = await server.human('dan');
    const page = await pages.open({ session: dan.session });

    const used = await createActivation('used elsewhere');
    assert.equal((await server.request('POST', `/v0/client-activations/${used.code}/approve`, { token: dan.session })).status, 200);
    await page.goto(`/activate/${used.code}`);
    await heading(page, 'This request was already used').waitFor();
    await page.getByText('for @dan').waitFor();

    // Used while the page was open: the Approve answers 409 and the page says what happened.
    const raced = await createActivation('raced');
    await page.goto(`/activate/${raced.code.toLowerCase()}`);
    await heading(page, 'Approve a command-line client?').waitFor();
    assert.equal((await server.request('POST', `/v0/client-activations/${raced.code}/approve`, { token: dan.session })).status, 200);
    await page.getByLabel(/The code in my terminal is/).check();
    await page.getByRole('button', { name: 'Approve' }).click();
    await heading(page, 'This request was already used').waitFor();

    // Expired while the page was open (410), and expired before it was opened.
    const late = await createActivation('too late');
    const stale = await createActivation('stale');
    await page.goto(`/activate/${late.code}`);
    await heading(page, 'Approve a command-line client?').waitFor();
    clock.advance(FIFTEEN_MINUTES);
    await page.getByLabel(/The code in my terminal is/).check();
    await page.getByRole('button', { name: 'Approve' }).click();
    await heading(page, 'This request has expired').waitFor();
    assert.equal(await focused(page), 'h1:This request has expired', 'focus follows the new state');

    await page.goto(`/activate/${stale.code}`);
    await heading(page, 'This request has expired').waitFor();
    await page.getByText('Nothing was approved').waitFor();

    // Unknown and expired requests need no sign-in to be explained.
    const anonymous = await pages.open();
    await anonymous.goto('/activate/BCDF-3467');
    await heading(anonymous, 'Unknown activation code').waitFor();
    await anonymous.goto(`/activate/${stale.code}`);
    await heading(anonymous, 'This request has expired').waitFor();
  });

  it('lists API credentials; revoking one refuses its key at once', async () => {
    const eve = await server.human('eve');
    const activation = await createActivation('eve’s laptop');
    assert.equal((await server.request('POST', `/v0/client-activations/${activation.code}/approve`, { token: eve.session })).status, 200);
    const key: string = (await poll(activation.code, activation.poll_secret)).body.key;
    assert.equal((await server.request('GET', '/v0/me', { token: key })).status, 200);
    const [listed] = (await server.request('GET', '/v0/credentials', { token: eve.session })).body.credentials;

    const page = await pages.open({ session: eve.session });
    await page.goto('/credentials');
    const row = page.getByRole('row').filter({ hasText: 'eve’s laptop' });
    await row.waitFor();
    await row.getByText(`${listed.key_prefix}…`).waitFor();
    await row.getByRole('cell', { name: 'Active' }).waitFor();
    assert.ok(key.startsWith(listed.key_prefix));
    assert.notEqual((await row.locator('time').nth(1).getAttribute('datetime')), null, 'last used is shown');

    // Cancel changes nothing, and gives focus back to the button.
    const revoke = row.getByRole('button', { name: /^Revoke/ });
    await revoke.click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this key?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.match(await focused(page), /^button:Revoke$/);
    assert.equal((await server.request('GET', '/v0/me', { token: key })).status, 200);

    await revoke.click();
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await row.getByRole('cell', { name: /^Revoked / }).waitFor();
    await page.getByRole('status').filter({ hasText: 'It no longer works' }).waitFor();
    assert.equal(await row.getByRole('button', { name: /^Revoke/ }).count(), 0);
    assert.equal((await server.request('GET', '/v0/me', { token: key })).status, 401, 'the key is refused');

    // On a phone the list reads as cards: nothing scrolls sideways, and the key prefix stays whole on one line.
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 800 });
      const [scrollWidth, clientWidth] = await page.evaluate<[number, number]>('[document.documentElement.scrollWidth, document.documentElement.clientWidth]');
      assert.ok(scrollWidth <= clientWidth, `${width} px: the page is ${scrollWidth} px wide`);
      const prefix = row.getByText(`${listed.key_prefix}…`);
      const box = await prefix.boundingBox();
      // One line of body text is about 24 px high; two would be about 48.
      assert.ok(box && box.height < 36, `${width} px: the key prefix fits on one line (${box?.height} px high)`);
    }
  });

  it('works with the keyboard alone: sign in, then approve the activation that asked for it', async () => {
    await server.human('fay');
    const activation = await createActivation('keyboard client');
    const page = await pages.open();
    await page.goto(`/activate/${activation.code}`);
    await page.waitForURL((url) => url.pathname === '/sign-in');
    await page.getByText('review the request from your command-line client').waitFor();

    // Focus starts in the first field; Tab and Enter do the rest.
    await page.getByLabel('E-mail address').waitFor();
    assert.equal(await focused(page), 'input:E-mail address');
    await page.keyboard.type('fay@example.test');
    await page.keyboard.press('Tab');
    assert.equal(await focused(page), 'button:Send code');
    await page.keyboard.press('Enter');
    await page.getByLabel('Sign-in code').waitFor();
    assert.equal(await focused(page), 'input:Sign-in code');
    const mail = await mailTo(mails, 'fay@example.test');
    await page.keyboard.type(mail.code);
    await page.keyboard.press('Tab');
    assert.equal(await focused(page), 'button:Sign in');
    await page.keyboard.press('Enter');

    await page.waitForURL(`**/activate/${activation.code}`);
    await heading(page, 'Approve a command-line client?').waitFor();
    assert.equal(await focused(page), 'h1:Approve a command-line client?');
    await page.keyboard.press('Tab');
    assert.equal(await focused(page), `input:The code in my terminal is ${activation.code}`);
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    assert.equal(await focused(page), 'button:Approve');
    await page.keyboard.press('Enter');
    await heading(page, 'Approved').waitFor();
    assert.equal((await poll(activation.code, activation.poll_secret)).body.member.handle, 'fay');
  });
});
