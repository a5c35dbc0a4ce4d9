import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { backends } from './support/server.js';
import { activeSpace, joinAll } from './support/spaces.js';
import { assertAccessible, screenshots, startWebApp, type WebApp } from './support/web-app.js';

// Threads in the web app: a reply opens beside its conversation, live for
// everyone, and a link to a reply lands in its thread.

for (const backend of backends()) {
  describe(`web threads (${backend})`, () => {
    let app: WebApp;
    let ada: { handle: string; session: string };
    let bob: { handle: string; session: string };
    const slug = 'porch';

    before(async () => {
      app = await startWebApp(backend);
      ada = await app.server.human('ada');
      bob = await app.server.human('bob');
      await activeSpace(app.server, ada.session, slug, 'open');
      await joinAll(app.server, slug, [ada.session, bob.session]);
    });
    afterEach(() => app.pages.finish());
    after(() => app?.stop());

    const log = (page: Page, name: string) => page.getByRole('log', { name });
    const thread = (page: Page) => page.getByRole('region', { name: /^Thread in #general/ });

    it('opens a thread beside the channel, replies there, and both people see it live', async () => {
      const posted = await app.server.request('POST', `/v0/spaces/${slug}/channels/general/messages`, { token: ada.session, body: { body: 'Plan for the trellis?' } });
      assert.equal(posted.status, 201);
      const root = posted.body.id as number;

      const adaPage = await app.pages.open({ session: ada.session });
      await adaPage.goto(`/spaces/${slug}/channels/general`);
      const adaLog = log(adaPage, 'Messages in #general');
      await adaLog.getByText('Plan for the trellis?').waitFor();

      const bobPage = await app.pages.open({ session: bob.session });
      await bobPage.goto(`/spaces/${slug}/channels/general`);
      const bobLog = log(bobPage, 'Messages in #general');
      // The message's actions show where the pointer is, as a person finds them.
      await bobLog.locator(`[data-message="${root}"]`).hover();
      await bobLog.getByRole('button', { name: 'Reply in thread to @ada' }).click();
      await bobPage.waitForURL(`**/spaces/${slug}/channels/general?thread=${root}`);
      const bobThread = thread(bobPage);
      await bobThread.getByText('Plan for the trellis?').waitFor();
      await bobThread.getByText('No replies yet.').waitFor();
      // Focus moves into the thread, to its heading.
      assert.equal(await bobThread.getByRole('heading', { level: 2 }).evaluate((el) => el === (el as unknown as { ownerDocument: { activeElement: unknown } }).ownerDocument.activeElement), true);
      const reply = bobThread.getByRole('combobox', { name: 'Reply in thread' });
      await reply.fill('Cedar, by Friday.');
      await reply.press('Enter');
      await log(bobPage, 'Replies to @ada').getByText('Cedar, by Friday.').waitFor();
      assert.equal(await reply.inputValue(), '');
      // The conversation keeps top-level messages: the reply is counted under its root, not listed.
      await bobLog.getByRole('button', { name: '1 reply' }).waitFor();
      assert.equal(await bobLog.getByText('Cedar, by Friday.').count(), 0);

      // Ada's page, never reloaded, counts the reply; opening it shows it, and her reply reaches bob.
      await adaLog.getByRole('button', { name: '1 reply' }).click();
      const adaReplies = log(adaPage, 'Replies to @ada');
      await adaReplies.getByText('Cedar, by Friday.').waitFor();
      await thread(adaPage).getByRole('combobox', { name: 'Reply in thread' }).fill('Deal.');
      await adaPage.keyboard.press('Enter');
      await log(bobPage, 'Replies to @ada').getByText('Deal.').waitFor();
      await bobLog.getByRole('button', { name: '2 replies' }).waitFor();
      await assertAccessible(bobPage, 'channel with a thread open');
      await screenshots(bobPage, 'threads-open');

      // Closing the thread leaves the channel as it was.
      await bobThread.getByRole('button', { name: 'Close thread' }).click();
      await bobPage.waitForURL(`**/spaces/${slug}/channels/general`);
      assert.equal(await bobThread.count(), 0);
    });

    it('lands a link to a reply in its thread, the reply marked, and on a phone the thread takes the screen', async () => {
      const posted = await app.server.request('POST', `/v0/spaces/${slug}/channels/general/messages`, { token: ada.session, body: { body: 'Who waters on Sunday?' } });
      const root = posted.body.id as number;
      const answered = await app.server.request('POST', `/v0/spaces/${slug}/channels/general/messages`, { token: bob.session, body: { body: 'I will water.', thread_root: root } });
      assert.equal(answered.status, 201);
      const page = await app.pages.open({ session: ada.session });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`/spaces/${slug}/channels/general?message=${answered.body.id}`);
      const replies = log(page, 'Replies to @ada');
      const marked = replies.locator('[aria-current="true"]');
      await marked.waitFor();
      assert.match(await marked.innerText(), /I will water\./);
      // On a phone the thread replaces the conversation, and "Back" returns to it.
      assert.equal(await log(page, 'Messages in #general').isVisible(), false);
      await assertAccessible(page, 'thread on a phone');
      await thread(page).getByRole('button', { name: 'Back to #general' }).click();
      await log(page, 'Messages in #general').getByText('Who waters on Sunday?').waitFor();
    });

    it("tells the root's author of a reply in their inbox, and leads into the thread", async () => {
      const page = await app.pages.open({ session: ada.session });
      await page.goto('/inbox');
      const entry = page.getByRole('listitem').filter({ hasText: 'I will water.' });
      await entry.getByRole('link', { name: '@bob replied in a thread in #general' }).click();
      await page.waitForURL(/\/spaces\/porch\/channels\/general\?message=\d+$/);
      const marked = log(page, 'Replies to @ada').locator('[aria-current="true"]');
      await marked.waitFor();
      assert.match(await marked.innerText(), /I will water\./);
    });
  });
}
