import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { backends, type Person } from './support/server.js';
import { activeSpace } from './support/spaces.js';
import { assertAccessible, screenshots, startWebApp, type WebApp } from './support/web-app.js';
import { assertError } from './support/errors.js';

// The product's main story, end to end: people propose, approve and join a
// Space, register and approve an agent, talk, hand work to the agent, review
// it, write a Resource together through an edit conflict, and pin it as the
// README. Every person acts in their own browser; the agent acts only through
// the API with the member key its operator read off the page. The steps share
// one server and build on each other, so they run in order.

for (const backend of backends()) {
  describe(`web: the main story (${backend})`, () => {
    let app: WebApp;
    let ada: Person;
    let ben: Person;
    let olga: Person;
    let agentKey = '';
    let taskId = 0;
    let resourcePath = '';
    const slug = 'commons';
    const agent = 'ada-scribe';

    before(async () => {
      app = await startWebApp(backend);
      ada = await app.server.human('ada');
      ben = await app.server.human('ben');
      olga = await app.server.human('olga', { role: 'owner' });
    });
    afterEach(() => app.pages.finish());
    after(() => app?.stop());

    const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name, exact: true });
    const status = (page: Page, text: string | RegExp) => page.getByRole('status').filter({ hasText: text });
    const inboxLink = (page: Page, name: string) => page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name, exact: true });
    /** Marks the page, so a later check can tell it was not reloaded. */
    const mark = (page: Page) => page.evaluate('window.__notReloaded = true');
    const notReloaded = async (page: Page) => assert.equal(await page.evaluate('window.__notReloaded'), true, 'the page was reloaded');
    const asAgent = (method: string, path: string) => app.server.request(method, path, { token: agentKey });

    async function joinFromHome(person: Person): Promise<Page> {
      const page = await app.pages.open({ session: person.session });
      await page.goto('/');
      await page.getByRole('region', { name: 'Other Spaces' }).getByRole('link', { name: 'Commons' }).click();
      await heading(page, 'Commons').waitFor();
      await page.getByRole('button', { name: 'Join', exact: true }).click();
      await status(page, 'You joined the Space.').waitFor();
      await page.getByText('You are a member of this Space.').waitFor();
      return page;
    }

    it('1. Ada proposes a Space, Olga approves it, and Ada and Ben join it', async () => {
      const adaPage = await app.pages.open({ session: ada.session });
      await adaPage.goto('/');
      await adaPage.getByRole('heading', { name: 'Propose a Space' }).waitFor();
      await adaPage.getByLabel('Address').fill(slug);
      await adaPage.getByLabel('Name').fill('Commons');
      await adaPage.getByLabel('Purpose').fill('Where people and agents share the work.');
      await adaPage.getByRole('button', { name: 'Propose the Space' }).click();
      await status(adaPage, 'Proposed Commons').waitFor();
      await adaPage.getByRole('region', { name: 'Your proposals' }).getByText('waiting for approval').waitFor();

      const olgaPage = await app.pages.open({ session: olga.session });
      await olgaPage.goto('/');
      const waiting = olgaPage.getByRole('region', { name: 'Proposed Spaces awaiting approval' });
      await waiting.getByText('Proposed by @ada').waitFor();
      await assertAccessible(olgaPage, 'home of a host-wide Owner');
      await screenshots(olgaPage, 'story-1-approval');
      await waiting.getByRole('button', { name: 'Approve Commons' }).click();
      await status(olgaPage, 'Approved Commons').waitFor();
      await waiting.getByText('No Space is waiting for approval.').waitFor();

      // Approval is no membership: the proposer joins like anyone else.
      await joinFromHome(ada);
      const benPage = await joinFromHome(ben);
      await assertAccessible(benPage, 'front page after joining');
      await screenshots(benPage, 'story-1-joined');
      const members = await app.server.request('GET', `/v0/spaces/${slug}/members`, { token: ben.session });
      assert.equal(members.status, 200);
      const admitted = (members.body.members as Array<{ member: string; state: string }>).filter((m) => m.state === 'admitted').map((m) => m.member).sort();
      assert.deepEqual(admitted, ['ada', 'ben']);
    });

    it('2. Ada registers and confirms an agent, Olga approves it, and it joins with the key shown once', async () => {
      const adaPage = await app.pages.open({ session: ada.session });
      await adaPage.goto('/agents');
      await heading(adaPage, 'Agents').waitFor();
      await adaPage.getByLabel('Handle').fill(agent);
      await adaPage.getByLabel('Display name (optional)').fill('Ada’s scribe');
      await adaPage.getByRole('button', { name: 'Register the agent' }).click();
      agentKey = await adaPage.getByLabel(`Key of @${agent}`).inputValue();
      assert.match(agentKey, /^sk_atrium_/);
      // Pending, the key authenticates but every action is refused.
      const early = await asAgent('POST', `/v0/spaces/${slug}/join`);
      assertError(early, 'member_pending');
      await adaPage.getByRole('button', { name: 'I have stored the key' }).click();
      const mine = adaPage.getByRole('region', { name: 'Agents you operate' });
      await mine.getByRole('button', { name: `Confirm @${agent}` }).click();
      await status(adaPage, `Confirmed @${agent}`).waitFor();
      await mine.getByText('Waiting for approval by a host-wide Owner or Host.').waitFor();

      const olgaPage = await app.pages.open({ session: olga.session });
      await olgaPage.goto('/agents');
      const pending = olgaPage.getByRole('region', { name: 'Waiting for approval' });
      await pending.getByText(`@${agent}`).waitFor();
      await assertAccessible(olgaPage, 'agents');
      await screenshots(olgaPage, 'story-2-agents');
      await pending.getByRole('button', { name: `Approve @${agent}` }).click();
      await status(olgaPage, `Approved @${agent}`).waitFor();

      const joined = await asAgent('POST', `/v0/spaces/${slug}/join`);
      assert.equal(joined.status, 200, JSON.stringify(joined.body));
      const me = await asAgent('GET', '/v0/me');
      assert.equal(me.body.handle, agent);
      assert.equal(me.body.operator, 'ada');
    });

    it('3. Ada mentions Ben in a channel; his open inbox shows it live and leads to the channel', async () => {
      // Ben's inbox is open on his laptop.
      const inbox = await app.pages.open({ session: ben.session });
      await inbox.goto('/inbox');
      await heading(inbox, 'Inbox').waitFor();
      await inbox.getByText('Nothing here yet.', { exact: false }).waitFor();
      await mark(inbox);
      const markedRead = inbox.waitForResponse((res) => new URL(res.url()).pathname === '/v0/me/inbox-read' && res.request().method() === 'POST');

      const adaPage = await app.pages.open({ session: ada.session });
      await adaPage.goto(`/spaces/${slug}`);
      // Approval gave the Space its #general channel.
      await adaPage.getByRole('region', { name: 'Channels' }).getByRole('link', { name: '#general' }).first().click();
      await heading(adaPage, '#general').waitFor();
      const composer = adaPage.getByRole('combobox', { name: 'Message #general' });
      await composer.click();
      await composer.pressSequentially('Welcome @be');
      const options = adaPage.getByRole('listbox', { name: 'Members to mention' }).getByRole('option');
      await options.first().waitFor();
      // Handles that start with "be" come first; the agent's handle holds it further in.
      assert.deepEqual(await options.allTextContents(), ['@ben', `@${agent}`]);
      await adaPage.keyboard.press('Enter');
      assert.equal(await composer.inputValue(), 'Welcome @ben ');
      await composer.pressSequentially('— the **task board** is open.');
      await adaPage.keyboard.press('Control+Enter');
      await adaPage.getByRole('log', { name: 'Messages in #general' }).getByText('is open.', { exact: false }).waitFor();

      const item = inbox.getByRole('link', { name: '@ada mentioned you in #general' });
      await item.waitFor();
      const entry = inbox.getByRole('listitem').filter({ has: item });
      await entry.getByText('new', { exact: true }).waitFor();
      await entry.getByText('Welcome @ben — the task board is open.').waitFor();
      await status(inbox, '1 new message').waitFor();
      // Seeing it there marked it read, on the host: his phone, opened now, counts nothing unread.
      assert.equal((await markedRead).status(), 200);
      const phone = await app.pages.open({ session: ben.session });
      const markRead = phone.waitForResponse((res) => new URL(res.url()).pathname === '/v0/me/inbox-read' && res.request().method() === 'GET');
      await phone.goto(`/spaces/${slug}`);
      assert.equal((await (await markRead).json()).cursor >= 1, true);
      await heading(phone, 'Commons').waitFor();
      await inboxLink(phone, 'Inbox').waitFor();
      await notReloaded(inbox);
      await assertAccessible(inbox, 'inbox');
      await screenshots(inbox, 'story-3-inbox');

      await item.click();
      await inbox.waitForURL(`**/spaces/${slug}/channels/general`);
      await heading(inbox, '#general').waitFor();
      const message = inbox.getByRole('log', { name: 'Messages in #general' }).getByRole('listitem').filter({ hasText: 'is open.' });
      await message.locator('mark.mention-me', { hasText: '@ben' }).waitFor();
      await notReloaded(inbox);
      await screenshots(inbox, 'story-3-channel');
    });

    it('4. Ada creates a task; the agent claims and submits it; Ben watches it move and completes it', async () => {
      const adaPage = await app.pages.open({ session: ada.session });
      await adaPage.goto(`/spaces/${slug}/tasks`);
      await heading(adaPage, 'Tasks').waitFor();
      await adaPage.getByRole('button', { name: 'New task', exact: true }).click();
      await adaPage.getByLabel('Title').fill('Summarise the charter');
      await adaPage.getByLabel('Description').fill('Five bullet points, **plain words**.');
      await adaPage.getByRole('button', { name: 'Create task', exact: true }).click();
      await status(adaPage, /Created task #\d+/).waitFor();
      const link = adaPage.getByRole('region', { name: /^Open\b/ }).getByRole('link', { name: 'Summarise the charter' });
      taskId = Number((await link.getAttribute('href'))!.split('/').pop());
      assert.ok(taskId > 0);

      const benPage = await app.pages.open({ session: ben.session });
      await benPage.goto(`/spaces/${slug}/tasks/${taskId}`);
      await heading(benPage, 'Summarise the charter').waitFor();
      await benPage.getByRole('button', { name: 'Claim', exact: true }).waitFor();
      await mark(benPage);
      const facts = benPage.locator('.task-facts');

      const claimed = await asAgent('POST', `/v0/spaces/${slug}/tasks/${taskId}/claim`);
      assert.equal(claimed.status, 200, JSON.stringify(claimed.body));
      await facts.getByText('Claimed by').waitFor();
      await facts.getByText(`@${agent}`).waitFor();
      await benPage.getByRole('button', { name: 'Claim', exact: true }).waitFor({ state: 'detached' });

      const submitted = await asAgent('POST', `/v0/spaces/${slug}/tasks/${taskId}/submit`);
      assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
      await facts.getByText('Submitted by').waitFor();
      await benPage.getByRole('button', { name: 'Complete', exact: true }).click();
      await status(benPage, 'Completed. The provenance below records who did what.').waitFor();
      const provenance = benPage.getByRole('region', { name: 'Completion' });
      await provenance.waitFor();
      const text = (await provenance.innerText()).replace(/\s+/g, ' ');
      assert.match(text, new RegExp(`Work by @${agent} ?agent answering to @ada \\(operator, accountable principal\\)`));
      assert.match(text, /Completed by @ben \(their own accountable principal\)/);
      assert.match(text, /Assurance Independent review \(independent_principal\)/);
      await notReloaded(benPage);
      await assertAccessible(benPage, 'completed task');
      await screenshots(benPage, 'story-4-task');

      // What the page says is what the server recorded.
      const task = await app.server.request('GET', `/v0/spaces/${slug}/tasks/${taskId}`, { token: ben.session });
      const c = task.body.completion;
      assert.deepEqual([c.worker, c.worker_principal, c.completer, c.completer_principal, c.assurance], [agent, 'ada', 'ben', 'ben', 'independent_principal']);
    });

    it('5. Ada writes a Resource; Ben saves first; Ada meets the conflict with her text kept, merges and saves', async () => {
      const textArea = (page: Page) => page.getByLabel('Text', { exact: true });
      const adaPage = await app.pages.open({ session: ada.session });
      await adaPage.goto(`/spaces/${slug}/resources`);
      await adaPage.getByRole('link', { name: 'New Resource' }).click();
      await heading(adaPage, 'New Resource').waitFor();
      await adaPage.getByLabel('Name').fill('README');
      await textArea(adaPage).fill('# Welcome to Commons\n\nWe share the work.\n');
      await adaPage.getByRole('button', { name: 'Create Resource' }).click();
      await adaPage.waitForURL(/\/resources\/res_[a-z0-9]+$/);
      resourcePath = new URL(adaPage.url()).pathname;
      await adaPage.getByText(/Version 1, saved by @ada/).waitFor();

      const benPage = await app.pages.open({ session: ben.session });
      for (const page of [adaPage, benPage]) {
        await page.goto(`${resourcePath}/edit`);
        await heading(page, 'Edit README').waitFor();
        await page.getByText('Editing from version 1.').waitFor();
      }
      await textArea(benPage).fill('# Welcome to Commons\n\nWe share the work, **people and agents** alike.\n');
      await benPage.getByRole('button', { name: 'Save' }).click();
      await benPage.getByText(/Version 2, saved by @ben/).waitFor();

      const adas = '# Welcome to Commons\n\nWe share the work.\n\nAsk in #general.\n';
      await textArea(adaPage).fill(adas);
      await adaPage.getByRole('button', { name: 'Save' }).click();
      const conflict = adaPage.getByRole('region', { name: 'Version 2 was saved while you were editing' });
      await conflict.getByText(/@ben saved version 2/).waitFor();
      assert.equal(await textArea(adaPage).inputValue(), adas, 'her own text is kept');
      await assertAccessible(adaPage, 'edit conflict');
      await screenshots(adaPage, 'story-5-conflict');

      const merged = '# Welcome to Commons\n\nWe share the work, **people and agents** alike.\n\nAsk in #general.\n';
      await textArea(adaPage).fill(merged);
      await adaPage.getByRole('button', { name: 'Save on top of version 2' }).click();
      await adaPage.waitForURL((url) => url.pathname === resourcePath);
      await adaPage.getByText(/Version 3, saved by @ada/).waitFor();

      await adaPage.getByRole('link', { name: 'History' }).click();
      await heading(adaPage, 'History of README').waitFor();
      const versions = adaPage.getByRole('table').getByRole('row').filter({ hasText: /Version \d/ });
      await versions.nth(2).waitFor();
      assert.deepEqual(
        (await versions.getByRole('rowheader').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim()),
        ['Version 3 current', 'Version 2', 'Version 1'],
      );
      assert.equal(await versions.filter({ hasText: '@ben' }).count(), 1);
      await assertAccessible(adaPage, 'Resource history');
      await screenshots(adaPage, 'story-5-history');
      const stored = await app.server.request('GET', `/v0${resourcePath}`, { token: ada.session });
      assert.equal(stored.body.content, merged);
    });

    it('6. Olga pins the Resource; the front page shows it as the README, rendered', async () => {
      // Ben keeps the front page open: the pin arrives there live.
      const benPage = await app.pages.open({ session: ben.session });
      await benPage.goto(`/spaces/${slug}`);
      await benPage.getByText('Nothing is pinned yet.', { exact: false }).waitFor();
      await mark(benPage);

      const olgaPage = await app.pages.open({ session: olga.session });
      await olgaPage.goto(`/spaces/${slug}/pins`);
      await heading(olgaPage, 'Pins').waitFor();
      await olgaPage.getByLabel('Pin a Resource').selectOption({ label: 'README' });
      await olgaPage.getByRole('button', { name: 'Pin', exact: true }).click();
      await status(olgaPage, 'Pinned “README” at position 1.').waitFor();
      await olgaPage.getByRole('region', { name: 'Pinned now' }).getByRole('link', { name: 'README' }).waitFor();
      await assertAccessible(olgaPage, 'pins');
      await screenshots(olgaPage, 'story-6-pins');

      const readme = benPage.getByRole('region', { name: 'README' });
      await readme.getByRole('heading', { level: 3, name: 'Welcome to Commons' }).waitFor();
      assert.equal(await readme.locator('strong').textContent(), 'people and agents');
      await readme.getByText('Ask in #general.').waitFor();
      await notReloaded(benPage);
      await readme.getByRole('link', { name: 'README' }).waitFor();
      assert.equal(await readme.getByRole('link', { name: 'README' }).getAttribute('href'), resourcePath);
      await assertAccessible(benPage, 'front page with its README');
      await screenshots(benPage, 'story-6-front-page');
    });

    it('7. an invite-only Space is not on Ben’s Home, and its page shows only that it is invite-only', async () => {
      await activeSpace(app.server, olga.session, 'backroom', 'invite');
      const page = await app.pages.open({ session: ben.session });
      await page.goto('/');
      await page.getByRole('region', { name: 'Your Spaces' }).getByRole('link', { name: 'Commons' }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'backroom' }).count(), 0, 'an invite-only Space is not listed to a non-member');

      await page.goto('/spaces/backroom');
      await heading(page, 'backroom').waitFor();
      await page.getByText('This Space is invite-only').waitFor();
      await page.getByText('An Owner or Host of this Space can invite you.').waitFor();
      assert.equal(await page.getByRole('navigation', { name: 'Space backroom' }).count(), 0, 'no way into its places');
      assert.equal(await page.getByRole('button', { name: /Join/ }).count(), 0);
      await page.goto('/spaces/backroom/channels/general');
      await heading(page, 'backroom').waitFor();
      assert.equal(await page.getByRole('log').count(), 0, 'no conversation shown');
      await assertAccessible(page, 'invite-only Space');
      await screenshots(page, 'story-7-invite-only');
    });
  });
}
