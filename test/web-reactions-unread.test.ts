import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { backends } from './support/server.js';
import { activeSpace, joinAll } from './support/spaces.js';
import { assertAccessible, screenshots, startWebApp, type WebApp } from './support/web-app.js';

// Reactions with live counts, and unread counts from the read marks the host
// keeps: in the sidebar, cleared by reading, with a divider where the reader
// left off.

for (const backend of backends()) {
  describe(`web reactions and unread (${backend})`, () => {
    let app: WebApp;
    let ada: { handle: string; session: string };
    let bob: { handle: string; session: string };
    const slug = 'yard';

    before(async () => {
      app = await startWebApp(backend);
      ada = await app.server.human('ada');
      bob = await app.server.human('bob');
      await activeSpace(app.server, ada.session, slug, 'open');
      await joinAll(app.server, slug, [ada.session, bob.session]);
      assert.equal((await app.server.request('POST', `/v0/spaces/${slug}/channels`, { token: ada.session, body: { name: 'news' } })).status, 201);
    });
    afterEach(() => app.pages.finish());
    after(() => app?.stop());

    const post = async (channel: string, body: string, token = ada.session) => {
      const posted = await app.server.request('POST', `/v0/spaces/${slug}/channels/${channel}/messages`, { token, body: { body } });
      assert.equal(posted.status, 201);
      return posted.body.id as number;
    };
    async function open(session: string, path: string): Promise<Page> {
      const page = await app.pages.open({ session });
      await page.goto(`/spaces/${slug}${path}`);
      return page;
    }

    it('reacts from the picker, and both people see the counts change live', async () => {
      const id = await post('general', 'The gate is fixed.');
      const bobPage = await open(bob.session, '/channels/general');
      const bobMessage = bobPage.locator(`[data-message="${id}"]`);
      await bobMessage.getByText('The gate is fixed.').waitFor();
      const adaPage = await open(ada.session, '/channels/general');
      const adaMessage = adaPage.locator(`[data-message="${id}"]`);
      await adaMessage.getByText('The gate is fixed.').waitFor();

      await bobMessage.hover();
      await bobMessage.getByRole('button', { name: 'React to @ada’s message' }).click();
      const picker = bobMessage.getByRole('group', { name: 'Choose a reaction' });
      // The picker takes focus, so the keyboard can choose at once.
      await picker.getByRole('button', { name: 'thumbs up' }).waitFor();
      await assertAccessible(bobPage, 'reaction picker open');
      await picker.getByRole('button', { name: 'thumbs up' }).click();
      await bobMessage.getByRole('button', { name: 'thumbs up: 1, yours among them', pressed: true }).waitFor();

      // Ada's page, never reloaded, has the count; her press makes it two for both.
      const adaChip = adaMessage.getByRole('button', { name: /^thumbs up: 1$/ });
      assert.equal(await adaChip.getAttribute('aria-pressed'), 'false');
      await adaChip.click();
      await adaMessage.getByRole('button', { name: 'thumbs up: 2, yours among them', pressed: true }).waitFor();
      await bobMessage.getByRole('button', { name: 'thumbs up: 2, yours among them' }).waitFor();
      assert.equal(await bobMessage.getByRole('button', { name: /^thumbs up/ }).getAttribute('title'), '@bob, @ada');
      await screenshots(bobPage, 'reactions');

      // Pressing one's own again takes it back.
      await bobMessage.getByRole('button', { name: 'thumbs up: 2, yours among them' }).click();
      await bobMessage.getByRole('button', { name: /^thumbs up: 1$/, pressed: false }).waitFor();
      await adaMessage.getByRole('button', { name: 'thumbs up: 1, yours among them' }).waitFor();
    });

    it('counts unread messages in the sidebar, clears them by reading, and marks where the reader left off', async () => {
      const page = await open(bob.session, '/channels/general');
      const channels = page.getByRole('region', { name: 'Channels' });
      await channels.getByRole('link', { name: '#news', exact: true }).waitFor();
      const first = await post('news', 'News one.');
      await post('news', 'News two.');
      await post('news', 'News three.');
      await channels.getByRole('link', { name: '#news 3 unread' }).click();
      await page.getByRole('log', { name: 'Messages in #news' }).getByText('News three.').waitFor();
      // A first visit is all new: no divider.
      assert.equal(await page.getByText('New messages', { exact: true }).count(), 0);
      await channels.getByRole('link', { name: '#general', exact: true }).click();
      await channels.getByRole('link', { name: '#news', exact: true }).waitFor();

      // Two more arrive; the count says two, and the divider sits above the first of them.
      const fourth = await post('news', 'News four.');
      await post('news', 'News five.');
      await channels.getByRole('link', { name: '#news 2 unread' }).waitFor();
      await assertAccessible(page, 'sidebar with unread counts');
      await screenshots(page, 'unread-sidebar');
      await channels.getByRole('link', { name: '#news 2 unread' }).click();
      const divider = page.locator(`[data-message="${fourth}"] .new-divider`);
      await divider.waitFor();
      assert.equal(await page.locator('.new-divider').count(), 1);
      assert.equal(await page.locator(`[data-message="${first}"] .new-divider`).count(), 0);
      await screenshots(page, 'unread-divider');
      // Read here, so read everywhere: the host holds the mark.
      const other = await open(bob.session, '/channels/general');
      await other.getByRole('region', { name: 'Channels' }).getByRole('link', { name: '#news', exact: true }).waitFor();
      assert.equal(await other.getByRole('region', { name: 'Channels' }).getByRole('link', { name: /#news \d+ unread/ }).count(), 0);
    });

    it('marks a direct conversation with something unread, until it is read', async () => {
      const page = await open(bob.session, '/channels/general');
      const directs = page.getByRole('region', { name: 'Direct messages' });
      const sent = await app.server.request('POST', `/v0/spaces/${slug}/direct-messages`, { token: ada.session, body: { to: 'bob', body: 'Psst, the key is under the pot.' } });
      assert.equal(sent.status, 201);
      await directs.getByRole('link', { name: '@ada unread' }).click();
      await page.getByRole('log', { name: 'Messages with @ada' }).getByText('Psst, the key is under the pot.').waitFor();
      await page.getByRole('region', { name: 'Channels' }).getByRole('link', { name: '#general', exact: true }).click();
      await directs.getByRole('link', { name: '@ada', exact: true }).waitFor();
    });
  });
}
