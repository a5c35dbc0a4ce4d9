import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { focused } from './support/browser.js';
import { seedAgent } from './support/seed.js';
import { backends } from './support/server.js';
import { activeSpace } from './support/spaces.js';
import { assertAccessible, screenshots, startWebApp, type WebApp } from './support/web-app.js';
import { answerInTurn, WebhookReceiver } from './support/webhook-receiver.js';

// The webhook pages and credential approvals in a real browser against a real
// server: endpoints verified by a receiver on loopback that checks every
// signature itself, wakes that fail until they are dead and are replayed, and
// an approval made by an Owner through a connection from the host's file.

for (const backend of backends()) {
  describe(`web webhooks and approvals (${backend})`, () => {
    let app: WebApp;
    let receiver: WebhookReceiver;
    let dir: string;
    let ada: { handle: string; session: string };
    let bea: { handle: string; session: string };

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'atrium-web-webhooks-'));
      const connections = join(dir, 'connections.json');
      writeFileSync(
        connections,
        JSON.stringify({
          connections: [
            // Only for agents: an Owner does not see it listed, and approves it by id.
            { id: 'weather', space: 'garden', destinationId: 'provider', allowedMemberTypes: ['agent'], maxTtlSeconds: 60, approvalRequiredMethods: ['POST'] },
            { id: 'notes', space: 'garden', destinationId: 'provider', allowedMemberTypes: ['human', 'agent'], requireTask: true, maxTtlSeconds: 30 },
          ],
        }),
      );
      app = await startWebApp(backend, {
        ATRIUM_EGRESS_ALLOW_CIDRS: '127.0.0.0/8',
        ATRIUM_WEBHOOK_TIMEOUT_MS: '2000',
        // Two quick retries: a wake that keeps failing is dead after three attempts.
        ATRIUM_WEBHOOK_RETRY_SCHEDULE: '0,0',
        ATRIUM_CREDENTIAL_CONNECTIONS: connections,
      });
      receiver = await WebhookReceiver.start(app.server.url);
      ada = await app.server.human('ada', { role: 'owner' });
      bea = await app.server.human('bea');
      await seedAgent(app.server, 'scout', 'ada', 'active', { confirmed: true });
      await activeSpace(app.server, ada.session, 'garden');
      for (const who of [ada, bea]) await api('POST', '/v0/spaces/garden/join', who.session);
      await api('POST', '/v0/spaces/garden/channels', ada.session, { name: 'beds' });
    });
    afterEach(() => app.pages.finish());
    after(async () => {
      await receiver?.stop();
      await app?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    async function api(method: string, path: string, token: string, body?: unknown) {
      const res = await app.server.request(method, path, { token, ...(body !== undefined ? { body } : {}) });
      assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.body?.detail ?? ''}`);
      return res.body;
    }
    const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true });

    it('registers and verifies an endpoint, subscribes to a Space, and replays a dead delivery', async () => {
      const url = receiver.url('/bea-hooks');
      // The first wake fails on every attempt; anything after that is accepted.
      receiver.behaviours.set('/bea-hooks', answerInTurn([500, 500, 500]));
      const page = await app.pages.open({ session: bea.session });
      await page.goto('/webhooks');
      await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
      await page.getByText('You have no endpoints yet.').waitFor();

      // A private-network address is refused, with the host's reason; the URL typed stays to be corrected.
      app.pages.expectRefusal(422, /^\/v0\/webhook-endpoints$/);
      await page.getByLabel('Receiver URL').fill('http://10.1.2.3/hooks');
      await button(page, 'Register').click();
      await page.getByRole('alert').filter({ hasText: '10.1.2.3' }).waitFor();
      assert.equal(await page.getByLabel('Receiver URL').inputValue(), 'http://10.1.2.3/hooks');
      await page.getByText('You have no endpoints yet.').waitFor();

      await page.getByLabel('Receiver URL').fill(url);
      await button(page, 'Register').click();
      await page.getByText(`Registered ${url}, unverified`).waitFor();
      const row = page.getByRole('row', { name: new RegExp(url) });
      await row.getByText('unverified').waitFor();
      await button(page, `Verify ${url}`).click();
      await page.getByText(`${url} answered the challenge: it is active.`).waitFor();
      await row.getByText('active', { exact: true }).waitFor();
      const challenges = receiver.at('/bea-hooks').filter((r) => r.body.type === 'atrium.webhook.challenge');
      assert.equal(challenges.length, 1);
      assert.equal(challenges[0]!.signatureValid, true);

      // An inbox subscription, activated at once, then paused and resumed.
      const inbox = page.getByRole('region', { name: 'Inbox subscriptions' });
      await inbox.getByLabel('Debounce (milliseconds)').fill('0');
      await inbox.getByRole('button', { name: 'Subscribe' }).click();
      await inbox.getByText(/^Created and activated whsub_/).waitFor();
      await inbox.getByRole('button', { name: 'Pause' }).click();
      await inbox.getByText('Paused: no wakes until you resume.').waitFor();
      await inbox.getByRole('button', { name: 'Resume' }).click();
      await inbox.getByText(/Resumed: one catch-up wake/).waitFor();
      await page.getByRole('region', { name: 'Signing keys' }).getByText('active: signs new requests').waitFor();
      await assertAccessible(page, 'webhooks');
      await screenshots(page, 'webhooks-endpoints');

      // A Space subscription to message events, from the Space's own page.
      await page.goto('/spaces/garden/webhooks');
      await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
      await page.getByText('No subscriptions yet.').waitFor();
      await page.getByLabel('Events whose type starts with…').check();
      await page.getByLabel('Type prefix').fill('message_');
      await page.getByLabel('Debounce (milliseconds)').fill('0');
      await button(page, 'Subscribe').click();
      await page.getByText(/^Created and activated whsub_/).waitFor();
      const card = page.getByRole('article').filter({ hasText: 'events of types starting with message_' });
      await card.getByText('active', { exact: true }).first().waitFor();

      await api('POST', '/v0/spaces/garden/channels/beds/messages', ada.session, { body: 'The tulips are up.' });
      await card.getByText('Delivery history').click();
      const delivery = card.getByRole('row').filter({ hasText: /whd_/ });
      // Three attempts answered 500: the wake is dead, and may be replayed.
      await delivery.getByText('dead', { exact: true }).waitFor();
      await delivery.getByText('3 attempts, last: 500').waitFor();
      const wakes = receiver.at('/bea-hooks').filter((r) => r.body.type === 'atrium.events.available');
      assert.equal(wakes.length, 3);
      assert.ok(wakes.every((w) => w.signatureValid && w.body.id === wakes[0]!.body.id));

      await delivery.getByRole('button', { name: /^Replay whd_/ }).click();
      await card.getByText(/^Replaying whd_.*same id and body/).waitFor();
      await delivery.getByText('delivered', { exact: true }).waitFor();
      await delivery.getByText('4 attempts, last: 202').waitFor();
      const replayed = receiver.at('/bea-hooks').filter((r) => r.body.type === 'atrium.events.available');
      assert.equal(replayed.length, 4);
      assert.equal(replayed[3]!.body.id, wakes[0]!.body.id);
      assert.equal(await delivery.getByRole('button', { name: /^Replay/ }).count(), 0);
      await assertAccessible(page, 'Space webhooks');
      await screenshots(page, 'webhooks-space');

      // Deleting asks first, then says so where focus lands.
      await page.goto('/webhooks');
      const inboxAgain = page.getByRole('region', { name: 'Inbox subscriptions' });
      await inboxAgain.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
      await inboxAgain.getByText(/^Deleted whsub_/).waitFor();
      await inboxAgain.getByText('No subscriptions yet.').waitFor();
      assert.match(await focused(page), /^p:Deleted whsub_/);
    });

    it('lets an Owner approve one exact request, and lists it from the feed', async () => {
      const page = await app.pages.open({ session: ada.session });
      await page.goto('/spaces/garden/approvals');
      await page.getByRole('heading', { level: 1, name: 'Approvals' }).waitFor();
      await page.getByText('No approvals yet.').waitFor();
      // Only the connection that admits a human is listed to ada.
      const connections = page.getByRole('region', { name: 'Connections' });
      await connections.getByRole('rowheader', { name: 'notes' }).waitFor();
      assert.equal(await connections.getByRole('rowheader', { name: 'weather' }).count(), 0);

      await page.getByLabel('Connection', { exact: true }).fill('weather');
      await page.getByLabel('Member', { exact: true }).fill('scout');
      await page.getByLabel('Run id').fill('run-report-1');
      await page.getByLabel('Purpose').fill('Send the weekly frost report');
      await page.getByLabel('Method').selectOption('POST');
      await page.getByLabel('Exact URL').fill('https://api.weather.example/v1/reports?city=oslo');
      await page.getByLabel('Headers (optional)').fill('Content-Type: application/json');
      await page.getByLabel('Body (optional)').fill('{"frost": true}');
      await page.getByLabel('Why you approve it').fill('The frost report is due today.');
      await button(page, 'Approve').click();
      await page.getByRole('status').getByText(/^Approved capr_/).waitFor();

      const approvals = page.getByRole('region', { name: 'Approvals in this Space' });
      const row = approvals.getByRole('row').filter({ hasText: 'run-report-1' });
      await row.getByText('POST https://api.weather.example/v1/reports?city=oslo').waitFor();
      await row.getByText('Send the weekly frost report').waitFor();
      await row.getByText('issued').waitFor();
      assert.match(await row.innerText(), /@scout[\s\S]*@ada/);
      // The form is ready for the next approval: a fresh run id, and the request fields cleared.
      assert.notEqual(await page.getByLabel('Run id').inputValue(), 'run-report-1');
      assert.equal(await page.getByLabel('Exact URL').inputValue(), '');
      await assertAccessible(page, 'approvals');
      await screenshots(page, 'webhooks-approvals');

      // Another tab lists it from the server as approved: URL, purpose and header names, never the reason or a header value.
      const fresh = await app.pages.open({ session: ada.session });
      await fresh.goto('/spaces/garden/approvals');
      const listed = fresh.getByRole('region', { name: 'Approvals in this Space' }).getByRole('row').filter({ hasText: 'run-report-1' });
      await listed.getByText('POST https://api.weather.example/v1/reports?city=oslo').waitFor();
      await listed.getByText('Send the weekly frost report').waitFor();
      await listed.getByText('headers: content-type').waitFor();
      assert.doesNotMatch(await listed.innerText(), /frost report is due|application\/json/);

      // A plain member is told the page is for Owners and Hosts.
      const member = await app.pages.open({ session: bea.session });
      await member.goto('/spaces/garden/approvals');
      await member.getByText('Only Owners and Hosts of this Space approve external requests.').waitFor();
    });
  });
}
