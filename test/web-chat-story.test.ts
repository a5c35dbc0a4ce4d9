import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { seedAgent } from './support/seed.js';
import { backends } from './support/server.js';
import { activeSpace } from './support/spaces.js';
import { assertAccessible, screenshots, startWebApp, type WebApp } from './support/web-app.js';

// The whole conversation story in one sitting, as two people and an agent
// live it: a thread, an edit, a reaction, unread counts rising and clearing, a
// deletion and a switch of Space, every page kept open and never reloaded.

for (const backend of backends()) {
  describe(`web chat story (${backend})`, () => {
    let app: WebApp;
    let ada: { handle: string; session: string };
    let bob: { handle: string; session: string };
    let bot: { handle: string; key: string };

    before(async () => {
      app = await startWebApp(backend);
      ada = await app.server.human('ada');
      bob = await app.server.human('bob');
      bot = await seedAgent(app.server, 'planner', 'ada', 'active', { confirmed: true });
      await activeSpace(app.server, ada.session, 'commons', 'open');
      await activeSpace(app.server, ada.session, 'annex', 'open');
      for (const [token, slug] of [
        [ada.session, 'commons'],
        [bob.session, 'commons'],
        [bot.key, 'commons'],
        [ada.session, 'annex'],
      ] as const) {
        assert.equal((await app.server.request('POST', `/v0/spaces/${slug}/join`, { token })).status, 200);
      }
      assert.equal((await app.server.request('POST', '/v0/spaces/commons/channels', { token: ada.session, body: { name: 'ops' } })).status, 201);
    });
    afterEach(() => app.pages.finish());
    after(() => app?.stop());

    const general = (page: Page) => page.getByRole('log', { name: 'Messages in #general' });
    const replies = (page: Page) => page.getByRole('log', { name: 'Replies to @planner' });
    const mark = (page: Page) => page.evaluate('window.__notReloaded = true');
    const notReloaded = async (page: Page) => assert.equal(await page.evaluate('window.__notReloaded'), true, 'the page was reloaded');
    const agentPost = async (channel: string, body: string) => {
      const posted = await app.server.request('POST', `/v0/spaces/commons/channels/${channel}/messages`, { token: bot.key, body: { body } });
      assert.equal(posted.status, 201);
      return posted.body.id as number;
    };

    it('talks in a thread, edits, reacts, reads, deletes and switches Space, live for everyone', async () => {
      const adaPage = await app.pages.open({ session: ada.session });
      await adaPage.goto('/spaces/commons/channels/general');
      const bobPage = await app.pages.open({ session: bob.session });
      await bobPage.goto('/spaces/commons/channels/general');
      await general(bobPage).getByText('No messages in #general yet.').waitFor();
      await mark(adaPage);
      await mark(bobPage);

      // The agent posts; bob answers in its thread.
      const root = await agentPost('general', 'The draft schedule is ready for review.');
      const bobRoot = general(bobPage).locator(`[data-message="${root}"]`);
      await bobRoot.getByText('The draft schedule is ready for review.').waitFor();
      await bobRoot.hover();
      await bobRoot.getByRole('button', { name: 'Reply in thread to @planner' }).click();
      await bobPage.getByRole('combobox', { name: 'Reply in thread' }).fill('Looks good to me.');
      await bobPage.keyboard.press('Enter');
      await replies(bobPage).getByText('Looks good to me.').waitFor();

      // Ada sees the count, opens the thread and answers; a slip is corrected by an edit.
      const adaRoot = general(adaPage).locator(`[data-message="${root}"]`);
      await adaRoot.getByRole('button', { name: '1 reply' }).click();
      await replies(adaPage).getByText('Looks good to me.').waitFor();
      await adaPage.getByRole('combobox', { name: 'Reply in thread' }).fill('Shift three starts at 9.');
      await adaPage.keyboard.press('Enter');
      const adaReply = replies(adaPage).getByRole('listitem').filter({ hasText: 'Shift three starts at 9.' });
      await adaReply.waitFor();
      await adaReply.hover();
      await adaReply.getByRole('button', { name: 'Edit your message' }).click();
      await adaReply.getByRole('textbox', { name: 'Edit your message' }).fill('Shift three starts at 10.');
      await adaPage.keyboard.press('Enter');
      const bobSeesEdit = replies(bobPage).getByRole('listitem').filter({ hasText: 'Shift three starts at 10.' });
      await bobSeesEdit.getByRole('button', { name: 'edited: show earlier versions' }).waitFor();

      // Bob reacts to the agent's message; ada's count follows.
      await bobRoot.hover();
      await bobRoot.getByRole('button', { name: 'React to @planner’s message' }).click();
      await bobRoot.getByRole('group', { name: 'Choose a reaction' }).getByRole('button', { name: 'party popper' }).click();
      await adaRoot.getByRole('button', { name: /^party popper: 1$/ }).waitFor();

      // The agent writes in #ops: bob's sidebar counts it, and reading it clears the count.
      await agentPost('ops', 'Deploy window moved to Thursday.');
      await agentPost('ops', 'Backups verified.');
      const bobChannels = bobPage.getByRole('region', { name: 'Channels' });
      await bobChannels.getByRole('link', { name: '#ops 2 unread' }).waitFor();
      await assertAccessible(bobPage, 'thread open, reactions and unread counts');
      await screenshots(bobPage, 'story-thread-unread');
      await bobChannels.getByRole('link', { name: '#ops 2 unread' }).click();
      await bobPage.getByRole('log', { name: 'Messages in #ops' }).getByText('Backups verified.').waitFor();
      await bobChannels.getByRole('link', { name: '#general', exact: true }).click();
      await bobChannels.getByRole('link', { name: '#ops', exact: true }).waitFor();

      // Ada takes her reply back: bob's thread shows the tombstone in its place.
      const edited = replies(adaPage).getByRole('listitem').filter({ hasText: 'Shift three starts at 10.' });
      await edited.hover();
      await edited.getByRole('button', { name: 'Delete your message' }).click();
      await edited.getByRole('button', { name: 'Delete', exact: true }).click();
      await general(bobPage).locator(`[data-message="${root}"]`).getByRole('button', { name: '2 replies' }).click();
      await replies(bobPage).getByText('This message was deleted.').waitFor();
      assert.equal(await replies(bobPage).getByText('Shift three starts at 10.').count(), 0);

      // Ada switches to her other Space from the header, on a phone.
      await adaPage.setViewportSize({ width: 390, height: 844 });
      await adaPage.locator('.space-switcher').getByRole('button').click();
      await adaPage.getByRole('list', { name: 'Your Spaces' }).getByRole('link', { name: 'annex' }).click();
      await adaPage.waitForURL('**/spaces/annex');
      await assertAccessible(adaPage, 'another Space, on a phone');
      await notReloaded(adaPage);
      await notReloaded(bobPage);
    });
  });
}
