import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { focused } from './support/browser.js';
import { createResource, TestRepository } from './support/pins.js';
import { seedAdmittedHumans, seedAgent } from './support/seed.js';
import { backends } from './support/server.js';
import { activeSpace } from './support/spaces.js';
import { assertAccessible, screenshots, startWebApp, type WebApp } from './support/web-app.js';

// Home, a Space's front page and pins, its members and settings, and agents,
// driven in a real browser against a real server, as the people who use them
// would: by roles and labels. Data is seeded through the public API.

const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name });

for (const backend of backends()) {
  describe(`web: Spaces, pins, members, agents (${backend})`, () => {
    let app: WebApp;
    let repo: TestRepository;
    let ada: { handle: string; session: string };

    before(async () => {
      // A repository on the host, so a pinned repository file can go missing.
      repo = new TestRepository();
      repo.commit('guide', { 'docs/guide.md': '# Guide\n\nHow we work.\n' });
      app = await startWebApp(backend, { ATRIUM_REPOSITORY_PATH: repo.path });
      ada = await app.server.human('ada', { role: 'owner' });
    });
    afterEach(() => app.pages.finish());
    after(async () => {
      await app?.stop();
      repo?.remove();
    });

    const api = async (method: string, path: string, token: string, body?: unknown) => {
      const res = await app.server.request(method, path, { token, ...(body !== undefined ? { body } : {}) });
      assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };

    it('a person proposes a Space, a host-wide Owner approves it, and the person joins it', async () => {
      const bea = await app.server.human('bea');
      const page = await app.pages.open({ session: bea.session });
      await page.goto('/');
      await heading(page, 'Atrium').waitFor();
      await page.getByText('atrium login').waitFor();
      await page.getByLabel('Address').fill('garden');
      await page.getByLabel('Name').fill('Garden club');
      await page.getByLabel('Purpose').fill('Growing things together.');
      await page.getByLabel('On request: an Owner or Host admits').check();
      await page.getByRole('button', { name: 'Propose the Space' }).click();
      await page.getByRole('status').filter({ hasText: 'Proposed Garden club' }).waitFor();
      const proposals = page.getByRole('region', { name: 'Your proposals' });
      await proposals.getByRole('link', { name: 'Garden club' }).waitFor();
      await proposals.getByText('waiting for approval').waitFor();
      assert.equal(await page.getByLabel('Address').inputValue(), '', 'the form is cleared after a proposal');

      const owner = await app.pages.open({ session: ada.session });
      await owner.goto('/');
      const waiting = owner.getByRole('region', { name: 'Proposed Spaces awaiting approval' });
      await waiting.getByRole('link', { name: 'Garden club' }).waitFor();
      await waiting.getByText('Proposed by @bea').waitFor();
      await assertAccessible(owner, 'home');
      await screenshots(owner, 'spaces-home');
      await waiting.getByRole('button', { name: 'Approve Garden club' }).click();
      await owner.getByRole('status').filter({ hasText: 'Approved Garden club' }).waitFor();
      await waiting.getByText('No Space is waiting for approval.').waitFor();
      assert.equal((await api('GET', '/v0/spaces/garden', ada.session)).status, 'active');

      // The proposer is not a member until they join, like anyone else.
      await page.reload();
      await page.getByRole('region', { name: 'Other Spaces' }).getByRole('link', { name: 'Garden club' }).click();
      await heading(page, 'Garden club').waitFor();
      await page.getByText('Growing things together.').first().waitFor();
      await page.getByRole('button', { name: 'Request to join' }).click();
      await page.getByRole('status').filter({ hasText: 'Your request was sent' }).waitFor();
      // Withdrawing is one click; asking again brings the request back.
      await page.getByRole('button', { name: 'Withdraw the request' }).click();
      await page.getByRole('status').filter({ hasText: 'You withdrew your request.' }).waitFor();
      await page.getByRole('button', { name: 'Request to join' }).click();
      await page.getByRole('button', { name: 'Withdraw the request' }).waitFor();
      const standing = await api('GET', '/v0/me/memberships', bea.session);
      assert.deepEqual(
        standing.memberships.map((m: { space: string; state: string }) => [m.space, m.state]),
        [['garden', 'requested']],
      );
      await page.goto('/');
      await page.getByRole('region', { name: 'Your Spaces' }).getByText('Request to join pending').waitFor();
    });

    it('an invite-only Space is not on a non-member’s Home, and its page shows only that it is invite-only', async () => {
      await activeSpace(app.server, ada.session, 'vault', 'invite');
      const secret = await createResource(app.server, 'vault', ada.session, 'Secret plans', 'The vault combination is 1234.');
      await api('POST', '/v0/spaces/vault/pins', ada.session, { resource_ids: [secret] });
      await activeSpace(app.server, ada.session, 'plaza', 'open');
      const cy = await app.server.human('cy');

      const page = await app.pages.open({ session: cy.session });
      await page.goto('/');
      const toJoin = page.getByRole('region', { name: 'Other Spaces' });
      await toJoin.getByRole('link', { name: 'plaza' }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'vault' }).count(), 0, 'an invite-only Space is not listed to a non-member');

      await page.goto('/spaces/vault');
      await heading(page, 'vault').waitFor();
      await page.getByText('This Space is invite-only').waitFor();
      assert.equal(await page.getByText('Secret plans').count(), 0);
      assert.equal(await page.getByText('combination').count(), 0);

      // Signed out, the public Spaces are listed and the invite-only one is not.
      const anonymous = await app.pages.open();
      await anonymous.goto('/');
      await anonymous.getByRole('region', { name: 'Public Spaces' }).getByRole('link', { name: 'plaza' }).waitFor();
      await anonymous.getByRole('link', { name: 'Sign in' }).first().waitFor();
      assert.equal(await anonymous.getByRole('link', { name: 'vault' }).count(), 0);
      await assertAccessible(anonymous, 'home, signed out');
      await screenshots(anonymous, 'spaces-home-signed-out');
      await anonymous.getByRole('link', { name: 'plaza' }).click();
      await heading(anonymous, 'plaza').waitFor();
      await anonymous.getByText('to join this Space.').getByRole('link', { name: 'Sign in' }).waitFor();
      assert.equal(await anonymous.getByRole('button', { name: 'Join' }).count(), 0, 'nobody to join as');
    });

    it('shows the pins in order, the README rendered and a missing pin as missing; an Owner reorders them by keyboard', async () => {
      await activeSpace(app.server, ada.session, 'atlas', 'open');
      await api('POST', '/v0/spaces/atlas/join', ada.session);
      const readme = await createResource(app.server, 'atlas', ada.session, 'README', '# Welcome\n\nWe map **everything**.\n\n<script>alert(1)</script>');
      const roadmap = await createResource(app.server, 'atlas', ada.session, 'Roadmap', 'Next: the coast.');
      await api('POST', '/v0/spaces/atlas/pins', ada.session, { resource_ids: [readme, 'repo:docs/guide.md', roadmap] });
      // The file leaves `main`: the pin stays, shown as missing.
      repo.commit('drop the guide', { 'docs/guide.md': null });

      const page = await app.pages.open({ session: ada.session });
      await page.goto('/spaces/atlas');
      await heading(page, 'atlas').waitFor();
      const readmeSection = page.getByRole('region', { name: 'README' });
      // The README's own `# Welcome` sits under the section's heading, never beside the page's title.
      await readmeSection.getByRole('heading', { level: 3, name: 'Welcome' }).waitFor();
      assert.equal(await readmeSection.locator('strong').textContent(), 'everything');
      assert.equal(await page.locator('script:text("alert")').count(), 0, 'raw HTML in a pin is never rendered');
      const also = page.getByRole('region', { name: 'Also pinned' }).getByRole('listitem');
      assert.equal(await also.count(), 2);
      assert.match((await also.nth(0).textContent()) ?? '', /^docs\/guide\.md.*missing/);
      assert.match((await also.nth(1).textContent()) ?? '', /^Roadmap/);
      await also.first().getByText('This file is no longer on the main branch').waitFor();
      await page.getByRole('button', { name: 'Leave' }).waitFor();
      await assertAccessible(page, 'front page');
      await screenshots(page, 'spaces-front-page');

      await page.getByRole('link', { name: 'Pins' }).first().click();
      await heading(page, 'Pins').waitFor();
      const order = page.getByRole('region', { name: 'Pinned now' }).getByRole('listitem');
      await order.nth(2).waitFor();
      // As a keyboard user: focus on the button, Enter to press it, and again.
      // A locator waits without evaluating strings in the page, which its Content-Security-Policy forbids.
      const focusOn = (label: string) => page.locator(`button[aria-label=${JSON.stringify(label)}]:focus`).waitFor();
      await page.getByRole('button', { name: 'Move up: Roadmap' }).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('status').filter({ hasText: 'Moved “Roadmap” to position 2 of 3.' }).waitFor();
      await focusOn('Move up: Roadmap');
      await page.keyboard.press('Enter');
      await page.getByRole('status').filter({ hasText: 'Moved “Roadmap” to position 1 of 3.' }).waitFor();
      // At the top "Move up" is disabled: focus stays with the pin, on its other button.
      await focusOn('Move down: Roadmap');
      assert.equal(await focused(page), 'button:Move down');
      const pins = await api('GET', '/v0/spaces/atlas', ada.session);
      assert.deepEqual(pins.pinned_resources, [roadmap, readme, 'repo:docs/guide.md']);
      assert.match((await order.first().textContent()) ?? '', /Roadmap/);

      // The missing file can be unpinned.
      await page.getByRole('button', { name: 'Unpin: docs/guide.md (repository file)' }).click();
      await page.getByRole('status').filter({ hasText: 'Unpinned “docs/guide.md”. 2 pins remain.' }).waitFor();

      // The host has a repository, so a file of it can be pinned by its path; the server says why one cannot.
      repo.commit('handbook', { 'docs/handbook.md': '# Handbook\n\nWho does what.\n' });
      app.pages.expectRefusal(422, /^\/v0\/spaces\/atlas\/pins$/);
      const file = page.getByLabel('Pin a repository file');
      await file.fill('docs/nope.md');
      await page.getByRole('button', { name: 'Pin file' }).click();
      await page.getByRole('alert').filter({ hasText: 'docs/nope.md' }).waitFor();
      await file.fill('/docs/handbook.md');
      await page.getByRole('button', { name: 'Pin file' }).click();
      await page.getByRole('status').filter({ hasText: 'Pinned the repository file “docs/handbook.md” at position 3.' }).waitFor();
      await order.nth(2).filter({ hasText: 'docs/handbook.md' }).getByText('repository file').waitFor();
      assert.deepEqual((await api('GET', '/v0/spaces/atlas', ada.session)).pinned_resources, [roadmap, readme, 'repo:docs/handbook.md']);
      await assertAccessible(page, 'pins');
      await page.getByRole('button', { name: 'Unpin: docs/handbook.md (repository file)' }).click();
      await page.getByRole('status').filter({ hasText: 'Unpinned “docs/handbook.md”. 2 pins remain.' }).waitFor();
      await screenshots(page, 'spaces-pins');
    });

    it('an Owner joins their own invite-only Space from its front page, without inviting themselves', async () => {
      await activeSpace(app.server, ada.session, 'cellar', 'invite');
      const page = await app.pages.open({ session: ada.session });
      await page.goto('/spaces/cellar');
      await heading(page, 'cellar').waitFor();
      await page.getByText('may join it without an invitation').waitFor();
      await assertAccessible(page, 'front page of an invite-only Space, for its Owner');
      await screenshots(page, 'spaces-front-page-owner-invite-only');
      await page.getByRole('button', { name: 'Join', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'You joined the Space.' }).waitFor();
      await page.getByText('You are a member of this Space.').waitFor();
      const members = (await api('GET', '/v0/spaces/cellar/members', ada.session)).members as Array<{ member: string; state: string }>;
      assert.deepEqual(members.map((m) => [m.member, m.state]), [['ada', 'admitted']]);
    });

    it("shows a README's title once, when the document opens with it as its heading", async () => {
      await activeSpace(app.server, ada.session, 'almanac', 'open');
      const readme = await createResource(app.server, 'almanac', ada.session, 'Almanac handbook', '#  almanac  Handbook \n\nSow in spring.\n\n## Seasons\n\nFour of them.');
      await api('POST', '/v0/spaces/almanac/pins', ada.session, { resource_ids: [readme] });
      const page = await app.pages.open({ session: ada.session });
      await page.goto('/spaces/almanac');
      const section = page.getByRole('region', { name: 'Almanac handbook' });
      await section.getByRole('heading', { level: 4, name: 'Seasons' }).waitFor();
      assert.deepEqual(await section.getByRole('heading').allInnerTexts(), ['Almanac handbook', 'Seasons']);
      await section.getByText('Sow in spring.').waitFor();
      await assertAccessible(page, 'front page with a README that repeats its title');
      await screenshots(page, 'spaces-front-page-titled-readme');
    });

    it('a member proposes a pin; the Owner accepts one and declines another with a reason', async () => {
      const dee = await app.server.human('dee');
      await api('POST', '/v0/spaces/atlas/join', dee.session);
      await createResource(app.server, 'atlas', ada.session, 'Glossary', 'Terms we use.');
      await createResource(app.server, 'atlas', ada.session, 'Scratchpad', 'Loose notes.');

      const member = await app.pages.open({ session: dee.session });
      await member.goto('/spaces/atlas/pins');
      await heading(member, 'Pins').waitFor();
      assert.equal(await member.getByRole('button', { name: /^Move/ }).count(), 0, 'only Owners/Hosts arrange pins');
      await member.getByLabel('Resource').selectOption({ label: 'Glossary' });
      await member.getByLabel('Why should it be on the front page?').fill('Newcomers ask what our words mean.');
      await member.getByRole('button', { name: 'Propose the pin' }).click();
      await member.getByRole('status').filter({ hasText: 'Proposed “Glossary”' }).waitFor();
      const waiting = member.getByRole('region', { name: 'Proposals' });
      await waiting.getByText('Newcomers ask what our words mean.').waitFor();
      assert.equal(await member.getByRole('button', { name: /^Accept/ }).count(), 0, 'a member does not decide');

      const owner = await app.pages.open({ session: ada.session });
      await owner.goto('/spaces/atlas/pins');
      await owner.getByRole('button', { name: 'Accept: pin Glossary' }).click();
      await owner.getByRole('status').filter({ hasText: 'Accepted: “Glossary” is pinned.' }).waitFor();
      await owner.getByRole('region', { name: 'Pinned now' }).getByRole('link', { name: 'Glossary' }).waitFor();

      // One unresolved proposal per member: the next one can go in now.
      await member.reload();
      await member.getByLabel('Resource').selectOption({ label: 'Scratchpad' });
      await member.getByLabel('Why should it be on the front page?').fill('Handy.');
      await member.getByRole('button', { name: 'Propose the pin' }).click();
      await member.getByRole('status').filter({ hasText: 'Proposed “Scratchpad”' }).waitFor();

      await owner.getByRole('button', { name: 'Decline: do not pin Scratchpad' }).click();
      await owner.getByLabel('Why decline pinning “Scratchpad”?').fill('Too rough for the front page.');
      await assertAccessible(owner, 'pin proposals');
      await screenshots(owner, 'spaces-pin-proposals');
      await owner.getByRole('button', { name: 'Decline the proposal' }).click();
      await owner.getByRole('status').filter({ hasText: 'Declined the proposal to pin “Scratchpad”.' }).waitFor();
      await owner.getByText('Declined because: Too rough for the front page.').waitFor();

      const declined = await api('GET', '/v0/spaces/atlas/pin-proposals?status=declined', ada.session);
      assert.equal(declined.pin_proposals[0].decline_reason, 'Too rough for the front page.');
      // The member's page follows the Space feed: the decision appears without a reload.
      await member.getByText('Declined because: Too rough for the front page.').waitFor();

      // An Owner may pin a Resource directly; it goes at the end.
      await owner.getByLabel('Pin a Resource').selectOption({ label: 'Scratchpad' });
      await owner.getByRole('button', { name: 'Pin', exact: true }).click();
      await owner.getByRole('status').filter({ hasText: 'Pinned “Scratchpad” at position 4.' }).waitFor();
      const names = await owner.getByRole('region', { name: 'Pinned now' }).getByRole('link').allTextContents();
      assert.deepEqual(names, ['Roadmap', 'README', 'Glossary', 'Scratchpad']);
    });

    it('a join request is admitted by a Host of the Space', async () => {
      await activeSpace(app.server, ada.session, 'guild', 'request');
      const hal = await app.server.human('hal', { role: 'host', space: 'guild' });
      const eli = await app.server.human('eli');
      // An agent already admitted: its row says it is one, and whose.
      const scribe = await seedAgent(app.server, 'scribe', 'eli', 'active');
      assert.equal((await app.server.request('POST', '/v0/spaces/guild/join', { token: scribe.key })).status, 202);
      assert.equal((await app.server.request('POST', '/v0/spaces/guild/join-requests/scribe/admit', { token: hal.session })).status, 200);

      const page = await app.pages.open({ session: eli.session });
      await page.goto('/spaces/guild');
      await page.getByRole('button', { name: 'Request to join' }).click();
      await page.getByRole('status').filter({ hasText: 'Your request was sent' }).waitFor();

      const host = await app.pages.open({ session: hal.session });
      await host.goto('/spaces/guild/members');
      await heading(host, 'Members').waitFor();
      const asking = host.getByRole('region', { name: /Asking to join/ });
      await asking.getByText('@eli').waitFor();
      await assertAccessible(host, 'members');
      await screenshots(host, 'spaces-members');
      await asking.getByRole('button', { name: 'Admit @eli' }).focus();
      await host.keyboard.press('Enter');
      await host.getByRole('status').filter({ hasText: 'Admitted @eli.' }).waitFor();
      // The Admit button left with the request: focus goes on to the announcement, not to the top of the page.
      await host.locator('[role="status"]:focus', { hasText: 'Admitted @eli.' }).waitFor();
      await host.getByRole('region', { name: /^Current members/ }).getByRole('button', { name: 'Remove @eli' }).waitFor();
      await asking.getByText('No open requests.').waitFor();

      // Details on demand: the member record says person or agent.
      const members = host.getByRole('region', { name: /^Current members/ });
      await members.getByRole('button', { name: 'Details of @eli' }).click();
      await members.getByText('Person').waitFor();
      const line = async (handle: string) => {
        const row = members.getByRole('listitem').filter({ has: host.locator('.member-line > .handle', { hasText: `@${handle}` }) });
        return (await row.locator('.member-line').innerText()).replace(/\s+/g, ' ');
      };
      assert.match(await line('scribe'), /^@scribe ?agent operated by @eli /);
      assert.doesNotMatch(await line('eli'), /agent|operated/);

      // The member's own page follows the Space feed.
      await page.getByText('You are a member of this Space.').waitFor();

      // Remove, with a confirmation.
      await members.getByRole('button', { name: 'Remove @eli' }).click();
      const dialog = host.getByRole('dialog', { name: 'Remove @eli from guild?' });
      await dialog.getByRole('button', { name: 'Remove' }).click();
      await host.getByRole('status').filter({ hasText: 'Removed @eli from the Space.' }).waitFor();
      await host.getByRole('region', { name: /^Removed/ }).getByRole('button', { name: 'Invite back @eli' }).waitFor();
    });

    it('a Space of more members than a page shows a page and offers the next', async () => {
      await activeSpace(app.server, ada.session, 'crowd', 'open');
      const handles = Array.from({ length: 205 }, (_, i) => `crowd-${String(i).padStart(3, '0')}`);
      await seedAdmittedHumans(app.server, 'crowd', handles);
      const page = await app.pages.open({ session: ada.session });
      await page.goto('/spaces/crowd/members');
      const members = page.getByRole('region', { name: /^Current members/ });
      await members.getByText('@crowd-199').waitFor();
      assert.equal(await members.getByText('@crowd-200').count(), 0);
      assert.equal((await members.locator('.badge').first().innerText()).trim(), '200+');
      await assertAccessible(page, 'members, paged');
      await members.getByRole('button', { name: 'Show more current members' }).click();
      await members.getByText('@crowd-204').waitFor();
      assert.equal((await members.locator('.badge').first().innerText()).trim(), '205');
      assert.equal(await members.getByRole('button', { name: 'Show more current members' }).count(), 0);
    });

    it('an Owner changes the review policy; a proposal is archived, restored and approved', async () => {
      await activeSpace(app.server, ada.session, 'attic', 'open');
      const page = await app.pages.open({ session: ada.session });
      await page.goto('/spaces/attic/settings');
      await heading(page, 'Settings').waitFor();
      await page.getByLabel(/^Another member/).check();
      await page.getByLabel('Reason for the change').fill('Small team, one reviewer is enough.');
      await assertAccessible(page, 'settings');
      await screenshots(page, 'spaces-settings');
      await page.getByRole('button', { name: 'Save the review policy' }).click();
      await page.getByRole('status').filter({ hasText: 'The review policy is now “Another member”.' }).waitFor();
      assert.equal((await api('GET', '/v0/spaces/attic', ada.session)).review_policy, 'distinct_member');

      await page.getByText('An active Space stays open').waitFor();
      assert.equal(await page.getByRole('button', { name: /Archive/ }).count(), 0, 'an active Space is never archived');

      // A proposal is turned down by archiving it, and restored to a proposal.
      await app.server.request('POST', '/v0/spaces', { token: ada.session, body: { slug: 'shed', name: 'Tool shed', join_policy: 'open' } });
      await page.goto('/spaces/shed/settings');
      await page.getByRole('button', { name: 'Archive the proposal…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Archive the proposal Tool shed?' });
      await dialog.getByLabel('Reason (optional)').fill('We have one already.');
      await dialog.getByRole('button', { name: 'Archive' }).click();
      await page.getByRole('status').filter({ hasText: 'The proposal is archived.' }).waitFor();
      assert.equal((await api('GET', '/v0/spaces/shed', ada.session)).status, 'archived');
      await page.getByRole('button', { name: 'Restore the proposal…' }).click();
      await page.getByRole('dialog', { name: 'Restore Tool shed?' }).getByRole('button', { name: 'Restore' }).click();
      await page.getByRole('status').filter({ hasText: 'The Space is a proposal again' }).waitFor();
      await page.getByRole('button', { name: 'Approve the Space' }).click();
      await page.getByRole('status').filter({ hasText: 'The Space is approved and open.' }).waitFor();
      assert.equal((await api('GET', '/v0/spaces/shed', ada.session)).status, 'active');
    });

    it('registering an agent shows its key once; the operator confirms it and an Owner approves it', async () => {
      const fay = await app.server.human('fay');
      const page = await app.pages.open({ session: fay.session });
      await page.goto('/agents');
      await heading(page, 'Agents').waitFor();
      assert.equal(await page.getByRole('heading', { name: 'Waiting for approval' }).count(), 0, 'approval is for host-wide Owners/Hosts');
      await page.getByLabel('Handle').fill('fay-bot');
      await page.getByLabel('Display name (optional)').fill('Fay’s helper');
      await page.getByRole('button', { name: 'Register the agent' }).click();
      await page.getByRole('heading', { name: '@fay-bot is registered. Store its key now' }).waitFor();
      const key = await page.getByLabel('Key of @fay-bot').inputValue();
      await screenshots(page, 'spaces-agent-key');
      assert.match(key, /^sk_atrium_/);
      await page.getByText('This is the only time the key is shown.').waitFor();
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
      await page.getByRole('button', { name: 'Copy the key' }).click();
      await page.getByRole('status').filter({ hasText: 'Copied the key to the clipboard.' }).waitFor();
      assert.equal(await page.evaluate('navigator.clipboard.readText()'), key);
      await page.getByRole('button', { name: 'I have stored the key' }).click();
      await page.getByLabel('Handle').waitFor();
      assert.equal(await page.getByLabel('Key of @fay-bot').count(), 0, 'the key is gone once stored');
      assert.equal(await page.getByText(key).count(), 0);

      const mine = page.getByRole('region', { name: 'Agents you operate' });
      await mine.getByText('Waiting for its operator to confirm it.').waitFor();
      await mine.getByRole('button', { name: 'Confirm @fay-bot' }).click();
      await page.getByRole('status').filter({ hasText: 'Confirmed @fay-bot' }).waitFor();
      await mine.getByText('Waiting for approval by a host-wide Owner or Host.').waitFor();

      const owner = await app.pages.open({ session: ada.session });
      await owner.goto('/agents');
      const pending = owner.getByRole('region', { name: 'Waiting for approval' });
      await pending.getByText('@fay-bot').waitFor();
      await assertAccessible(owner, 'agents');
      await screenshots(owner, 'spaces-agents');
      await pending.getByRole('button', { name: 'Approve @fay-bot' }).click();
      await owner.getByRole('status').filter({ hasText: 'Approved @fay-bot' }).waitFor();
      assert.equal((await api('GET', '/v0/members/fay-bot', ada.session)).status, 'active');
      const agentKey = await app.server.request('GET', '/v0/me', { token: key });
      assert.equal(agentKey.status, 200, 'the key shown once works after approval');

      // Suspend and reinstate, with a confirmation for the suspension.
      await owner.getByLabel('Handle of the member to suspend').fill('fay-bot');
      await owner.getByRole('button', { name: 'Suspend…' }).click();
      await owner.getByRole('dialog', { name: 'Suspend @fay-bot?' }).getByRole('button', { name: 'Suspend' }).click();
      await owner.getByRole('status').filter({ hasText: 'Suspended @fay-bot.' }).waitFor();
      const suspended = owner.getByRole('region', { name: 'Suspended members' });
      await suspended.getByRole('button', { name: 'Reinstate @fay-bot' }).click();
      await owner.getByRole('status').filter({ hasText: 'Reinstated @fay-bot.' }).waitFor();
      assert.equal((await api('GET', '/v0/members/fay-bot', ada.session)).status, 'active');
    });
  });
}
