import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isMailbox } from '../src/shared/mailbox.js';
import { assertError } from './support/errors.js';
import { outbox } from './support/mail.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';

/** E-mail addresses are what mail can be sent to: RFC 5321, with UTF-8 as RFC 6531 allows (src/shared/mailbox.ts). */
describe('isMailbox', () => {
  it('accepts local hosts and internationalised addresses, refuses malformed ones', () => {
    for (const ok of ['ops@localhost', 'a.b+c@example.com', 'josé@exämple.org', '用户@例子.广告', 'a@xn--bcher-kva.example']) {
      assert.equal(isMailbox(ok), true, ok);
    }
    for (const bad of ['', '@x.org', 'a@', 'a..b@x.org', '.a@x.org', 'a b@x.org', 'a@x..org', 'x@-bad.com', 'a@[192.0.2.1]', 'a@x.org\u200b', `${'a'.repeat(65)}@x.org`]) {
      assert.equal(isMailbox(bad), false, JSON.stringify(bad));
    }
  });
});

for (const backend of backends()) {
  describe(`E-mail addresses over HTTP (${backend})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startServer(backend);
    });
    after(() => server.stop());

    it('adds humans at ops@localhost and at an internationalised address, and mails them codes', async () => {
      const mail = outbox(server);
      for (const [handle, email] of [
        ['ops', 'ops@localhost'],
        ['jose', 'josé@exämple.org'],
      ] as const) {
        const added = await server.request('POST', '/v0/humans', { token: STEWARD_KEY, body: { handle, email } });
        assert.equal(added.status, 201, added.body?.detail);
        assert.equal(added.body.email, email);
        assert.equal((await server.request('POST', '/v0/sign-in/email', { body: { email } })).status, 202);
      }
      // The mail goes out with the domain in its ASCII (IDNA) form, as SMTP carries it.
      assert.deepEqual((await mail()).map((m) => m.to).sort(), ['josé@xn--exmple-cua.org', 'ops@localhost']);
      const refused = await server.request('POST', '/v0/humans', { token: STEWARD_KEY, body: { handle: 'nope', email: 'a..b@x.org' } });
      assertError(refused, 'validation_failed');
      // The detail names the field at fault, and the format it must have.
      assert.match(refused.body.detail, /email must match format "idn-email"/);
    });
  });
}
