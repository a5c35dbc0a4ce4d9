import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { ensureWebBuild, launchBrowser, Pages } from './browser.js';
import { startServer, type Backend, type TestServer } from './server.js';

// What every browser test of the web app shares: one server and one browser
// per file and backend, screenshots at the two widths people use, and an
// accessibility check by axe-core in the page itself.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Screenshots land here (git-ignored), to be looked at by people, not compared by tests. */
export const SCREENSHOTS = join(ROOT, 'test-results', 'screenshots');

export interface WebApp {
  server: TestServer;
  browser: Browser;
  pages: Pages;
  stop(): Promise<void>;
}

export async function startWebApp(backend: Backend, env: Record<string, string> = {}): Promise<WebApp> {
  ensureWebBuild();
  const server = await startServer(backend, { env: { ATRIUM_ACTIVATION_RATE_LIMIT: '1000', ...env } });
  const browser = await launchBrowser();
  return {
    server,
    browser,
    pages: new Pages(browser, server),
    async stop() {
      await browser.close();
      await server.stop();
    },
  };
}

/**
 * Writes `<name>-1280.png` and `<name>-390.png` of the whole page, then puts
 * the page back at 1280 px. Call it once the page shows what it should: the
 * test has already waited for that.
 */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
    // From the top, as a person arrives: a page scrolled down (focus moved to a form) would
    // otherwise show sticky parts, like the Space sidebar, where the scroll left them.
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/**
 * Runs axe-core on the page as it is now and fails on any serious or
 * critical violation. The script is evaluated through the debugging
 * protocol, which the page's Content-Security-Policy does not govern, so the
 * app is checked under its real policy.
 */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate<AxeViolation[]>(`(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  })()`);
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    serious.map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    [],
    `accessibility violations on ${what}`,
  );
}
