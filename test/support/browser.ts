import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type ConsoleMessage, type Page } from 'playwright-core';
import type { Mail } from './mail.js';
import type { TestServer } from './server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WEB = join(ROOT, 'web');
const DIST = join(WEB, 'dist');

/** Debian's Chromium (`.ci/run` installs it); playwright-core brings no browser of its own. */
export const CHROMIUM = process.env.ATRIUM_TEST_CHROMIUM ?? '/usr/bin/chromium';

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestMtime(join(path, name))));
}

/**
 * The browser tests drive the built app, as users get it. `npm test` builds it
 * first (pretest); running a test file directly builds it here when it is
 * missing or older than its sources. The build goes to a scratch directory and
 * is then moved into place, so a concurrently running test file's server never
 * sees a half-written web/dist.
 */
export function ensureWebBuild(): void {
  const built = join(DIST, 'index.html');
  const sources = Math.max(...['src', 'public', 'index.html', 'vite.config.ts'].map((p) => newestMtime(join(WEB, p))));
  if (existsSync(built) && statSync(built).mtimeMs >= sources) return;
  const scratch = join(WEB, `.dist-${process.pid}`);
  const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const result = spawnSync(process.execPath, [vite, 'build', '-c', join(WEB, 'vite.config.ts'), '--outDir', scratch, '--emptyOutDir', '--logLevel', 'warn'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  assert.equal(result.status, 0, `vite build failed:\n${result.stdout}\n${result.stderr}`);
  const old = join(WEB, `.dist-old-${process.pid}`);
  if (existsSync(DIST)) renameSync(DIST, old);
  renameSync(scratch, DIST);
  rmSync(old, { recursive: true, force: true });
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    // Headless in a container, and quiet: no traffic anywhere but the test server.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * A browser context per test (its own cookie jar) that records everything the
 * page complains about. The only console errors allowed are Chromium's own
 * "Failed to load resource" lines for API answers the app expects and handles
 * (401 before signing in, 404/409/410 on the activation page): the browser
 * logs every non-2xx fetch that way, whatever the page does with it.
 */
export class Pages {
  private contexts: BrowserContext[] = [];
  private problems: string[] = [];
  /** Refusals this test provokes on purpose (see `expectRefusal`); cleared by `finish`. */
  private refusals: Array<{ status: number; path: RegExp }> = [];

  constructor(
    private readonly browser: Browser,
    private readonly server: Pick<TestServer, 'url'>,
  ) {}

  /** A fresh page; signed in when given a session token (the real cookie the server sets on sign-in). */
  async open(opts: { session?: string } = {}): Promise<Page> {
    // A fixed locale and zone, so the test knows how dates must read.
    const context = await this.browser.newContext({ baseURL: this.server.url, locale: 'en-GB', timezoneId: 'UTC' });
    this.contexts.push(context);
    if (opts.session) {
      await context.addCookies([{ name: 'atrium_session', value: opts.session, url: this.server.url, httpOnly: true, sameSite: 'Lax' }]);
    }
    return this.watch(await context.newPage());
  }

  /** Another tab in the same browser as `page` (same cookies and storage), as a mail client's link opens. */
  async tab(page: Page): Promise<Page> {
    return this.watch(await page.context().newPage());
  }

  private watch(page: Page): Page {
    page.on('console', (message) => this.onConsole(message));
    page.on('pageerror', (error) => this.problems.push(`uncaught: ${error.stack ?? error.message}`));
    page.on('requestfailed', (request) => {
      // ERR_ABORTED: the test navigated on while the page was still loading something (say, the favicon).
      const error = request.failure()?.errorText ?? '';
      if (error !== 'net::ERR_ABORTED') this.problems.push(`request failed: ${request.method()} ${request.url()} ${error}`);
    });
    return page;
  }

  /**
   * Lets this test's pages meet `status` from API paths matching `path`: for a
   * test that provokes a refusal to show how the page handles it. Chromium
   * logs the refused fetch whatever the page does; anything else still fails.
   */
  expectRefusal(status: number, path: RegExp): void {
    this.refusals.push({ status, path });
  }

  private onConsole(message: ConsoleMessage): void {
    if (message.type() !== 'error' && message.type() !== 'warning') return;
    const url = message.location().url;
    const status = Number(/^Failed to load resource: the server responded with a status of (\d{3})\b/.exec(message.text())?.[1]);
    const api = url.startsWith(`${this.server.url}/v0/`);
    const path = api ? new URL(url).pathname : '';
    const expected = api && ([401, 404, 409, 410].includes(status) || this.refusals.some((r) => r.status === status && r.path.test(path)));
    if (!expected) this.problems.push(`console ${message.type()}: ${message.text()} (${url})`);
  }

  /** Closes this test's contexts and fails if any page logged an error. */
  async finish(): Promise<void> {
    const contexts = this.contexts.splice(0);
    await Promise.all(contexts.map((c) => c.close()));
    this.refusals = [];
    const problems = this.problems.splice(0);
    assert.deepEqual(problems, [], 'the pages logged errors');
  }
}

/**
 * Which element has focus, as a user would name it: `tag:label`, the label
 * being its <label>'s text or else its own text. (A string, as it runs in the
 * page, and the Node-side type checking has no DOM.)
 */
export function focused(page: Page): Promise<string> {
  return page.evaluate<string>(`(() => {
    const el = document.activeElement;
    if (!el) return '';
    const label = el.id ? document.querySelector('label[for="' + el.id + '"]')?.textContent : null;
    return el.tagName.toLowerCase() + ':' + (label ?? el.textContent ?? '').trim();
  })()`);
}

export { outbox, type Mail } from './mail.js';

/** The one sign-in mail sent to `to` since the last look. */
export async function mailTo(mails: () => Promise<Mail[]>, to: string): Promise<Mail> {
  const fresh = (await mails()).filter((m) => m.to.includes(to));
  assert.equal(fresh.length, 1, `expected one new sign-in mail to ${to}`);
  return fresh[0]!;
}
