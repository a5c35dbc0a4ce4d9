import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { backends } from './support/server.js';
import { activeSpace } from './support/spaces.js';
import { assertAccessible, screenshots, startWebApp, type WebApp } from './support/web-app.js';

// The Space switcher in the header: the person's Spaces one step from
// anywhere, with a dot where something for them is unread, live.

for (const backend of backends()) {
  describe(`web Space switcher (${backend})`, () => {
    let app: WebApp;
    let ada: { handle: string; session: string };
    let bob: { handle: string; session: string };

    before(async () => {
      app = await startWebApp(backend);
      ada = await app.server.human('ada');
      bob = await app.server.human('bob');
      await activeSpace(app.server, ada.session, 'studio', 'open');
      await activeSpace(app.server, bob.session, 'garden', 'open');
      await activeSpace(app.server, bob.session, 'kitchen', 'open');
      for (const [token, slug] of [
        [ada.session, 'studio'],
        [ada.session, 'garden'],
        [bob.session, 'garden'],
        [bob.session, 'kitchen'],
      ] as const) {
        assert.equal((await app.server.request('POST', `/v0/spaces/${slug}/join`, { token })).status, 200);
      }
    });
    afterEach(() => app.pages.finish());
    after(() => app?.stop());

    it("lists the person's Spaces, marks where something is unread as it arrives, and goes there", async () => {
      const page = await app.pages.open({ session: ada.session });
      await page.goto('/spaces/studio/channels/general');
      await page.getByRole('heading', { level: 1, name: '#general' }).waitFor();
      const header = page.locator('header');
      await header.getByRole('button', { name: 'studio', exact: true }).waitFor();
      // Its name changes as Spaces gain unread messages; it is the one button of the switcher.
      const toggle = header.locator('.space-switcher').getByRole('button');
      assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
      await toggle.click();
      assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
      const list = header.getByRole('list', { name: 'Your Spaces' });
      // Only the Spaces ada belongs to, by name: not bob's kitchen.
      assert.deepEqual(await list.getByRole('link').allInnerTexts(), ['garden', 'studio']);
      assert.equal(await list.getByRole('link', { name: 'studio' }).getAttribute('aria-current'), 'page');

      // A mention in another Space puts a dot on it, and on the button, without a reload.
      const posted = await app.server.request('POST', '/v0/spaces/garden/channels/general/messages', { token: bob.session, body: { body: '@ada the seedlings are in.' } });
      assert.equal(posted.status, 201);
      await list.getByRole('link', { name: /^garden\s*, unread$/ }).waitFor();
      await header.getByRole('button', { name: /^studio\s*, unread in another Space$/ }).waitFor();
      await assertAccessible(page, 'Space switcher, open');
      await screenshots(page, 'space-switcher');

      // Escape closes it and gives focus back to the button.
      await page.keyboard.press('Escape');
      assert.equal(await list.isVisible(), false);
      assert.equal(await toggle.evaluate((el) => el === (el as unknown as { ownerDocument: { activeElement: unknown } }).ownerDocument.activeElement), true);

      await toggle.click();
      await list.getByRole('link', { name: /^garden\s*, unread$/ }).click();
      await page.waitForURL('**/spaces/garden');
      assert.equal(await list.isVisible(), false, 'following a link closes it');
      await header.getByRole('button', { name: 'garden', exact: true }).waitFor();
    });
  });
}
