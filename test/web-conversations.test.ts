import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Page, Route } from 'playwright-core';
import { seedAgent } from './support/seed.js';
import { backends, STEWARD_KEY } from './support/server.js';
import { activeSpace } from './support/spaces.js';
import { assertAccessible, screenshots, SCREENSHOTS, startWebApp, type WebApp } from './support/web-app.js';

/** The little of the DOM these checks read inside the page. */
interface Element {
  closest(selector: string): unknown;
  classList: { contains(name: string): boolean };
}

// Channels, direct messages, the inbox and the activity timeline, driven as
// people use them: two members in one Space, each in their own browser
// context, and an agent posting through the API with its member key. Every
// "live" check happens on a page that was never reloaded.

for (const backend of backends()) {
  describe(`web conversations (${backend})`, () => {
    let app: WebApp;
    let ada: { handle: string; session: string };
    let bob: { handle: string; session: string };
    let bot: { handle: string; key: string };
    const slug = 'studio';

    before(async () => {
      app = await startWebApp(backend);
      ada = await app.server.human('ada');
      bob = await app.server.human('bob');
      bot = await seedAgent(app.server, 'helper-bot', 'ada', 'active', { confirmed: true });
      await activeSpace(app.server, ada.session, slug, 'open');
      for (const token of [ada.session, bob.session, bot.key]) {
        const joined = await app.server.request('POST', `/v0/spaces/${slug}/join`, { token });
        assert.equal(joined.status, 200);
      }
    });
    afterEach(() => app.pages.finish());
    after(() => app?.stop());

    const heading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name, exact: true });
    const log = (page: Page, name: string) => page.getByRole('log', { name });
    const inboxLink = (page: Page, name: string) => page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name, exact: true });

    async function openChannel(session: string | undefined, channel: string): Promise<Page> {
      const page = await app.pages.open(session ? { session } : {});
      await page.goto(`/spaces/${slug}/channels/${channel}`);
      await heading(page, `#${channel}`).waitFor();
      return page;
    }

    /** Marks the page, so a later check can tell it was not reloaded. */
    const mark = (page: Page) => page.evaluate('window.__notReloaded = true');
    const notReloaded = async (page: Page) => assert.equal(await page.evaluate('window.__notReloaded'), true, 'the page was reloaded');

    it('a mention picked from the completion list appears live, highlighted, and reaches the inbox', async () => {
      const bobPage = await openChannel(bob.session, 'general');
      await log(bobPage, 'Messages in #general').getByText('No messages in #general yet.').waitFor();
      await mark(bobPage);
      assert.equal(await inboxLink(bobPage, 'Inbox').count(), 1, 'nothing unread yet');

      const adaPage = await openChannel(ada.session, 'general');
      const composer = adaPage.getByRole('combobox', { name: 'Message #general' });
      await composer.click();
      await composer.pressSequentially('Hello @bo');
      const options = adaPage.getByRole('listbox', { name: 'Members to mention' }).getByRole('option');
      await options.first().waitFor();
      // "bo" starts @bob and is inside @helper-bot; the author is never offered.
      assert.deepEqual(await options.allTextContents(), ['@bob', '@helper-bot']);
      await screenshots(adaPage, 'conversations-composer');
      assert.equal(await composer.getAttribute('aria-expanded'), 'true');
      await adaPage.keyboard.press('ArrowDown');
      await adaPage.getByRole('option', { name: '@helper-bot', selected: true }).waitFor();
      await adaPage.keyboard.press('ArrowUp');
      await adaPage.getByRole('option', { name: '@bob', selected: true }).waitFor();
      await adaPage.keyboard.press('Enter');
      assert.equal(await composer.inputValue(), 'Hello @bob ');
      assert.equal(await composer.getAttribute('aria-expanded'), 'false');
      // Escape closes the list without picking.
      await composer.pressSequentially('and @hel');
      await options.first().waitFor();
      await adaPage.keyboard.press('Escape');
      await adaPage.getByRole('listbox', { name: 'Members to mention' }).waitFor({ state: 'hidden' });
      await composer.pressSequentially('per-bot, please **review** the plan.');
      await adaPage.keyboard.press('Control+Enter');
      // Cleared once the server took it.
      await adaPage.waitForFunction(() => {
        const { document } = globalThis as unknown as { document: { querySelector(s: string): { value: string } | null } };
        return document.querySelector('textarea')?.value === '';
      });
      const adaLog = log(adaPage, 'Messages in #general');
      await adaLog.getByText('please review the plan.', { exact: false }).waitFor();
      // Mentions are styled for everyone; only the reader's own is marked as theirs.
      await adaLog.locator('span.mention', { hasText: '@bob' }).waitFor();
      await adaLog.locator('span.mention', { hasText: '@helper-bot' }).waitFor();
      assert.equal(await adaLog.locator('mark.mention-me').count(), 0);

      // Bob's page, never reloaded, shows it with his mention highlighted.
      const bobLog = log(bobPage, 'Messages in #general');
      await bobLog.getByText('please review the plan.', { exact: false }).waitFor();
      await bobLog.locator('mark.mention-me', { hasText: '@bob' }).waitFor();
      await bobLog.getByText('mentions you').waitFor();
      assert.equal(await bobLog.locator('strong', { hasText: 'review' }).count(), 1, 'the Markdown is rendered');
      await inboxLink(bobPage, 'Inbox 1 unread').waitFor();
      await notReloaded(bobPage);
      await assertAccessible(bobPage, 'channel page');
      await screenshots(bobPage, 'conversations-channel');

      // The inbox lists it, says it marks everything read, and leads to the channel.
      await inboxLink(bobPage, 'Inbox 1 unread').click();
      await heading(bobPage, 'Inbox').waitFor();
      await bobPage.getByRole('status').filter({ hasText: '1 new message' }).waitFor();
      await bobPage.getByText('Opening the inbox marks everything in it as read.').waitFor();
      const item = bobPage.getByRole('link', { name: '@ada mentioned you in #general' });
      await item.waitFor();
      await bobPage.getByRole('listitem').filter({ has: item }).getByText('new', { exact: true }).waitFor();
      await inboxLink(bobPage, 'Inbox').waitFor();
      await assertAccessible(bobPage, 'inbox');
      await screenshots(bobPage, 'conversations-inbox');
      await item.click();
      await bobPage.waitForURL(`**/spaces/${slug}/channels/general`);
      await heading(bobPage, '#general').waitFor();
      await notReloaded(bobPage);
    });

    it('a direct message appears in both sidebars and pages, and in the inbox count', async () => {
      const bobPage = await openChannel(bob.session, 'general');
      await mark(bobPage);
      const bobDirects = bobPage.getByRole('region', { name: 'Direct messages' });
      await bobDirects.getByText('No direct messages yet.').waitFor();
      // Bob read the first story's mention in his inbox, in another browser: the host keeps his
      // read mark, so this one counts nothing unread.
      await inboxLink(bobPage, 'Inbox').waitFor();

      const adaPage = await app.pages.open({ session: ada.session });
      await adaPage.goto(`/spaces/${slug}`);
      await adaPage.getByRole('button', { name: 'Message a member' }).click();
      await adaPage.getByLabel('Member', { exact: true }).selectOption('bob');
      await adaPage.getByRole('button', { name: 'Open conversation' }).click();
      await heading(adaPage, 'Direct messages with @bob').waitFor();
      await log(adaPage, 'Messages with @bob').getByText('No messages with @bob yet.').waitFor();
      await adaPage.getByRole('combobox', { name: 'Message @bob' }).fill('Can we talk about the plan?');
      await adaPage.getByRole('button', { name: 'Send' }).click();
      await log(adaPage, 'Messages with @bob').getByText('Can we talk about the plan?').waitFor();
      const adaLink = adaPage.getByRole('region', { name: 'Direct messages' }).getByRole('link', { name: '@bob' });
      await adaLink.waitFor();
      assert.equal(await adaLink.getAttribute('aria-current'), 'page');
      await assertAccessible(adaPage, 'direct message page');
      await screenshots(adaPage, 'conversations-dm');

      // Bob learns of it without a reload: the sidebar, the inbox count, the page.
      await inboxLink(bobPage, 'Inbox 1 unread').waitFor();
      await bobDirects.getByRole('link', { name: '@ada' }).click();
      await heading(bobPage, 'Direct messages with @ada').waitFor();
      await log(bobPage, 'Messages with @ada').getByText('Can we talk about the plan?').waitFor();
      await bobPage.getByRole('combobox', { name: 'Message @ada' }).fill('Yes, after lunch.');
      await bobPage.keyboard.press('Control+Enter');
      await log(adaPage, 'Messages with @bob').getByText('Yes, after lunch.').waitFor();
      await notReloaded(bobPage);
    });

    it('keeps what was typed when the host refuses the message, says why, and sends it once allowed again', async () => {
      const cara = await app.server.human('cara');
      const steward = (path: string, body?: unknown) =>
        app.server.request('POST', path, { token: STEWARD_KEY, ...(body !== undefined ? { body } : {}) });
      assert.equal((await app.server.request('POST', `/v0/spaces/${slug}/join`, { token: cara.session })).status, 200);
      const page = await openChannel(cara.session, 'general');
      await mark(page);
      // Hold the Space feed, so the page has not yet heard of the removal when Cara presses Send.
      const held: Route[] = [];
      await page.route(new RegExp(`/v0/spaces/${slug}/events\\?`), (route) => void held.push(route));
      const draft = 'A long thought I would hate to type twice.';
      await page.getByRole('combobox', { name: 'Message #general' }).fill(draft);
      assert.equal((await steward(`/v0/spaces/${slug}/members/cara/remove`)).status, 200);

      app.pages.expectRefusal(403, new RegExp(`^/v0/spaces/${slug}/channels/general/messages$`));
      await page.getByRole('button', { name: 'Send' }).click();
      await page.getByRole('alert').filter({ hasText: /^Could not send: .*cara/ }).waitFor();
      assert.equal(await page.getByRole('combobox', { name: 'Message #general' }).inputValue(), draft);
      assert.equal(await log(page, 'Messages in #general').getByText(draft).count(), 0);

      // Invited back and joined again: the same text goes out as it was typed.
      assert.equal((await steward(`/v0/spaces/${slug}/invitations`, { member: 'cara' })).status, 201);
      assert.equal((await app.server.request('POST', `/v0/spaces/${slug}/join`, { token: cara.session })).status, 200);
      await page.getByRole('button', { name: 'Send' }).click();
      await log(page, 'Messages in #general').getByText(draft).waitFor();
      assert.equal(await page.getByRole('combobox', { name: 'Message #general' }).inputValue(), '');
      assert.equal(await page.getByRole('alert').filter({ hasText: 'Could not send' }).count(), 0);
      await notReloaded(page);
      await page.unroute(new RegExp(`/v0/spaces/${slug}/events`));
      await Promise.all(held.map((route) => route.continue()));
    });

    it('loads older history by the button, keeping the newest at the bottom', async () => {
      const created = await app.server.request('POST', `/v0/spaces/${slug}/channels`, { token: ada.session, body: { name: 'history', topic: 'Old news' } });
      assert.equal(created.status, 201);
      for (let i = 1; i <= 60; i++) {
        const posted = await app.server.request('POST', `/v0/spaces/${slug}/channels/history/messages`, { token: ada.session, body: { body: `history message ${i}` } });
        assert.equal(posted.status, 201);
      }
      const page = await openChannel(bob.session, 'history');
      await page.getByText('Old news').waitFor();
      const history = log(page, 'Messages in #history');
      await history.getByText('history message 60', { exact: true }).waitFor();
      assert.equal(await history.getByRole('listitem').count(), 50, 'one page at first');
      assert.equal(await history.getByText('history message 10', { exact: true }).count(), 0);
      // The newest is in view at the bottom of the log.
      const fromBottom = await history.evaluate((el) => {
        const box = el as unknown as { scrollHeight: number; clientHeight: number; scrollTop: number };
        return box.scrollHeight - box.clientHeight - box.scrollTop;
      });
      assert.ok(fromBottom < 48, 'the log opens at the newest message');

      const older = page.getByRole('button', { name: 'Load older messages' });
      await older.focus();
      await page.keyboard.press('Enter');
      await history.getByText('history message 1', { exact: true }).waitFor();
      await history.getByText('This is the beginning of the conversation.').waitFor();
      assert.equal(await history.getByRole('listitem').count(), 60);
      const texts = await history.getByRole('listitem').locator('.message-body').allTextContents();
      assert.equal(texts[0]?.trim(), 'history message 1', 'oldest at the top');
      assert.equal(texts[59]?.trim(), 'history message 60', 'newest at the bottom');

      // Reading further up, a new message does not pull the log away: it is offered below.
      const posted = await app.server.request('POST', `/v0/spaces/${slug}/channels/history/messages`, { token: ada.session, body: { body: 'history message 61' } });
      assert.equal(posted.status, 201);
      await page.getByRole('button', { name: 'New messages below' }).click();
      await history.getByText('history message 61', { exact: true }).waitFor();
      await page.getByRole('button', { name: 'New messages below' }).waitFor({ state: 'detached' });
      const atBottom = await history.evaluate((el) => {
        const box = el as unknown as { scrollHeight: number; clientHeight: number; scrollTop: number };
        return box.scrollHeight - box.clientHeight - box.scrollTop;
      });
      assert.ok(atBottom < 48, 'the button scrolls to the newest message');
    });

    it('sends with Enter and adds a line with Shift+Enter, or the other way once the person turns "Enter sends" off', async () => {
      const created = await app.server.request('POST', `/v0/spaces/${slug}/channels`, { token: ada.session, body: { name: 'keys' } });
      assert.equal(created.status, 201);
      const page = await openChannel(ada.session, 'keys');
      const composer = page.getByRole('combobox', { name: 'Message #keys' });
      const setting = page.getByRole('checkbox', { name: 'Enter sends' });
      const keys = log(page, 'Messages in #keys');
      assert.equal(await setting.isChecked(), true, 'Enter sends by default');
      await page.getByText('Enter sends, Shift+Enter adds a line.').waitFor();
      await composer.click();
      await composer.pressSequentially('first line');
      await page.keyboard.press('Shift+Enter');
      await composer.pressSequentially('second line');
      assert.equal(await composer.inputValue(), 'first line\nsecond line', 'Shift+Enter adds a line');
      await page.keyboard.press('Enter');
      await keys.getByText('second line', { exact: false }).waitFor();
      assert.equal(await composer.inputValue(), '');

      // Turned off, Enter adds a line and Ctrl+Enter sends; the choice outlives a reload.
      await setting.uncheck();
      await page.getByText('Enter adds a line, Ctrl+Enter (⌘+Enter on a Mac) sends.').waitFor();
      await page.reload();
      await heading(page, '#keys').waitFor();
      assert.equal(await setting.isChecked(), false, 'the setting is kept in this browser');
      await composer.click();
      await composer.pressSequentially('one');
      await page.keyboard.press('Enter');
      await composer.pressSequentially('two');
      assert.equal(await composer.inputValue(), 'one\ntwo', 'Enter adds a line');
      await page.keyboard.press('Control+Enter');
      await keys.getByRole('listitem').filter({ hasText: 'two' }).waitFor();
      await setting.check();

      // Three messages in a row from one author read as one turn: the name shows once on
      // screen, yet every message still names its author to a screen reader.
      const items = keys.getByRole('listitem');
      assert.equal(await items.count(), 2);
      assert.deepEqual(await items.evaluateAll((els) => els.map((el) => (el as unknown as Element).classList.contains('continued'))), [false, true]);
      const names = await items.locator('.message-meta .handle').evaluateAll((els) => els.map((el) => (el as unknown as Element).closest('.visually-hidden') !== null));
      assert.deepEqual(names, [false, true], 'the second message names its author only to assistive technology');
      assert.equal(await items.nth(1).locator('.message-meta').getByText('@ada').count(), 1);
      // Times read as how long ago, with the exact moment on hover.
      const time = items.first().locator('time');
      assert.match(await time.innerText(), /^(now|\d+ (second|minute)s? ago)$/);
      assert.ok((await time.getAttribute('title'))?.match(/\d{4}/), 'the exact date is in the tooltip');
      // Another member breaks the turn.
      const posted = await app.server.request('POST', `/v0/spaces/${slug}/channels/keys/messages`, { token: bob.session, body: { body: 'bob here' } });
      assert.equal(posted.status, 201);
      await keys.getByRole('listitem').filter({ hasText: 'bob here' }).waitFor();
      assert.deepEqual(await items.evaluateAll((els) => els.map((el) => (el as unknown as Element).classList.contains('continued'))), [false, true, false]);
      await assertAccessible(page, 'channel page with a turn of messages');
    });

    it('keeps the composer on screen on a phone, under a log that fills the height', async () => {
      const page = await openChannel(bob.session, 'history');
      await page.setViewportSize({ width: 390, height: 844 });
      const composer = page.getByRole('combobox', { name: 'Message #history' });
      const history = log(page, 'Messages in #history');
      await history.getByText('history message 60', { exact: true }).waitFor();
      const onScreen = async () => {
        const box = await page.getByRole('button', { name: 'Send' }).boundingBox();
        const area = await composer.boundingBox();
        assert.ok(box && area, 'the composer is laid out');
        assert.ok(area.y >= 0 && box.y + box.height <= 844, `the composer and Send are on screen (${area.y}..${box.y + box.height})`);
      };
      await onScreen();
      // Scrolled to the conversation, the log takes most of the screen above the composer.
      await history.scrollIntoViewIfNeeded();
      await page.evaluate('window.scrollTo(0, document.body.scrollHeight)');
      await onScreen();
      const logBox = await history.boundingBox();
      assert.ok(logBox && logBox.height >= 844 * 0.6, `the log fills the height (${logBox?.height} px)`);
      // The screen as the person sees it: a full-page capture would stretch the viewport the
      // log's height is measured from.
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, 'conversations-phone-390.png') });
    });

    it("shows an agent's message live, and member Markdown never as HTML", async () => {
      const page = await openChannel(bob.session, 'general');
      await mark(page);
      const body = [
        'Agent report: <script>window.__pwned = 1</script> <b>bold?</b>',
        '',
        '<img src="x" onerror="window.__pwned = 2">',
        '',
        '[click me](javascript:window.__pwned=3) and [docs](https://example.test/docs)',
      ].join('\n');
      const posted = await app.server.request('POST', `/v0/spaces/${slug}/channels/general/messages`, { token: bot.key, body: { body } });
      assert.equal(posted.status, 201);
      const general = log(page, 'Messages in #general');
      const message = general.getByRole('listitem').filter({ hasText: 'Agent report:' });
      await message.waitFor();
      await message.locator('.message-meta').getByText('@helper-bot').waitFor();
      // Written by an agent, and marked so; a person's message is not.
      await message.locator('.message-meta .handle').getByText('agent', { exact: true }).waitFor();
      assert.equal(await page.locator('script:not([src])').count(), 0, 'no inline script');
      assert.equal(await message.locator('script, img, b, iframe').count(), 0, 'raw HTML is dropped');
      assert.equal(await page.locator('a[href^="javascript:"]').count(), 0, 'no javascript: link');
      assert.equal(await message.getByRole('link', { name: 'docs' }).getAttribute('href'), 'https://example.test/docs');
      assert.equal(await page.evaluate('window.__pwned'), undefined);
      await notReloaded(page);
    });

    it('creates a channel from the sidebar', async () => {
      const page = await app.pages.open({ session: ada.session });
      await page.goto(`/spaces/${slug}`);
      const channels = page.getByRole('region', { name: 'Channels' });
      await channels.getByRole('button', { name: 'New channel' }).click();
      await channels.getByLabel('Channel name').fill('Design Review');
      await channels.getByLabel('Topic (optional)').fill('Mock-ups and critique');
      await channels.getByRole('button', { name: 'Create' }).click();
      await channels.getByRole('alert').filter({ hasText: 'lowercase letters, digits and single hyphens' }).waitFor();
      await channels.getByLabel('Channel name').fill('design-review');
      await channels.getByRole('button', { name: 'Create' }).click();
      await heading(page, '#design-review').waitFor();
      await page.getByText('Mock-ups and critique').waitFor();
      assert.equal(await channels.getByRole('link', { name: '#design-review' }).getAttribute('aria-current'), 'page');
      await log(page, 'Messages in #design-review').getByText('No messages in #design-review yet.').waitFor();
    });

    it('reads activity further back than the live window, a hundred at a time, to the Space proposal', async () => {
      // More events than the follower keeps (500): the oldest can only be read back with `before`.
      await activeSpace(app.server, ada.session, 'annals', 'open');
      assert.equal((await app.server.request('POST', '/v0/spaces/annals/join', { token: ada.session })).status, 200);
      for (let batch = 0; batch < 26; batch++) {
        await Promise.all(
          Array.from({ length: 20 }, async (_, i) => {
            const n = batch * 20 + i + 1;
            const posted = await app.server.request('POST', '/v0/spaces/annals/channels/general/messages', { token: ada.session, body: { body: `Entry ${n}.` } });
            assert.equal(posted.status, 201);
          }),
        );
      }
      const page = await app.pages.open({ session: bob.session });
      const backReads: string[] = [];
      page.on('request', (request) => {
        const url = new URL(request.url());
        if (url.pathname === '/v0/spaces/annals/events' && url.searchParams.has('before')) backReads.push(url.search);
      });
      await page.goto('/spaces/annals/activity');
      const timeline = page.getByRole('list', { name: 'Activity, newest first' });
      await timeline.getByRole('listitem').first().waitFor();
      assert.equal(await timeline.getByRole('listitem').count(), 100);
      const older = page.getByRole('button', { name: 'Show older activity' });
      for (let shown = 200; shown <= 500; shown += 100) {
        await older.click();
        await timeline.getByRole('listitem').nth(shown - 1).waitFor();
      }
      assert.deepEqual(backReads, [], 'the first 500 come from the live window');
      // Past the window, the page reads back, until the proposal that began the Space.
      await older.click();
      await page.getByText('That is everything since the Space was proposed.').waitFor();
      assert.equal(await older.count(), 0);
      const items = timeline.getByRole('listitem');
      const all = await app.server.request('GET', '/v0/spaces/annals/events?since=0&limit=500', { token: bob.session });
      const rest = await app.server.request('GET', `/v0/spaces/annals/events?since=${all.body.cursor}&limit=500`, { token: bob.session });
      const total = all.body.events.length + rest.body.events.length;
      assert.ok(total > 500);
      assert.equal(await items.count(), total);
      assert.match(await items.last().innerText(), /proposed the Space/);
      await timeline.getByText('“Entry 1.”').waitFor();
      assert.equal(backReads.length, 1);
      assert.match(backReads[0]!, /[?&]newest=100&before=\d+|[?&]before=\d+.*[?&]newest=100/);
    });

    it('reads the inbox further back than the live window', async () => {
      const dee = await app.server.human('dee');
      assert.equal((await app.server.request('POST', '/v0/spaces/annals/join', { token: dee.session })).status, 200);
      // One after another: a member's mentions are parsed a few at a time, and more at once are refused (429).
      for (let n = 1; n <= 510; n++) {
        const body = { body: `Question ${n} for @dee.` };
        assert.equal((await app.server.request('POST', '/v0/spaces/annals/channels/general/messages', { token: ada.session, body })).status, 201);
      }
      const page = await app.pages.open({ session: dee.session });
      await page.goto('/inbox');
      const list = page.getByRole('list', { name: 'Inbox, newest first' });
      await list.getByText('Question 510 for @dee.').waitFor();
      assert.equal(await list.getByRole('listitem').count(), 500);
      assert.equal(await list.getByText('Question 1 for @dee.', { exact: true }).count(), 0);
      await page.getByRole('button', { name: 'Show older messages' }).click();
      await list.getByText('Question 1 for @dee.', { exact: true }).waitFor();
      assert.equal(await list.getByRole('listitem').count(), 510);
      await page.getByRole('button', { name: 'Show older messages' }).waitFor({ state: 'detached' });
      await assertAccessible(page, 'inbox read back');
    });

    it('tells the Space activity in words; readers who may not post see why, and anonymous ones no direct messages', async () => {
      const page = await app.pages.open({ session: bob.session });
      const feedReads: string[] = [];
      page.on('request', (request) => {
        const url = new URL(request.url());
        if (url.pathname === `/v0/spaces/${slug}/events`) feedReads.push(url.search);
      });
      await page.goto(`/spaces/${slug}/activity`);
      await heading(page, 'Activity').waitFor();
      const timeline = page.getByRole('list', { name: 'Activity, newest first' });
      await timeline.getByText('@helper-bot posted in #general.').waitFor();
      // The Space is opened at its newest events, never by reading its feed from the start.
      assert.match(feedReads[0] ?? '', /[?&]newest=\d+/);
      assert.ok(feedReads.every((query) => !/[?&]since=0(&|$)/.test(query)), feedReads.join(' '));
      await timeline.getByText('@ada sent a direct message to @bob.').first().waitFor();
      await timeline.getByText('@bob sent a direct message to @ada.').waitFor();
      await timeline.getByText('@ada created the channel #history about “Old news”.').waitFor();
      await timeline.getByText('@bob joined.').waitFor();
      await timeline.getByText('The host steward approved the Space; it is active, with #general.').waitFor();
      await assertAccessible(page, 'activity');
      await screenshots(page, 'conversations-activity');
      await timeline.getByRole('listitem').filter({ hasText: 'created the channel' }).getByRole('link', { name: '#history' }).click();
      await heading(page, '#history').waitFor();

      const anonymous = await openChannel(undefined, 'general');
      await log(anonymous, 'Messages in #general').getByText('Agent report:').waitFor();
      await anonymous.getByText('to post.').waitFor();
      assert.equal(await anonymous.getByRole('combobox').count(), 0, 'no composer');
      assert.equal(await anonymous.getByRole('heading', { name: 'Direct messages' }).count(), 0);
      assert.equal(await anonymous.getByRole('button', { name: 'New channel' }).count(), 0);

      // A member who has not joined a request Space reads it but is told why they cannot post.
      await activeSpace(app.server, ada.session, 'guild', 'request');
      const outsider = await app.pages.open({ session: bob.session });
      await outsider.goto('/spaces/guild/channels/general');
      await heading(outsider, '#general').waitFor();
      await outsider.getByText('Join this Space to post: ask to join on its front page.').waitFor();
      assert.equal(await outsider.getByRole('combobox').count(), 0, 'no composer');
      assert.equal(await outsider.getByRole('button', { name: 'New channel' }).count(), 0);
      assert.equal(await outsider.getByRole('button', { name: 'Message a member' }).count(), 0);
    });
  });
}
