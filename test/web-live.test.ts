import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { backends } from './support/server.js';
import { activeSpace } from './support/spaces.js';
import { startWebApp, type WebApp } from './support/web-app.js';

// The web app's live views when the server holds fewer of its long polls than
// it asks for (docs/http.md, "Sharing the server fairly"): a browser follows a
// Space's feed and the inbox, two long polls, and here its address may hold
// one. The other is answered at once with `Retry-After`, which the app honours
// instead of asking again at once, and the page stays live.

for (const backend of backends()) {
  describe(`web app live views over their share of long polls (${backend})`, () => {
    let app: WebApp;
    let ada: { handle: string; session: string };
    let bob: { handle: string; session: string };

    before(async () => {
      app = await startWebApp(backend, { ATRIUM_MAX_LONG_POLLS_PER_ADDRESS: '1' });
      ada = await app.server.human('ada');
      bob = await app.server.human('bob');
      await activeSpace(app.server, ada.session, 'studio', 'open');
      for (const who of [ada, bob]) assert.equal((await app.server.request('POST', '/v0/spaces/studio/join', { token: who.session })).status, 200);
    });
    afterEach(() => app.pages.finish());
    after(() => app?.stop());

    it('keeps a channel live, polling no sooner than the server asks', async () => {
      const page = await app.pages.open({ session: bob.session });
      const feed = /\/v0\/(spaces\/studio\/events|me\/inbox-events)\?/;
      const toldToWait = page.waitForResponse((response) => feed.test(response.url()) && response.headers()['retry-after'] === '5');
      await page.goto('/spaces/studio/channels/general');
      await page.getByRole('heading', { level: 1, name: '#general', exact: true }).waitFor();
      const answer = await toldToWait;
      const told = Date.now();
      // The same feed is read again only once the five seconds are up (at once, before the app honoured it).
      const path = new URL(answer.url()).pathname;
      await page.waitForRequest((request) => new URL(request.url()).pathname === path);
      const waited = Date.now() - told;
      assert.ok(waited >= 4000, `the feed was read again ${waited} ms after the server asked for 5 s`);

      const posted = await app.server.request('POST', '/v0/spaces/studio/channels/general/messages', {
        token: ada.session,
        body: { body: 'still live with one long poll' },
      });
      assert.equal(posted.status, 201);
      await page.getByRole('log', { name: 'Messages in #general' }).getByText('still live with one long poll').waitFor();
    });
  });
}
