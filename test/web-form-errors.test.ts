import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { formErrorText, type FormWords, type Refusal } from '../web/src/app/form-errors.js';
import { backends } from './support/server.js';
import { activeSpace } from './support/spaces.js';
import { assertAccessible, screenshots, startWebApp, type WebApp } from './support/web-app.js';

// The web app says a refusal in the form's own words (web/src/app/form-errors.ts):
// it reads the server's details, so this test feeds it the details a real
// server sends, and fails when the two drift apart; then people meet them in
// the browser, in forms that send what the server refuses.

for (const backend of backends()) {
  describe(`a form's refusals in its own words (${backend})`, () => {
    let app: WebApp;
    let ada: { handle: string; session: string };

    before(async () => {
      app = await startWebApp(backend);
      ada = await app.server.human('ada', { role: 'owner' });
      await activeSpace(app.server, ada.session, 'garden');
    });
    afterEach(() => app.pages.finish());
    after(() => app?.stop());

    /** The refusal as the page holds it: status, `Atrium-Error` and detail. */
    const refusal = async (path: string, body: unknown): Promise<Refusal> => {
      const res = await app.server.request('POST', path, { token: ada.session, body });
      assert.ok(res.status >= 400, `${path} should be refused`);
      return { status: res.status, code: res.headers.get('atrium-error') ?? undefined, detail: (res.body as { detail: string }).detail };
    };
    const task: FormWords = { fields: { title: 'Title', body: 'Description' } };

    it("names a field by the form's label, and states the rule as a person would", async () => {
      const long = await refusal('/v0/spaces/garden/tasks', { kind: 'general', title: 'Weed', body: 'x'.repeat(20001) });
      assert.equal(formErrorText(long, task), 'Description must be at most 20000 characters.');
      const blank = await refusal('/v0/spaces/garden/tasks', { kind: 'general', title: '   ' });
      assert.equal(formErrorText(blank, task), 'Title must not be blank.');
      const missing = await refusal('/v0/spaces/garden/tasks', { kind: 'general' });
      assert.equal(formErrorText(missing, task), 'Fill in Title.');
      const short = await refusal('/v0/spaces/garden/review-policy', { review_policy: 'self_attested', reason: 'no' });
      assert.equal(formErrorText(short, { fields: { reason: 'Reason for the change' } }), 'Reason for the change must be at least 3 characters.');
      const url = await refusal('/v0/webhook-endpoints', { url: 'not a url' });
      assert.match(formErrorText(url, { fields: { url: 'Receiver URL' } }), /^Receiver URL: /);
      // A credential refusal starts with its code; the field after it is named by its label.
      const approval = { connection_id: 'conn', member_handle: 'ada', run_id: 'run-1', purpose: 'Fetch the weather', expires_in_seconds: 600, reason: 'for the garden' };
      const unknown = await refusal('/v0/spaces/garden/credential-approvals', { ...approval, request: { method: 'GET', url: 'https://api.example/weather' } });
      assert.equal(formErrorText(unknown, { fields: { connection_id: 'Connection' } }), 'Connection: Space garden has no connection conn.');
    });

    it("says a clash in the form's words, and keeps what it has no words for as the server said it", async () => {
      const clash = await refusal('/v0/spaces', { slug: 'garden', name: 'Another garden' });
      const words: FormWords = {
        fields: { slug: 'Address' },
        refusals: { space_exists: (detail) => `Another Space has the address “${/^slug (\S+) exists$/.exec(detail)?.[1]}”.` },
      };
      assert.equal(formErrorText(clash, words), 'Another Space has the address “garden”.');
      // A field the form does not label, or a code it has no words for: the detail as it came.
      const long = await refusal('/v0/spaces/garden/tasks', { kind: 'general', title: 'Weed', body: 'x'.repeat(20001) });
      assert.equal(formErrorText(long, { fields: {} }), long.detail);
      assert.equal(formErrorText(clash, { fields: { slug: 'Address' } }), clash.detail);
    });

    it("a message too long for the host is refused in the composer's words, and the text stays", async () => {
      await app.server.request('POST', '/v0/spaces/garden/join', { token: ada.session });
      app.pages.expectRefusal(422, /^\/v0\/spaces\/garden\/channels\/general\/messages$/);
      const page = await app.pages.open({ session: ada.session });
      await page.goto('/spaces/garden/channels/general');
      const composer = page.getByLabel('Message #general');
      await composer.fill('x'.repeat(20001));
      await page.getByRole('button', { name: 'Send' }).click();
      await page.getByRole('alert').filter({ hasText: 'Could not send: Message #general must be at most 20000 characters.' }).waitFor();
      assert.equal((await composer.inputValue()).length, 20001);
      assert.equal(await page.getByText(/body\.body|must NOT/).count(), 0);
      await screenshots(page, 'conversation-message-too-long');
    });

    it("a taken address is refused in the proposal form's words", async () => {
      const page = await app.pages.open({ session: ada.session });
      await page.goto('/');
      await page.getByLabel('Address').fill('garden');
      await page.getByLabel('Name').fill('Another garden');
      await page.getByRole('button', { name: 'Propose the Space' }).click();
      await page.getByRole('alert').filter({ hasText: 'Another Space has the address “garden”. Choose another address.' }).waitFor();
      assert.equal(await page.getByLabel('Address').inputValue(), 'garden', 'what was typed stays');
      await assertAccessible(page, 'home with a refused proposal');
      await screenshots(page, 'home-propose-taken-address');
    });
  });
}
