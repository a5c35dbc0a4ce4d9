import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { focused } from './support/browser.js';
import { backends } from './support/server.js';
import { activeSpace } from './support/spaces.js';
import { assertAccessible, screenshots, startWebApp, type WebApp } from './support/web-app.js';

// The Resources pages, as people use them: creating a Markdown document,
// editing it version by version, a stale edit that meets someone else's newer
// version (409) and is merged, renaming, reading without the right to write,
// and member-written Markdown that must not become markup.

for (const backend of backends()) {
  describe(`web: Resources (${backend})`, () => {
    let app: WebApp;
    let ada: { handle: string; session: string };
    let bob: { handle: string; session: string };
    let carol: { handle: string; session: string };

    before(async () => {
      app = await startWebApp(backend);
      ada = await app.server.human('ada', { role: 'owner' });
      bob = await app.server.human('bob');
      carol = await app.server.human('carol');
      await activeSpace(app.server, ada.session, 'garden', 'open');
      await activeSpace(app.server, ada.session, 'library', 'request');
    });
    afterEach(() => app.pages.finish());
    after(() => app?.stop());

    async function seedResource(space: string, name: string, content: string): Promise<string> {
      const res = await app.server.request('POST', `/v0/spaces/${space}/resources`, { token: ada.session, body: { name, content } });
      assert.equal(res.status, 201);
      return (res.body as { id: string }).id;
    }

    const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name });
    const textArea = (page: Page) => page.getByLabel('Text', { exact: true });

    it('a member creates a Resource, edits it, and the history shows both versions with a diff', async () => {
      const page = await app.pages.open({ session: bob.session });
      await page.goto('/spaces/garden/resources');
      await heading(page, 'Resources').waitFor();
      await page.getByText('No Resources yet.').waitFor();

      await page.getByRole('link', { name: 'New Resource' }).click();
      await heading(page, 'New Resource').waitFor();
      // Nothing is lost on a refusal: a blank name is caught, the text stays.
      await textArea(page).fill('## Bees\n\nBees like lavender.\n');
      await page.getByRole('button', { name: 'Create Resource' }).click();
      await page.getByRole('alert').filter({ hasText: 'Give the Resource a name.' }).waitFor();
      assert.equal(await textArea(page).inputValue(), '## Bees\n\nBees like lavender.\n');
      assert.equal(await focused(page), 'input:Name');
      await page.getByLabel('Name').fill('Field guide');

      // The preview is a tab of an accessible tab list, reachable by arrow keys.
      await page.getByRole('tab', { name: 'Write' }).focus();
      await page.keyboard.press('ArrowRight');
      assert.equal(await page.getByRole('tab', { name: 'Preview' }).getAttribute('aria-selected'), 'true');
      await page.getByRole('tabpanel', { name: 'Preview' }).getByRole('heading', { name: 'Bees' }).waitFor();
      await assertAccessible(page, 'new Resource (preview)');
      await screenshots(page, 'resources-new');
      await page.getByRole('tab', { name: 'Write' }).click();

      await page.getByRole('button', { name: 'Create Resource' }).click();
      await page.waitForURL(/\/spaces\/garden\/resources\/res_[a-z0-9]+$/);
      await heading(page, 'Field guide').waitFor();
      await page.getByText(/Version 1, saved by @bob/).waitFor();
      await page.getByText('Bees like lavender.').waitFor();

      await page.getByRole('link', { name: 'Edit' }).click();
      await heading(page, 'Edit Field guide').waitFor();
      assert.equal(await textArea(page).inputValue(), '## Bees\n\nBees like lavender.\n');
      await textArea(page).fill('## Bees\n\nBees like thyme.\n\nAnd borage.\n');
      await assertAccessible(page, 'edit Resource');
      await screenshots(page, 'resources-edit');
      await page.getByRole('button', { name: 'Save' }).click();
      await heading(page, 'Field guide').waitFor();
      await page.getByText(/Version 2, saved by @bob/).waitFor();
      await page.getByText('Bees like thyme.').waitFor();
      await assertAccessible(page, 'Resource');
      await screenshots(page, 'resources-read');

      await page.getByRole('link', { name: 'History' }).click();
      await heading(page, 'History of Field guide').waitFor();
      const rows = page.getByRole('table').getByRole('row');
      await rows.filter({ hasText: 'Version 2' }).filter({ hasText: 'current' }).waitFor();
      await rows.filter({ hasText: 'Version 1' }).filter({ hasText: '@bob' }).waitFor();
      // Default: the previous version against the current one.
      assert.equal(await page.getByLabel('From version').inputValue(), '1');
      assert.equal(await page.getByLabel('To version').inputValue(), '2');
      const diff = page.getByRole('figure');
      await diff.getByText('Changes from version 1 to version 2: 3 lines added, 1 removed.').waitFor();
      await diff.locator('del').filter({ hasText: 'Removed: Bees like lavender.' }).waitFor();
      await diff.locator('ins').filter({ hasText: 'Added: Bees like thyme.' }).waitFor();
      await diff.locator('ins').filter({ hasText: 'And borage.' }).waitFor();
      await assertAccessible(page, 'Resource history');
      await screenshots(page, 'resources-history');

      // Swapping the pair reverses the diff.
      await page.getByLabel('From version').selectOption('2');
      await page.getByLabel('To version').selectOption('1');
      await diff.locator('ins').filter({ hasText: 'Bees like lavender.' }).waitFor();

      await page.getByRole('link', { name: 'Version 1', exact: true }).click();
      await heading(page, 'Field guide (version 1)').waitFor();
      await page.getByText('Bees like lavender.').waitFor();
      await page.getByText(/This is version 1 of 2, saved by @bob/).waitFor();
      await assertAccessible(page, 'an old version of a Resource');
      await screenshots(page, 'resources-old-version');
      await page.getByRole('link', { name: 'Read the current version' }).click();
      await page.getByText('Bees like thyme.').waitFor();

      await page.goto('/spaces/garden/resources');
      await page.getByRole('row').filter({ hasText: 'Field guide' }).filter({ hasText: '@bob' }).waitFor();
      await assertAccessible(page, 'Resource list');
      await screenshots(page, 'resources-list');
    });

    it('a stale edit shows the newer version and keeps the text; merged, it saves on top', async () => {
      const id = await seedResource('garden', 'Meeting notes', 'Agenda\n\n- compost\n- seeds\n');
      const path = `/spaces/garden/resources/${id}`;
      const adaPage = await app.pages.open({ session: ada.session });
      const bobPage = await app.pages.open({ session: bob.session });
      for (const page of [adaPage, bobPage]) {
        await page.goto(`${path}/edit`);
        await heading(page, 'Edit Meeting notes').waitFor();
        await page.getByText('Editing from version 1.').waitFor();
      }

      await textArea(bobPage).fill('Agenda\n\n- compost heap\n- seeds\n');
      await bobPage.getByRole('button', { name: 'Save' }).click();
      await bobPage.getByText(/Version 2, saved by @bob/).waitFor();

      const adas = 'Agenda\n\n- compost\n- seeds\n- tools\n';
      await textArea(adaPage).fill(adas);
      // The Space feed tells her before she even saves.
      await adaPage.getByRole('status').filter({ hasText: 'Version 2 was just saved by @bob' }).waitFor();
      await screenshots(adaPage, 'resources-edit-newer');
      await adaPage.getByRole('button', { name: 'Save' }).click();
      const conflict = adaPage.getByRole('region', { name: 'Version 2 was saved while you were editing' });
      await conflict.waitFor();
      await conflict.getByText(/@bob saved version 2/).waitFor();
      const theirs = conflict.getByRole('figure').first();
      await theirs.getByText('From version 1 to 2: 1 line added, 1 removed.').waitFor();
      await theirs.locator('del').filter({ hasText: /^−Removed: - compost$/ }).waitFor();
      await theirs.locator('ins').filter({ hasText: /^\+Added: - compost heap$/ }).waitFor();
      assert.equal(await textArea(adaPage).inputValue(), adas, 'her own text is kept');
      await conflict.getByText('The text of version 2').click();
      assert.equal(await conflict.locator('pre').innerText(), 'Agenda\n\n- compost heap\n- seeds\n');
      await assertAccessible(adaPage, 'edit conflict');
      await screenshots(adaPage, 'resources-conflict');

      await textArea(adaPage).fill('Agenda\n\n- compost heap\n- seeds\n- tools\n');
      await adaPage.getByRole('button', { name: 'Save on top of version 2' }).click();
      await adaPage.waitForURL((url) => url.pathname === path);
      await adaPage.getByText(/Version 3, saved by @ada/).waitFor();
      await adaPage.getByText('compost heap').waitFor();
      await adaPage.getByText('tools').waitFor();

      await adaPage.getByRole('link', { name: 'History' }).click();
      await heading(adaPage, 'History of Meeting notes').waitFor();
      const versions = adaPage.getByRole('table').getByRole('row').filter({ hasText: /Version \d/ });
      await versions.nth(2).waitFor();
      assert.deepEqual(
        (await versions.getByRole('rowheader').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim()),
        ['Version 3 current', 'Version 2', 'Version 1'],
      );
      const body = await app.server.request('GET', `/v0/spaces/garden/resources/${id}`, { token: ada.session });
      assert.equal(body.body.content, 'Agenda\n\n- compost heap\n- seeds\n- tools\n');
    });

    it('renames a Resource: the id stays, the history shows both names', async () => {
      const id = await seedResource('garden', 'Draft plan', 'Plant in spring.\n');
      const page = await app.pages.open({ session: bob.session });
      await page.goto(`/spaces/garden/resources/${id}/edit`);
      await heading(page, 'Edit Draft plan').waitFor();
      await page.getByLabel('Name').fill('Planting plan');
      await page.getByText('Saving renames the Resource').waitFor();
      await page.getByRole('button', { name: 'Save' }).click();
      await page.waitForURL((url) => url.pathname === `/spaces/garden/resources/${id}`);
      await heading(page, 'Planting plan').waitFor();

      await page.getByRole('link', { name: 'History' }).click();
      await page.getByText('Renamed from “Draft plan” to “Planting plan”.').waitFor();
      await page.getByRole('cell', { name: 'Draft plan' }).waitFor();
      await page.getByText('Changes from version 1 to version 2: the texts are the same.').waitFor();
      await page.goto('/spaces/garden/resources');
      await page.getByRole('link', { name: 'Planting plan' }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'Draft plan' }).count(), 0);
    });

    it('folds long unchanged stretches of a diff and unfolds them on request', async () => {
      const lines = Array.from({ length: 30 }, (_, i) => `Line ${i + 1}`);
      const id = await seedResource('garden', 'Long list', `${lines.join('\n')}\n`);
      lines[14] = 'Line fifteen';
      const added = await app.server.request('POST', `/v0/spaces/garden/resources/${id}/versions`, {
        token: bob.session,
        body: { content: `${lines.join('\n')}\n`, expected_version: 1 },
      });
      assert.equal(added.status, 201);

      const page = await app.pages.open();
      await page.goto(`/spaces/garden/resources/${id}/history`);
      const diff = page.getByRole('figure');
      await diff.getByText('1 line added, 1 removed.', { exact: false }).waitFor();
      await diff.locator('del').filter({ hasText: /^−Removed: Line 15$/ }).waitFor();
      await diff.locator('ins').filter({ hasText: /^\+Added: Line fifteen$/ }).waitFor();
      // Three lines of context on each side of the change; the rest folds.
      await diff.getByText('11 unchanged lines').waitFor();
      await diff.getByText('12 unchanged lines').waitFor();
      assert.equal(await diff.getByText('Line 12', { exact: true }).count(), 1);
      assert.equal(await diff.getByText('Line 11', { exact: true }).count(), 0);
      await diff.getByRole('button', { name: 'Show unchanged lines' }).click();
      await diff.getByText('Line 1', { exact: true }).waitFor();
      assert.equal(await diff.getByText(/^\d+ unchanged lines?$/).count(), 0);
      assert.equal(await diff.getByRole('button', { name: 'Hide unchanged lines' }).getAttribute('aria-pressed'), 'true');
    });

    it('a reader who may not write sees Resources but no New or Edit', async () => {
      await seedResource('garden', 'Open notes', 'Everyone may read this.\n');
      const closed = await seedResource('library', 'Catalogue', 'Admitted members write here.\n');

      // Signed out, in an open Space.
      const visitor = await app.pages.open();
      await visitor.goto('/spaces/garden/resources');
      await visitor.getByRole('link', { name: 'Open notes' }).click();
      await heading(visitor, 'Open notes').waitFor();
      await visitor.getByText('Everyone may read this.').waitFor();
      await visitor.getByRole('link', { name: 'History' }).waitFor();
      assert.equal(await visitor.getByRole('link', { name: 'Edit' }).count(), 0);
      await visitor.goto('/spaces/garden/resources');
      await heading(visitor, 'Resources').waitFor();
      await visitor.getByRole('link', { name: 'Open notes' }).waitFor();
      assert.equal(await visitor.getByRole('link', { name: 'New Resource' }).count(), 0);

      // Signed in, but not admitted to a Space that asks for admission.
      const page = await app.pages.open({ session: carol.session });
      await page.goto(`/spaces/library/resources/${closed}`);
      await heading(page, 'Catalogue').waitFor();
      await page.getByRole('link', { name: 'History' }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'Edit' }).count(), 0);
      await page.goto(`/spaces/library/resources/${closed}/edit`);
      await page.getByText('Only admitted members write Resources in this Space.').waitFor();
      assert.equal(await page.getByLabel('Text', { exact: true }).count(), 0);
    });

    it('renders member Markdown safely: no raw HTML, no javascript: links', async () => {
      const id = await seedResource(
        'garden',
        'Hostile',
        [
          'Plain **bold** text.',
          '',
          '<script>window.__pwned = 1</script>',
          '',
          '<img src="x" onerror="window.__pwned = 2">',
          '',
          '<b id="raw">raw html</b>',
          '',
          '[click me](javascript:window.__pwned=3)',
          '',
          '![tracker](https://tracker.example/pixel.png)',
          '',
        ].join('\n'),
      );
      const page = await app.pages.open({ session: bob.session });
      await page.goto(`/spaces/garden/resources/${id}`);
      await heading(page, 'Hostile').waitFor();
      const body = page.locator('.resource-body');
      await body.locator('strong').filter({ hasText: 'bold' }).waitFor();
      assert.equal(await body.locator('script, img, #raw, [onerror]').count(), 0);
      // The neutralised link is its text alone: no anchor, not even one with an empty address.
      const link = body.getByText('click me');
      assert.equal(await body.locator('a', { hasText: 'click me' }).count(), 0);
      assert.equal(await body.locator('a:not([href]), a[href=""]').count(), 0);
      await body.getByRole('link', { name: 'image: tracker' }).waitFor();
      await link.click();
      assert.equal(await page.evaluate('window.__pwned'), undefined);
    });

    it("draws a Markdown table's border around its cells, as wide as the table and no wider", async () => {
      const id = await seedResource('garden', 'Beds', ['| Bed | Crop |', '|---|---|', '| North | Tulips |', '| South | Beans |', ''].join('\n'));
      const page = await app.pages.open({ session: bob.session });
      await page.goto(`/spaces/garden/resources/${id}`);
      await heading(page, 'Beds').waitFor();
      const table = page.locator('.resource-body table');
      await table.getByRole('cell', { name: 'Beans' }).waitFor();
      const width = async (selector: string) => (await page.locator(selector).first().boundingBox())!.width;
      // The border is the table's box: it may be wider than the rows only by its own two border lines.
      assert.ok((await width('.resource-body table')) - (await width('.resource-body table tr')) <= 2, 'the border hugs the rows');
      await screenshots(page, 'resources-table');
      await page.setViewportSize({ width: 390, height: 844 });
      assert.ok((await width('.resource-body table')) - (await width('.resource-body table tr')) <= 2, 'the border hugs the rows on a phone');
      await page.setViewportSize({ width: 1280, height: 800 });
    });

    it('opens every link that leaves the site as external, protocol-relative ones included', async () => {
      const id = await seedResource(
        'garden',
        'Far and near',
        [
          '[the resources](/spaces/garden/resources) and [a heading](#top)',
          '',
          '[protocol-relative](//elsewhere.example/p) and [spelled out](&#47;&#47;elsewhere.example/q)',
          '',
          '[by reference][far] and [absolute](https://elsewhere.example/r)',
          '',
          '[backslash](/\\elsewhere.example/s)',
          '',
          '[far]: //elsewhere.example/ref',
          '',
        ].join('\n'),
      );
      const page = await app.pages.open({ session: bob.session });
      await page.goto(`/spaces/garden/resources/${id}`);
      await heading(page, 'Far and near').waitFor();
      const body = page.locator('.resource-body');
      await body.getByRole('link', { name: 'backslash' }).waitFor();
      // Where the browser itself would go, against how the link is marked.
      const links = await body.locator('a').evaluateAll((anchors) =>
        anchors.map((a) => {
          const link = a as unknown as { textContent: string; href: string; target: string; rel: string };
          return { name: link.textContent, href: link.href, target: link.target, rel: link.rel };
        }),
      );
      const origin = new URL(page.url()).origin;
      const external = links.filter((l) => new URL(l.href).origin !== origin).map((l) => l.name);
      assert.deepEqual(external, ['protocol-relative', 'spelled out', 'by reference', 'absolute']);
      for (const link of links) {
        if (external.includes(link.name)) assert.deepEqual([link.target, link.rel], ['_blank', 'noreferrer noopener nofollow'], link.name);
        else assert.deepEqual([link.target, link.rel], ['', ''], link.name);
      }
    });
  });
}
