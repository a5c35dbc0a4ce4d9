import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { assertError } from './support/errors.js';
import { backends } from './support/server.js';
import { assertAccessible, screenshots, startWebApp, type WebApp } from './support/web-app.js';

// The operator's page in a real browser against a real server: the node, its
// samples plotted, the largest tables, errors by code and the janitor's run,
// for a host-wide Owner; nothing of it for anyone else.

for (const backend of backends()) {
  describe(`web operator page (${backend})`, () => {
    let app: WebApp;
    let olga: { handle: string; session: string };
    let mo: { handle: string; session: string };

    before(async () => {
      app = await startWebApp(backend);
      olga = await app.server.human('olga', { role: 'owner' });
      mo = await app.server.human('mo');
      // A few samples with something in them: error answers between them, and a janitor run.
      await app.server.app.sampler.record();
      assertError(await app.server.request('GET', '/v0/spaces/nowhere', { token: mo.session }), 'space_not_found');
      await app.server.app.janitor.run();
      await app.server.app.sampler.record();
    });
    afterEach(() => app.pages.finish());
    after(async () => app?.stop());

    it('shows a host-wide Owner the nodes, the last half hour plotted, the largest tables, errors by code and the janitor', async () => {
      const page = await app.pages.open({ session: olga.session });
      await page.goto('/');
      await page.getByRole('link', { name: 'Operator' }).click();
      await page.getByRole('heading', { level: 1, name: 'Operator' }).waitFor();
      const node = page.getByRole('row', { name: new RegExp(app.server.app.sampler.node.replace(/[/.]/g, '\\$&')) });
      await node.getByText('ready').waitFor();
      await node.getByText('leader').waitFor();
      for (const title of ['Events appended', 'API requests', 'Webhook queue', 'Oldest owed wake', 'Long-poll waiters', 'Database connections in use']) {
        const chart = page.getByRole('img', { name: new RegExp(`^${title}: `) });
        await chart.waitFor();
        assert.equal(await chart.locator('canvas').count(), 1, `${title} is drawn`);
      }
      await page.getByRole('img', { name: /^API requests: now \d/ }).waitFor();
      if (backend === 'sqlite') await page.getByRole('img', { name: 'Database connections in use: SQLite: one connection' }).waitFor();
      await page.getByRole('region', { name: 'Largest tables' }).getByRole('row', { name: / (bytes|KiB|MiB)$/ }).first().waitFor();
      await page.getByRole('row', { name: 'space_not_found 1' }).waitFor();
      await page.getByText(/^Last run finished .+, removing /).waitFor();
      await screenshots(page, `operator-${backend}`);
      await assertAccessible(page, 'the operator page at 1280 px');
      await page.setViewportSize({ width: 390, height: 844 });
      await assertAccessible(page, 'the operator page at 390 px');
    });

    it('offers nothing of it to anyone else', async () => {
      const page = await app.pages.open({ session: mo.session });
      await page.goto('/');
      await page.getByRole('link', { name: 'Inbox' }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'Operator' }).count(), 0, 'no link for a member who is not an Owner');
      await page.goto('/operator');
      await page.getByText('This page is for the host’s Owners.').waitFor();
      assert.equal(await page.getByRole('table').count(), 0);
    });
  });
}
