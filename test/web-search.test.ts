import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { ensureWebBuild, launchBrowser, Pages } from './support/browser.js';
import { TestClock } from './support/clock.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';
import { assertAccessible, screenshots } from './support/web-app.js';

// Search in the web app, as people use it: the header's field (and `/`), the
// results page with its chips, and each kind of result opened where it lives.
// The server's clock stands still, so the anonymous searches' rate limit
// (a sliding minute) holds exactly what this file spent, whatever the pace.

const ANONYMOUS_LIMIT = 12;

for (const backend of backends()) {
  describe(`web search (${backend})`, () => {
    let server: TestServer;
    let browser: Browser;
    let pages: Pages;
    let ada: { handle: string; session: string };
    let bob: { handle: string; session: string };
    const slug = 'garden';
    const ids: { general: number; html: number; emoji: number; marigold: number; task: number; discussion: number; direct: number; resource: string } = {
      general: 0,
      html: 0,
      emoji: 0,
      marigold: 0,
      task: 0,
      discussion: 0,
      direct: 0,
      resource: '',
    };

    const api = async (method: string, path: string, token: string, body?: unknown) => {
      const res = await server.request(method, path, { token, ...(body !== undefined ? { body } : {}) });
      assert.ok(res.status >= 200 && res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const post = async (channel: string, body: string, token = ada.session) =>
      (await api('POST', `/v0/spaces/${slug}/channels/${channel}/messages`, token, { body })).id as number;

    before(async () => {
      ensureWebBuild();
      server = await startServer(backend, {
        clock: new TestClock(Date.now()),
        env: { ATRIUM_ACTIVATION_RATE_LIMIT: '1000', ATRIUM_SEARCH_ANONYMOUS_RATE_LIMIT: String(ANONYMOUS_LIMIT) },
      });
      browser = await launchBrowser();
      pages = new Pages(browser, server);
      ada = await server.human('ada');
      bob = await server.human('bob');
      await api('POST', '/v0/spaces', ada.session, { slug, name: 'Community Garden', join_policy: 'open' });
      await api('POST', `/v0/spaces/${slug}/approve`, STEWARD_KEY);
      await api('POST', `/v0/spaces/${slug}/join`, ada.session);
      await api('POST', `/v0/spaces/${slug}/join`, bob.session);

      ids.general = await post('general', 'The **trellis** on the south wall needs new wire.');
      // Member-written text is data: markup in it is shown as the characters typed.
      ids.html = await post('general', 'Found <b>blight</b> near the beans <img src=x onerror=alert(1)>');
      // Code points, not UTF-16 halves: the emoji before the match counts once.
      ids.emoji = await post('general', '🌻🌻 sunflower seeds are in the shed');

      await api('POST', `/v0/spaces/${slug}/channels`, ada.session, { name: 'archive', topic: 'Old notes' });
      for (let i = 1; i <= 70; i += 1) {
        const id = await post('archive', i === 3 ? `old note ${i}: the marigold bed moved east` : `old note ${i}`);
        if (i === 3) ids.marigold = id;
      }

      ids.task = (await api('POST', `/v0/spaces/${slug}/tasks`, ada.session, { kind: 'general', title: 'Repair the trellis', body: 'Wire and two posts.' }))
        .id as number;
      ids.discussion = (await api('POST', `/v0/spaces/${slug}/tasks/${ids.task}/messages`, bob.session, { body: 'I can bring pliers for the trellis.' }))
        .id as number;
      ids.direct = (await api('POST', `/v0/spaces/${slug}/direct-messages`, ada.session, { to: 'bob', body: 'Between us: the trellis budget is tight.' }))
        .id as number;

      const filler = Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of the general advice about soil, water and light.`).join('\n');
      const content = [
        '# Planting guide',
        '',
        'How this garden plants its beds.',
        '',
        '## Spring beds',
        '',
        filler,
        '',
        '## Trellis care',
        '',
        '```',
        '# not a heading, only code',
        '```',
        '',
        'Check every post for rot, and train the espalier along the wires.',
        '',
        '## Autumn',
        '',
        'Cut back and mulch.',
      ].join('\n');
      ids.resource = (await api('POST', `/v0/spaces/${slug}/resources`, ada.session, { name: 'Planting guide', content })).id as string;
    });
    afterEach(() => pages.finish());
    after(async () => {
      await browser?.close();
      await server?.stop();
    });

    const heading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name, exact: true });
    const results = (page: Page) => page.getByRole('list', { name: 'Results' });
    const result = (page: Page, name: string) => results(page).getByRole('article', { name, exact: true });
    const field = (page: Page) => page.getByRole('searchbox', { name: 'Search for' });
    const chip = (page: Page, name: string) => page.getByRole('button', { name, exact: true });
    const activeId = (page: Page) => page.evaluate<string>('document.activeElement ? document.activeElement.id : ""');
    /** Waits until the focused element matches `selector` (a function, as the page's CSP refuses evaluating strings). */
    const focusOn = (page: Page, selector: string) =>
      page.waitForFunction((sel) => {
        const { document } = globalThis as unknown as { document: { activeElement: { matches(s: string): boolean } | null } };
        return document.activeElement?.matches(sel) === true;
      }, selector);
    const inView = (locator: Locator) =>
      locator.evaluate((el) => {
        const r = (el as unknown as { getBoundingClientRect(): { top: number; bottom: number } }).getBoundingClientRect();
        const { innerHeight } = globalThis as unknown as { innerHeight: number };
        return r.top >= 0 && r.bottom <= innerHeight;
      });

    async function searchFromHeader(page: Page, q: string): Promise<void> {
      // The page is up (its heading shows) before its keys are listened to.
      await page.getByRole('heading', { level: 1 }).waitFor();
      await page.keyboard.press('/');
      assert.equal(await activeId(page), 'site-search', '`/` focuses the header search');
      await page.keyboard.type(q);
      await page.keyboard.press('Enter');
      await heading(page, 'Search').waitFor();
    }

    it('searches from the header with `/`, marks the matches, and filters by chips kept in the address', async () => {
      const page = await pages.open({ session: bob.session });
      await page.goto(`/spaces/${slug}/channels/general`);
      await heading(page, '#general').waitFor();
      // While typing, `/` is a character, not the shortcut.
      const composer = page.getByRole('combobox', { name: 'Message #general' });
      await composer.click();
      await page.keyboard.type('a/b');
      assert.equal(await composer.inputValue(), 'a/b');
      assert.notEqual(await activeId(page), 'site-search');
      await composer.fill('');
      await page.getByRole('heading', { level: 1 }).click();

      await searchFromHeader(page, 'trellis');
      const url = new URL(page.url());
      assert.equal(url.pathname, '/search');
      assert.equal(url.searchParams.get('q'), 'trellis');
      await page.getByRole('status').filter({ hasText: '5 results.' }).waitFor();
      assert.equal(await field(page).inputValue(), 'trellis');
      // Where each lives, in words: the channel, the task, its discussion, the direct conversation, the Resource.
      await result(page, '#general').waitFor();
      await result(page, 'Repair the trellis').waitFor();
      await result(page, 'Discussion of “Repair the trellis”').waitFor();
      await result(page, 'Direct message with @ada').waitFor();
      await result(page, 'Planting guide').waitFor();
      const general = result(page, '#general');
      assert.match(await general.innerText(), /^Message in Community Garden · @ada · /m);
      assert.deepEqual(await general.locator('mark').allTextContents(), ['trellis']);
      // Every match is marked, each exactly its term.
      const marks = (await results(page).locator('mark').allTextContents()).map((m) => m.toLowerCase());
      assert.ok(marks.length >= 5 && marks.every((m) => m === 'trellis'), `marks: ${marks.join(', ')}`);
      await assertAccessible(page, 'search results');
      await screenshots(page, 'search-results');
      await page.setViewportSize({ width: 390, height: 844 });
      await assertAccessible(page, 'search results at 390 px');
      const sideways = await page.evaluate<boolean>('document.documentElement.scrollWidth > document.documentElement.clientWidth');
      assert.equal(sideways, false, 'nothing scrolls sideways at 390 px');
      await page.setViewportSize({ width: 1280, height: 800 });

      // A kind chip narrows, and says so; the address holds it.
      await chip(page, 'Tasks').click();
      // Here `/` goes to the page's own field, the header's being left out.
      assert.equal(await page.getByRole('searchbox', { name: 'Search', exact: true }).count(), 0);
      await page.keyboard.press('/');
      assert.equal(await activeId(page), 'search-q');
      await page.waitForURL(/kind=task/);
      await page.getByRole('status').filter({ hasText: '1 result.' }).waitFor();
      await result(page, 'Repair the trellis').waitFor();
      assert.equal(await chip(page, 'Tasks').getAttribute('aria-pressed'), 'true');
      assert.equal(await chip(page, 'Everything').getAttribute('aria-pressed'), 'false');
      // Back undoes it.
      await page.goBack();
      await page.getByRole('status').filter({ hasText: '5 results.' }).waitFor();
      assert.equal(await chip(page, 'Everything').getAttribute('aria-pressed'), 'true');

      // "Direct messages only" writes `is:dm` into the query, where the person sees it.
      await chip(page, 'Direct messages only').click();
      await page.getByRole('status').filter({ hasText: '1 result.' }).waitFor();
      assert.equal(await field(page).inputValue(), 'trellis is:dm');
      await result(page, 'Direct message with @ada').waitFor();
      await chip(page, 'Direct messages only').click();
      await page.getByRole('status').filter({ hasText: '5 results.' }).waitFor();
      assert.equal(await field(page).inputValue(), 'trellis');

      // Newest first: by time alone (the clock stands still here, so the newest id comes first).
      await chip(page, 'Newest first').click();
      await page.waitForURL(/sort=newest/);
      await page.getByRole('status').filter({ hasText: '5 results.' }).waitFor();
      assert.equal(await results(page).getByRole('article').first().getAttribute('aria-labelledby'), `result-resource-${ids.resource}`);

      // Opening a message lands on it in its channel: scrolled to, marked, focused.
      await chip(page, 'Most relevant').click();
      await result(page, '#general').getByRole('link', { name: '#general' }).click();
      await page.waitForURL(`**/spaces/${slug}/channels/general?message=${ids.general}`);
      const target = page.getByRole('log', { name: 'Messages in #general' }).locator(`[data-message="${ids.general}"]`);
      await target.and(page.locator('[aria-current="true"]')).waitFor();
      await focusOn(page, `[data-message="${ids.general}"]`);
      assert.match(await target.innerText(), /linked/);
      await assertAccessible(page, 'channel with a linked message');
    });

    it('opens a message older than the conversation’s first page, a discussion message and a direct message', async () => {
      const page = await pages.open({ session: bob.session });
      await page.goto('/');
      await searchFromHeader(page, 'marigold');
      await result(page, '#archive').getByRole('link').click();
      await page.waitForURL(`**/channels/archive?message=${ids.marigold}`);
      const log = page.getByRole('log', { name: 'Messages in #archive' });
      const target = log.locator(`[data-message="${ids.marigold}"]`);
      // 70 messages, 50 a page: the page before the first had to be read for it.
      await target.and(page.locator('[aria-current="true"]')).waitFor();
      await focusOn(page, `[data-message="${ids.marigold}"]`);
      assert.equal(await inView(target), true, 'the message is scrolled into view');
      assert.equal(await log.getByText('old note 70', { exact: true }).count(), 1, 'the newest is still there below');
      await screenshots(page, 'search-old-message');

      await page.goBack();
      await heading(page, 'Search').waitFor();
      await field(page).fill('pliers');
      await page.keyboard.press('Enter');
      await result(page, 'Discussion of “Repair the trellis”').getByRole('link').click();
      await page.waitForURL(`**/tasks/${ids.task}?message=${ids.discussion}`);
      await page.getByRole('list', { name: 'Messages' }).locator(`[data-message="${ids.discussion}"][aria-current="true"]`).waitFor();
      await focusOn(page, `[data-message="${ids.discussion}"]`);

      await page.goBack();
      await field(page).fill('budget');
      await page.keyboard.press('Enter');
      await result(page, 'Direct message with @ada').getByRole('link').click();
      await page.waitForURL(`**/dm/ada?message=${ids.direct}`);
      await page.getByRole('log', { name: 'Messages with @ada' }).locator(`[data-message="${ids.direct}"][aria-current="true"]`).waitFor();
    });

    it('opens a Resource at the heading above the match, and shows member text as text', async () => {
      const page = await pages.open({ session: ada.session });
      await page.goto(`/spaces/${slug}`);
      // Inside a Space, the header offers to search only it.
      await page.getByRole('checkbox', { name: 'In this Space' }).check();
      await searchFromHeader(page, 'espalier');
      assert.equal(new URL(page.url()).searchParams.get('space'), slug);
      assert.equal(await chip(page, 'In Community Garden').getAttribute('aria-pressed'), 'true');
      const link = result(page, 'Planting guide').getByRole('link', { name: 'Planting guide' });
      // The heading is found in the Resource's text (the snippet does not hold it), past a `#` inside code.
      await link.and(page.locator('[href$="#section-trellis-care"]')).waitFor();
      assert.deepEqual(await result(page, 'Planting guide').locator('mark').allTextContents(), ['espalier']);
      await link.click();
      await page.waitForURL(`**/resources/${ids.resource}#section-trellis-care`);
      const section = page.getByRole('heading', { name: 'Trellis care' });
      await focusOn(page, '#section-trellis-care');
      assert.equal(await section.getAttribute('class'), 'targeted');
      assert.equal(await inView(section), true, 'the heading is scrolled into view');
      await assertAccessible(page, 'Resource at a heading');
      await screenshots(page, 'search-resource-heading');

      // The emoji before the match counts as one code point: the mark is the word itself.
      await page.goto('/search?q=sunflower');
      await result(page, '#general').locator('mark').waitFor();
      assert.deepEqual(await result(page, '#general').locator('mark').allTextContents(), ['sunflower']);
      // Markup a member typed is shown as typed, never made into elements.
      await page.goto('/search?q=blight');
      const snippet = result(page, '#general').locator('.search-snippet');
      await snippet.getByText('<b>', { exact: false }).waitFor();
      assert.match(await snippet.innerText(), /Found <b>blight<\/b> near the beans <img src=x onerror=alert\(1\)>/);
      assert.equal(await snippet.locator('b, img').count(), 0);
    });

    it('pages with "More results", moving focus to the first new one', async () => {
      const page = await pages.open({ session: bob.session });
      await page.goto('/search?q=note&sort=newest');
      await page.getByRole('status').filter({ hasText: '20 results so far; more below.' }).waitFor();
      await page.getByRole('button', { name: 'More results' }).click();
      await page.getByRole('status').filter({ hasText: '40 results so far; more below.' }).waitFor();
      await focusOn(page, '.search-results > li:nth-child(21) .search-result-title a');
      const snippets = await results(page).locator('.search-snippet').allTextContents();
      assert.equal(snippets[0], 'old note 70');
      assert.equal(snippets[20], 'old note 50');
    });

    it('shows a refused query at the field, in the server’s words, and keeps what was typed', async () => {
      const page = await pages.open({ session: bob.session });
      pages.expectRefusal(422, /^\/v0\/search$/);
      await page.goto('/search?q=kind%3Apoem');
      const error = page.locator('#search-q-error');
      await error.waitFor();
      assert.match(await error.innerText(), /kind/);
      assert.equal(await field(page).getAttribute('aria-invalid'), 'true');
      assert.equal(await field(page).getAttribute('aria-describedby'), 'search-q-error');
      assert.equal(await field(page).inputValue(), 'kind:poem');
      assert.equal(await results(page).count(), 0);
      await assertAccessible(page, 'refused search');
      await screenshots(page, 'search-refused');
      // A query that finds nothing is no error: it says so.
      await field(page).fill('zucchini');
      await page.keyboard.press('Enter');
      await page.getByRole('status').filter({ hasText: 'Nothing found for “zucchini”.' }).waitFor();
      assert.equal(await error.count(), 0);
    });

    it('lets anonymous visitors search the public Spaces, and says to sign in when they search too often', async () => {
      const page = await pages.open();
      await page.goto('/');
      await searchFromHeader(page, 'trellis');
      // No direct message for someone signed out; the rest is public.
      await page.getByRole('status').filter({ hasText: '4 results.' }).waitFor();
      assert.equal(await result(page, 'Direct message with @ada').count(), 0);
      assert.equal(await chip(page, 'Direct messages only').count(), 0);
      await assertAccessible(page, 'anonymous search results');

      // Spend the rest of this address's anonymous searches (the clock stands still, so none comes back).
      let spent = 0;
      for (;;) {
        const res = await fetch(`${server.url}/v0/search?q=trellis`);
        await res.body?.cancel();
        if (res.status === 429) break;
        assert.equal(res.status, 200);
        assert.ok(++spent <= ANONYMOUS_LIMIT, 'the limit holds');
      }
      pages.expectRefusal(429, /^\/v0\/search$/);
      await field(page).fill('wire');
      await page.keyboard.press('Enter');
      const refusal = page.getByRole('alert').filter({ hasText: 'Too many searches from this address without signing in.' });
      await refusal.waitFor();
      assert.equal(await refusal.getByRole('link', { name: 'Sign in' }).getAttribute('href'), `/sign-in?next=${encodeURIComponent('/search?q=wire')}`);
      await screenshots(page, 'search-rate-limited');
    });
  });
}
