import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Page, Route } from 'playwright-core';
import { seedAgent } from './support/seed.js';
import { backends } from './support/server.js';
import { activeSpace } from './support/spaces.js';
import { assertAccessible, screenshots, startWebApp, type WebApp } from './support/web-app.js';

// The task board and task page in a real browser against a real server: an
// agent works through the API with its member key while people watch and act
// in the browser, and the page offers exactly the moves the server allows.

for (const backend of backends()) {
  describe(`web tasks (${backend})`, () => {
    let app: WebApp;
    let ada: { handle: string; session: string };
    let bea: { handle: string; session: string };
    let scout: { handle: string; key: string };

    before(async () => {
      app = await startWebApp(backend);
      ada = await app.server.human('ada', { role: 'owner' });
      bea = await app.server.human('bea');
      // ada operates scout and has confirmed it: ada is scout's accountable principal.
      scout = await seedAgent(app.server, 'scout', 'ada', 'active', { confirmed: true });
      await activeSpace(app.server, ada.session, 'workshop');
    });
    afterEach(() => app.pages.finish());
    after(() => app?.stop());

    const api = async (method: string, path: string, token: string, body?: unknown) => {
      const res = await app.server.request(method, path, { token, ...(body !== undefined ? { body } : {}) });
      assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.body?.detail ?? ''}`);
      return res.body;
    };
    const newTask = async (token: string, title: string, space = 'workshop', kind = 'general'): Promise<number> =>
      (await api('POST', `/v0/spaces/${space}/tasks`, token, { kind, title, body: `About ${title}.` })).id as number;
    const move = (space: string, id: number, which: string, token: string) => api('POST', `/v0/spaces/${space}/tasks/${id}/${which}`, token);

    const column = (page: Page, state: string) => page.getByRole('region', { name: new RegExp(`^${state}\\b`) });
    const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true });
    /** The buttons of the task's actions, by name, as the reader sees them. */
    const moves = async (page: Page) =>
      (await page.locator('.task-actions .actions button').allTextContents()).map((t) => t.trim()).sort();

    it("follows an agent's claim and submission live, and a human of another principal completes it with true provenance", async () => {
      const page = await app.pages.open({ session: bea.session });
      await page.goto('/spaces/workshop/tasks');
      await page.getByRole('heading', { level: 1, name: 'Tasks' }).waitFor();

      await button(page, 'New task').click();
      await page.getByLabel('Title').fill('Survey the north bed');
      await page.getByLabel('Description').fill('Count the **tulips** and note any _blight_.');
      await button(page, 'Create task').click();
      await page.getByRole('status').getByText(/Created task #\d+/).waitFor();
      const link = column(page, 'Open').getByRole('link', { name: 'Survey the north bed' });
      await link.waitFor();
      const id = Number((await link.getAttribute('href'))!.split('/').pop());
      // The form is closed and empty again for the next task.
      assert.equal(await page.getByLabel('Title').isVisible(), false);

      // The agent claims with its member key; the board moves the card without a reload.
      await move('workshop', id, 'claim', scout.key);
      const claimed = column(page, 'Claimed');
      await claimed.getByRole('link', { name: 'Survey the north bed' }).waitFor();
      await claimed.getByText('Claimed by @scout').waitFor();
      assert.equal(await column(page, 'Open').getByRole('link', { name: 'Survey the north bed' }).count(), 0);
      await newTask(ada.session, 'Mend the fence');
      await column(page, 'Open').getByRole('link', { name: 'Mend the fence' }).waitFor();
      await assertAccessible(page, 'task board');
      await screenshots(page, 'tasks-board');

      await move('workshop', id, 'submit', scout.key);
      await column(page, 'Submitted').getByText('Submitted by @scout').waitFor();

      // scout's operator may not complete its work under independent_principal: no button, and why.
      const operator = await app.pages.open({ session: ada.session });
      await operator.goto(`/spaces/workshop/tasks/${id}`);
      await operator.getByRole('heading', { level: 1, name: 'Survey the north bed' }).waitFor();
      await operator.getByText('You cannot complete work by @scout (accountable principal @ada).').waitFor();
      assert.deepEqual(await moves(operator), ['Cancel task']);

      // bea answers to herself, not to ada: she may complete it.
      await column(page, 'Submitted').getByRole('link', { name: 'Survey the north bed' }).click();
      await page.getByRole('heading', { level: 1, name: 'Survey the north bed' }).waitFor();
      await page.locator('.task-description strong', { hasText: 'tulips' }).waitFor();
      // She created it, so she may also cancel it.
      await button(page, 'Complete').waitFor();
      assert.deepEqual(await moves(page), ['Cancel task', 'Complete']);
      await button(page, 'Complete').click();
      const provenance = page.getByRole('region', { name: 'Completion' });
      await provenance.waitFor();
      const text = (await provenance.innerText()).replace(/\s+/g, ' ');
      assert.match(text, /Work by @scout ?agent answering to @ada \(operator, accountable principal\)/);
      assert.match(text, /Completed by @bea \(their own accountable principal\)/);
      assert.match(text, /Assurance Independent review \(independent_principal\)/);
      assert.match(text, /Required independent_principal/);
      // bea created it: she may reopen it; nobody may cancel a completed task.
      assert.deepEqual(await moves(page), ['Reopen']);

      await page.getByLabel('Add to the discussion').fill('Thanks @scout, **47** tulips it is.');
      await button(page, 'Post').click();
      await page.getByRole('list', { name: 'Messages' }).locator('strong', { hasText: '47' }).waitFor();
      assert.equal(await page.getByLabel('Add to the discussion').inputValue(), '');
      // The operator's open page follows the completion live.
      await operator.getByRole('region', { name: 'Completion' }).waitFor();
      await assertAccessible(page, 'task page');
      await screenshots(page, 'tasks-task');
    });

    it('offers only the moves the rules allow, and never calls self-attested work reviewed', async () => {
      const id = await newTask(ada.session, 'Label the seed trays');
      const page = await app.pages.open({ session: bea.session });
      await page.goto(`/spaces/workshop/tasks/${id}`);
      await button(page, 'Claim').waitFor();
      // Not her task and she is no Owner/Host: she may claim it, not cancel it.
      assert.deepEqual(await moves(page), ['Claim']);
      await button(page, 'Claim').click();
      await page.getByText('You claimed this task.').waitFor();
      await button(page, 'Submit').waitFor();
      assert.deepEqual(await moves(page), ['Release', 'Submit']);
      await button(page, 'Submit').click();
      await page.getByText('Submitted: another member can now complete it.').waitFor();
      await page.getByText('You did this work, so you cannot complete it yourself.').waitFor();
      assert.deepEqual(await moves(page), []);

      // The Owner answers to another principal and may complete or cancel it.
      const owner = await app.pages.open({ session: ada.session });
      await owner.goto(`/spaces/workshop/tasks/${id}`);
      await button(owner, 'Complete').waitFor();
      assert.deepEqual(await moves(owner), ['Cancel task', 'Complete']);
      // She completes it; bea's page follows live, and no longer says the task is submitted.
      await button(owner, 'Complete').click();
      await page.getByRole('region', { name: 'Completion' }).waitFor();
      assert.equal(await page.locator('.task-status').innerText(), 'Completed');
      assert.equal(await page.getByText('Submitted: another member can now complete it.').count(), 0);
      await screenshots(page, 'tasks-task-completed-live');

      // Under self_attested bea may complete her own work, and the page says it was not reviewed.
      await activeSpace(app.server, ada.session, 'sketchbook');
      await api('POST', '/v0/spaces/sketchbook/review-policy', ada.session, { review_policy: 'self_attested', reason: 'a solo notebook' });
      const own = await newTask(bea.session, 'Sketch the greenhouse', 'sketchbook');
      await move('sketchbook', own, 'claim', bea.session);
      await move('sketchbook', own, 'submit', bea.session);
      await page.goto(`/spaces/sketchbook/tasks/${own}`);
      await button(page, 'Complete').click();
      const provenance = page.getByRole('region', { name: 'Completion' });
      await provenance.waitFor();
      const text = (await provenance.innerText()).replace(/\s+/g, ' ');
      assert.match(text, /Work by @bea \(their own accountable principal\)/);
      assert.match(text, /Completed by @bea/);
      assert.match(text, /Self-attested, not reviewed \(self_attested\): the worker completed their own work; nobody else checked it/);
      assert.doesNotMatch(await page.locator('main').innerText(), /Independent review/);
    });

    it("shows the server's refusal when someone else moved first, then the task as it is", async () => {
      const id = await newTask(ada.session, 'Water the seedlings');
      const page = await app.pages.open({ session: bea.session });
      // Hold every read of the Space feed, its first page too: the page then never hears of the
      // agent's claim, nor refreshes the task because the feed caught up, and still shows it open.
      // (Waiting for the task's second read instead hung now and then: a refresh asked for while
      // the first read is in flight cancels it, and only one read is ever answered.)
      const held: Route[] = [];
      await page.route(/\/v0\/spaces\/workshop\/events\?/, (route) => void held.push(route));
      await page.goto(`/spaces/workshop/tasks/${id}`);
      await button(page, 'Claim').waitFor();
      await move('workshop', id, 'claim', scout.key);
      await button(page, 'Claim').click();
      await page.getByRole('alert').getByText(`cannot claim task ${id}: it is claimed by scout, not open`).waitFor();
      // The refusal refreshed the task: it shows who holds the claim, and Claim is gone.
      await page.locator('.task-facts').getByText('@scout').waitFor();
      assert.deepEqual(await moves(page), []);
      await page.unroute(/\/v0\/spaces\/workshop\/events/);
      await Promise.all(held.map((route) => route.continue()));
    });

    it('reads each column on its own, fifty at a time, so older tasks are a click away', async () => {
      await activeSpace(app.server, ada.session, 'orchard');
      for (let n = 1; n <= 55; n++) await newTask(ada.session, `Chore ${n}`, 'orchard');
      const done = await newTask(ada.session, 'Harvest', 'orchard');
      await move('orchard', done, 'cancel', ada.session);
      const page = await app.pages.open({ session: bea.session });
      await page.goto('/spaces/orchard/tasks');
      const open = column(page, 'Open');
      await open.getByRole('link', { name: 'Chore 55' }).waitFor();
      await column(page, 'Cancelled').getByRole('link', { name: 'Harvest' }).waitFor();
      assert.equal(await open.getByRole('heading', { level: 2 }).innerText(), 'Open 50+');
      assert.equal(await open.getByRole('listitem').count(), 50);
      assert.equal(await open.getByRole('link', { name: 'Chore 5', exact: true }).count(), 0);
      await assertAccessible(page, 'task board with a long column');
      await screenshots(page, 'tasks-board-long');
      await open.getByRole('button', { name: 'Show more open tasks' }).click();
      await open.getByRole('link', { name: 'Chore 1', exact: true }).waitFor();
      assert.equal(await open.getByRole('listitem').count(), 55);
      assert.equal(await open.getByRole('heading', { level: 2 }).innerText(), 'Open 55');
      assert.equal(await open.getByRole('button', { name: 'Show more open tasks' }).count(), 0);
      assert.equal(await column(page, 'Claimed').getByRole('button').count(), 0);
    });

    it('shows a reader who is not signed in the tasks, and no way to change them', async () => {
      const id = await newTask(ada.session, 'Prune the roses');
      const page = await app.pages.open();
      await page.goto('/spaces/workshop/tasks');
      await column(page, 'Open').getByRole('link', { name: 'Prune the roses' }).waitFor();
      await page.getByRole('link', { name: 'Sign in' }).first().waitFor();
      assert.equal(await button(page, 'New task').count(), 0);
      await page.goto(`/spaces/workshop/tasks/${id}`);
      await page.getByRole('heading', { level: 1, name: 'Prune the roses' }).waitFor();
      await page.getByRole('heading', { name: 'Discussion' }).waitFor();
      assert.deepEqual(await moves(page), []);
      assert.equal(await page.getByLabel('Add to the discussion').count(), 0);
    });
  });
}
