import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { backends } from './support/server.js';
import { activeSpace, joinAll } from './support/spaces.js';
import { assertAccessible, screenshots, startWebApp, type WebApp } from './support/web-app.js';

// Editing one's own message in place, and reading its earlier versions, live
// for the other reader.

for (const backend of backends()) {
  describe(`web message edits (${backend})`, () => {
    let app: WebApp;
    let ada: { handle: string; session: string };
    let bob: { handle: string; session: string };
    let hana: { handle: string; session: string };
    const slug = 'loft';

    before(async () => {
      app = await startWebApp(backend);
      ada = await app.server.human('ada');
      bob = await app.server.human('bob');
      await activeSpace(app.server, ada.session, slug, 'open');
      await joinAll(app.server, slug, [ada.session, bob.session]);
      hana = await app.server.human('hana', { role: 'host', space: slug });
    });
    afterEach(() => app.pages.finish());
    after(() => app?.stop());

    const log = (page: Page) => page.getByRole('log', { name: 'Messages in #general' });
    async function openGeneral(session: string): Promise<Page> {
      const page = await app.pages.open({ session });
      await page.goto(`/spaces/${slug}/channels/general`);
      await page.getByRole('heading', { level: 1, name: '#general' }).waitFor();
      return page;
    }

    it('edits a message in place, marks it edited for everyone, and shows what it said before', async () => {
      const posted = await app.server.request('POST', `/v0/spaces/${slug}/channels/general/messages`, { token: ada.session, body: { body: 'Meet at **noon**.' } });
      assert.equal(posted.status, 201);
      const bobPage = await openGeneral(bob.session);
      const bobMessage = log(bobPage).getByRole('listitem').filter({ hasText: 'Meet at' });
      await bobMessage.waitFor();
      assert.equal(await bobMessage.getByRole('button', { name: 'Edit your message' }).count(), 0, 'nobody is offered to edit another person’s message');

      const adaPage = await openGeneral(ada.session);
      const message = log(adaPage).locator(`[data-message="${posted.body.id}"]`);
      await message.hover();
      await message.getByRole('button', { name: 'Edit your message' }).click();
      const editor = message.getByRole('textbox', { name: 'Edit your message' });
      assert.equal(await editor.inputValue(), 'Meet at **noon**.');
      // Escape leaves it as it was.
      await editor.fill('Never mind');
      await adaPage.keyboard.press('Escape');
      await message.getByText('Meet at noon.').waitFor();
      assert.equal(await message.getByRole('button', { name: /^edited/ }).count(), 0);

      await message.getByRole('button', { name: 'Edit your message' }).click();
      await editor.fill('Meet at **one**, not noon.');
      await adaPage.keyboard.press('Enter');
      await message.getByText('Meet at one, not noon.').waitFor();
      await message.getByRole('button', { name: 'edited: show earlier versions' }).waitFor();

      // Bob's page, never reloaded, has the new words and the mark; the mark opens the versions.
      const edited = log(bobPage).locator(`[data-message="${posted.body.id}"]`);
      await edited.getByText('Meet at one, not noon.').waitFor();
      await edited.getByRole('button', { name: 'edited: show earlier versions' }).click();
      const versions = edited.getByRole('list', { name: 'Versions of this message, newest first' });
      await versions.getByRole('listitem').nth(1).waitFor();
      const texts = await versions.getByRole('listitem').allInnerTexts();
      assert.match(texts[0]!, /^Current[\s\S]*Meet at one, not noon\./);
      assert.match(texts[1]!, /^As posted[\s\S]*Meet at noon\./);
      await assertAccessible(bobPage, 'an edited message with its versions open');
      await screenshots(bobPage, 'edits-versions');
    });

    it('keeps the edit and says why when the message changed meanwhile', async () => {
      const posted = await app.server.request('POST', `/v0/spaces/${slug}/channels/general/messages`, { token: ada.session, body: { body: 'Bring tea.' } });
      const page = await openGeneral(ada.session);
      const message = log(page).locator(`[data-message="${posted.body.id}"]`);
      await message.getByText('Bring tea.').waitFor();
      await message.hover();
      await message.getByRole('button', { name: 'Edit your message' }).click();
      const editor = message.getByRole('textbox', { name: 'Edit your message' });
      // Another of ada's devices edits first.
      const elsewhere = await app.server.request('PATCH', `/v0/spaces/${slug}/messages/${posted.body.id}`, { token: ada.session, body: { body: 'Bring coffee.', expected_version: 1 } });
      assert.equal(elsewhere.status, 200);
      await editor.fill('Bring cake.');
      await message.getByRole('button', { name: 'Save' }).click();
      await message.getByRole('alert').filter({ hasText: 'Could not save' }).waitFor();
      assert.equal(await editor.inputValue(), 'Bring cake.', 'what was typed is kept');
    });

    it('deletes after asking, leaves a note in its place for everyone, and lets the Space’s Host delete anyone’s', async () => {
      const mine = await app.server.request('POST', `/v0/spaces/${slug}/channels/general/messages`, { token: ada.session, body: { body: 'Wrong channel, sorry.' } });
      const theirs = await app.server.request('POST', `/v0/spaces/${slug}/channels/general/messages`, { token: bob.session, body: { body: 'Buy cheap pills here.' } });
      const bobPage = await openGeneral(bob.session);
      const adaPage = await openGeneral(ada.session);
      const adaMessage = log(adaPage).locator(`[data-message="${mine.body.id}"]`);
      await adaMessage.getByText('Wrong channel, sorry.').waitFor();
      // Nobody but its author and the Space's Owner/Host is offered to delete a message.
      await log(adaPage).locator(`[data-message="${theirs.body.id}"]`).hover();
      assert.equal(await log(adaPage).getByRole('button', { name: 'Delete @bob’s message' }).count(), 0);

      await adaMessage.hover();
      await adaMessage.getByRole('button', { name: 'Delete your message' }).click();
      const ask = adaMessage.getByRole('group', { name: 'Delete the message?' });
      await ask.getByRole('button', { name: 'Keep it' }).click();
      assert.equal(await ask.count(), 0);
      await adaMessage.getByText('Wrong channel, sorry.').waitFor();
      await adaMessage.hover();
      await adaMessage.getByRole('button', { name: 'Delete your message' }).click();
      await assertAccessible(adaPage, 'asking before a deletion');
      await ask.getByRole('button', { name: 'Delete', exact: true }).click();
      await adaMessage.getByText('This message was deleted.').waitFor();
      await log(bobPage).locator(`[data-message="${mine.body.id}"]`).getByText('This message was deleted.').waitFor();
      assert.equal(await log(bobPage).getByText('Wrong channel, sorry.').count(), 0, 'gone from the other reader’s page, live');

      // The Space's Host removes someone else's message, and the note names who did.
      const hostPage = await openGeneral(hana.session);
      const spam = log(hostPage).locator(`[data-message="${theirs.body.id}"]`);
      await spam.hover();
      await spam.getByRole('button', { name: 'Delete @bob’s message' }).click();
      await spam.getByRole('group', { name: 'Delete the message?' }).getByText('Delete @bob’s message?', { exact: false }).waitFor();
      await spam.getByRole('button', { name: 'Delete', exact: true }).click();
      await log(bobPage).locator(`[data-message="${theirs.body.id}"]`).getByText('This message was deleted by @hana.').waitFor();
      await screenshots(bobPage, 'deletion-tombstones');
    });

    it('brings a mention an edit adds to that member’s inbox, leads to the message, and tells the activity', async () => {
      const posted = await app.server.request('POST', `/v0/spaces/${slug}/channels/general/messages`, { token: ada.session, body: { body: 'Who has the ladder?' } });
      const edited = await app.server.request('PATCH', `/v0/spaces/${slug}/messages/${posted.body.id}`, {
        token: ada.session,
        body: { body: 'Who has the ladder? @bob, was it you?', expected_version: 1 },
      });
      assert.equal(edited.status, 200);
      const page = await app.pages.open({ session: bob.session });
      await page.goto('/inbox');
      const entry = page.getByRole('listitem').filter({ hasText: 'was it you?' });
      await entry.getByRole('link', { name: '@ada mentioned you in #general (in an edit)' }).click();
      await page.waitForURL(`**/spaces/${slug}/channels/general?message=${posted.body.id}`);
      await log(page).locator('[aria-current="true"]').getByText('was it you?', { exact: false }).waitFor();
      await page.goto(`/spaces/${slug}/activity`);
      await page.getByRole('list', { name: 'Activity, newest first' }).getByText('edited a message in', { exact: false }).first().waitFor();
    });
  });
}
