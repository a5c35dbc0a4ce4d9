import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { registerDocs } from '../src/web/docs.js';
import { registerWebApp } from '../src/web/static.js';
import { ensureWebBuild, launchBrowser, Pages } from './support/browser.js';
import { startServer, type TestServer } from './support/server.js';

// The documentation at /docs: the API reference (Swagger UI, served by Atrium
// itself) and the guides rendered from docs/*.md. Over HTTP, and in real
// headless Chromium at a desktop and a phone width. No test waits by time.

/** Screenshots for people to look at; outside the repository. */
const SCREENSHOTS = join(tmpdir(), 'atrium-api-reference');

const WIDTHS = [1280, 390] as const;

/** Guides written for the test, so it does not depend on what docs/ says today. */
const PROTOCOL_MD = `# Atrium protocol

How clients and agents talk to a host.

## Feeds

Read a Space's events in order; see [task states](tasks.md#states) and [the tasks guide](./tasks.md).
The server's code is in [src](../src/app.ts); [this](javascript:alert(1)) is not a link.
Neither is [a](//elsewhere.example/p), [b](/\\elsewhere.example/q) or [c](</\t/elsewhere.example/r>), which browsers read as another site.

<script>document.title = 'owned'</script>

| field | meaning |
|---|---|
| \`cursor\` | host-wide integer, <b>never</b> reused |

- [x] ordered
- [ ] exactly once

## Feeds

A second heading of the same name gets its own anchor.
`;

const TASKS_MD = `# Tasks

## States

Back to the [protocol](protocol.md#feeds).
`;

function fixtureDocs(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'atrium-docs-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

function assertFrameHeaders(res: Response, path: string): string {
  assert.equal(res.headers.get('x-frame-options'), 'DENY', path);
  assert.equal(res.headers.get('referrer-policy'), 'no-referrer', path);
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff', path);
  const csp = res.headers.get('content-security-policy') ?? '';
  assert.match(csp, /(^|; )default-src 'none'(;|$)/, path);
  assert.match(csp, /frame-ancestors 'none'/, path);
  assert.doesNotMatch(csp, /unsafe-|\*|https?:/, `${path}: nothing beyond this origin`);
  return csp;
}

/** Nothing sticks out sideways: the page never scrolls horizontally. */
async function assertNoSidewaysScroll(page: Page, width: number, what: string): Promise<void> {
  const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
  assert.ok(scrollWidth <= width, `${what} at ${width} px is ${scrollWidth} px wide`);
}

describe('API reference and guides (sqlite)', () => {
  const docsDir = fixtureDocs({ 'protocol.md': PROTOCOL_MD, 'tasks.md': TASKS_MD, 'notes.txt': 'not a guide' });
  let server: TestServer;
  let browser: Browser;
  let pages: Pages;

  before(async () => {
    ensureWebBuild();
    mkdirSync(SCREENSHOTS, { recursive: true });
    server = await startServer('sqlite', { docsDir });
    browser = await launchBrowser();
    pages = new Pages(browser, server);
  });
  afterEach(() => pages.finish());
  after(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(docsDir, { recursive: true, force: true });
  });

  it('serves the reference page and its assets outside the contract, with strict headers', async () => {
    const html = { accept: 'text/html,application/xhtml+xml' };
    let assets: string[] = [];
    for (const path of ['/docs', '/docs/']) {
      const res = await fetch(server.url + path, { headers: html });
      assert.equal(res.status, 200, path);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/, path);
      const csp = assertFrameHeaders(res, path);
      assert.match(csp, /script-src 'self'/);
      assert.match(csp, /connect-src 'self'/);
      const body = await res.text();
      assert.doesNotMatch(body, /<script>|<style|style=/, 'no inline script or style');
      assets = [...body.matchAll(/(?:src|href)="(\/docs\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    }

    assert.ok(assets.some((a) => /\/swagger-ui-[\d.]+\/swagger-ui-bundle\.js$/.test(a)), assets.join());
    for (const asset of assets) {
      const res = await fetch(server.url + asset);
      assert.equal(res.status, 200, asset);
      assert.match(res.headers.get('content-type') ?? '', asset.endsWith('.css') ? /^text\/css/ : /javascript/, asset);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', asset);
      const cache = res.headers.get('cache-control') ?? '';
      // Swagger UI's files are versioned by their path; Atrium's own are revalidated.
      if (asset.includes('/swagger-ui-')) assert.match(cache, /max-age=31536000.*immutable/, asset);
      else assert.equal(cache, 'no-cache', asset);
      await res.arrayBuffer();
    }
    const swaggerUi = assets.find((a) => a.includes('/swagger-ui-'))!.replace(/[^/]+$/, '');
    for (const other of ['index.html', 'swagger-initializer.js', 'package.json', 'oauth2-redirect.html', '']) {
      const res = await fetch(server.url + swaggerUi + other, { headers: html });
      assert.equal(res.status, 404, `${swaggerUi}${other}: only the files the page loads are served`);
      assert.ok('detail' in ((await res.json()) as object));
    }
    assert.ok((await fetch(`${server.url}/docs/assets/%2e%2e/%2e%2e/package.json`)).status >= 400, 'no way out of the assets');

    // The contract knows nothing of /docs, except where it points readers.
    const contract = (await (await fetch(`${server.url}/v0/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
      info: { description: string };
      externalDocs: { description: string; url: string };
    };
    assert.deepEqual(Object.keys(contract.paths).filter((p) => !p.startsWith('/v0')), []);
    assert.deepEqual(contract.externalDocs, { description: 'Atrium protocol guide', url: `${server.url}/docs/protocol` });
    assert.match(contract.info.description, /`\/docs`/);

    // The API stays the API's, and /docs is never the web app's.
    const v0 = await fetch(`${server.url}/v0`, { headers: html });
    assert.equal(v0.status, 200);
    assert.match(v0.headers.get('content-type') ?? '', /^application\/json/);
    await v0.json();
    for (const path of ['/v0/docs', '/docs/nope', '/docs/protocol/', '/docs/assets', '/docs/assets/nope.js', '/docs/x/y']) {
      const res = await fetch(server.url + path, { headers: html });
      assert.equal(res.status, 404, path);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/, path);
      assert.deepEqual(Object.keys((await res.json()) as object), ['detail'], path);
    }
  });

  it('renders the guides from Markdown: GitHub anchors, links between guides, raw HTML shown as text', async () => {
    const res = await fetch(`${server.url}/docs/protocol`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    const csp = assertFrameHeaders(res, '/docs/protocol');
    assert.doesNotMatch(csp, /script-src/, 'a guide runs no script');
    const body = await res.text();
    assert.match(body, /<title>Atrium protocol · Atrium<\/title>/);
    assert.match(body, /<h1 id="atrium-protocol">Atrium protocol<\/h1>/);
    assert.match(body, /<h2 id="feeds">Feeds<\/h2>/);
    assert.match(body, /<h2 id="feeds-1">Feeds<\/h2>/);
    assert.match(body, /<a href="\/docs\/tasks#states">task states<\/a>/);
    assert.match(body, /<a href="\/docs\/tasks">the tasks guide<\/a>/);
    assert.match(body, /code is in src;/, 'files that are not served are not linked');
    assert.doesNotMatch(body, /javascript:/);
    assert.match(body, /Neither is a, b or c, which browsers read as another site\./);
    assert.doesNotMatch(body, /<script|<b>/, 'raw HTML is never passed through');
    assert.match(body, /&#x3C;script>document\.title/);
    assert.match(body, /<table>/);
    assert.match(body, /type="checkbox" checked disabled/);
    assert.match(body, /<a href="\/docs">API reference<\/a>/);

    const tasks = await (await fetch(`${server.url}/docs/tasks`)).text();
    assert.match(tasks, /<a href="\/docs\/protocol#feeds">protocol<\/a>/);

    const index = await fetch(`${server.url}/docs/guides`);
    assert.equal(index.status, 200);
    const list = await index.text();
    assert.match(list, /<a href="\/docs\/protocol">Atrium protocol<\/a>/);
    assert.match(list, /<a href="\/docs\/tasks">Tasks<\/a>/);
    assert.doesNotMatch(list, /notes/);
  });

  it("renders the project's own guides, and answers 404 {detail} for a missing one", async () => {
    const real = Fastify();
    const empty = mkdtempSync(join(tmpdir(), 'atrium-docs-'));
    const none = Fastify();
    try {
      await registerDocs(real);
      const web = await real.inject({ method: 'GET', url: '/docs/web' });
      assert.equal(web.statusCode, 200);
      assert.match(web.body, /<h1 id="[a-z0-9-]+">/);
      // The index renders every guide in docs/.
      const index = await real.inject({ method: 'GET', url: '/docs/guides' });
      assert.equal(index.statusCode, 200);
      assert.match(index.body, /<a href="\/docs\/web">/);

      await registerDocs(none, { docsDir: empty });
      const missing = await none.inject({ method: 'GET', url: '/docs/protocol' });
      assert.equal(missing.statusCode, 404);
      assert.equal(typeof missing.json<{ detail: string }>().detail, 'string');
      assert.doesNotMatch((await none.inject({ method: 'GET', url: '/docs' })).body, /\/docs\/protocol/, 'no link to a guide that is not there');
    } finally {
      await real.close();
      await none.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });

  for (const width of WIDTHS) {
    it(`shows the reference and a guide in Chromium at ${width} px, loading nothing from anywhere else`, async () => {
      const page = await pages.open();
      await page.setViewportSize({ width, height: 900 });
      // The phone run is in the dark scheme, so both schemes get looked at.
      if (width < 600) await page.emulateMedia({ colorScheme: 'dark' });
      const requests: string[] = [];
      page.on('request', (request) => requests.push(request.url()));

      // The web app links to the reference from every page; the link leaves the app.
      await page.goto('/');
      await page.getByRole('heading', { level: 1 }).waitFor();
      await page.screenshot({ path: join(SCREENSHOTS, `app-${width}.png`), fullPage: true });
      await page.getByRole('contentinfo').getByRole('link', { name: 'API reference' }).click();
      await page.waitForURL((url) => url.pathname === '/docs');
      await page.getByText("Read a page of a Space's event feed").waitFor();
      // A tag's heading also holds its collapse button, named after it.
      await page.getByRole('heading', { level: 3, name: /^Events\b/ }).waitFor();
      await page.getByRole('link', { name: 'Atrium protocol guide' }).waitFor();
      await page.screenshot({ path: join(SCREENSHOTS, `reference-${width}.png`) });

      // An operation opens with its parameters and answers.
      await page.getByText("Read a page of a Space's event feed").click();
      await page.getByText('Exclusive cursor: only events after it', { exact: false }).first().waitFor();
      await page.getByText('One feed page.').scrollIntoViewIfNeeded();
      await assertNoSidewaysScroll(page, width, 'the reference');
      await page.screenshot({ path: join(SCREENSHOTS, `reference-operation-${width}.png`) });

      await page.getByRole('navigation', { name: 'Documentation' }).getByRole('link', { name: 'Protocol guide' }).click();
      await page.waitForURL((url) => url.pathname === '/docs/protocol');
      await page.getByRole('heading', { level: 1, name: 'Atrium protocol' }).waitFor();
      await assertNoSidewaysScroll(page, width, 'the protocol guide');
      await page.screenshot({ path: join(SCREENSHOTS, `protocol-${width}.png`), fullPage: true });

      const elsewhere = requests.filter((url) => !url.startsWith(`${server.url}/`) && !/^(data|blob):/.test(url));
      assert.deepEqual(elsewhere, [], 'every request stays on this host');
      assert.ok(requests.includes(`${server.url}/v0/openapi.json`), 'the reference reads this host\'s contract');
    });
  }
});

describe('API reference of a contract with a discriminated union', () => {
  // The events contract will describe each event type as one variant of a
  // `oneOf` with a `discriminator`; the reference must show the variants.
  const contract = {
    openapi: '3.1.0',
    info: { title: 'Union fixture', version: '1' },
    paths: {
      '/v0/things/events': {
        get: {
          operationId: 'list_thing_events',
          summary: 'List what happened to things',
          tags: ['Events'],
          responses: {
            '200': {
              description: 'Some events.',
              content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/ThingEvent' } } } },
            },
          },
        },
      },
    },
    components: {
      schemas: {
        ThingEvent: {
          oneOf: [{ $ref: '#/components/schemas/ThingCreated' }, { $ref: '#/components/schemas/ThingRenamed' }],
          discriminator: {
            propertyName: 'type',
            mapping: { thing_created: '#/components/schemas/ThingCreated', thing_renamed: '#/components/schemas/ThingRenamed' },
          },
        },
        ThingCreated: {
          type: 'object',
          required: ['type', 'size'],
          properties: { type: { const: 'thing_created' }, size: { type: 'integer', description: 'How big the new thing is.' } },
        },
        ThingRenamed: {
          type: 'object',
          required: ['type', 'new_name'],
          properties: { type: { const: 'thing_renamed' }, new_name: { type: ['string', 'null'], description: 'What it is called now.' } },
        },
      },
    },
  };
  const app = Fastify();
  let url: string;
  let browser: Browser;
  let pages: Pages;

  before(async () => {
    app.get('/v0/openapi.json', { schema: { hide: true } }, async () => contract);
    await registerDocs(app);
    await registerWebApp(app);
    await app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
    pages = new Pages(browser, { url });
  });
  afterEach(() => pages.finish());
  after(async () => {
    await browser?.close();
    await app.close();
  });

  it('shows each variant of a oneOf with its properties', async () => {
    const page = await pages.open();
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto('/docs');
    const model = page.locator('.models article[data-json-schema-level="0"]').filter({ hasText: 'ThingEvent' });
    await model.getByRole('button', { name: 'Expand all' }).click();
    await model.getByText('How big the new thing is.').waitFor();
    await model.getByText('What it is called now.').waitFor();
    await model.getByText('thing_renamed').first().waitFor();
    await model.getByText('Discriminator').waitFor();
    await model.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SCREENSHOTS, 'one-of-1280.png') });
  });
});
