import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { mailSettled } from '../src/mail/delivery.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';

interface Received {
  from: string;
  to: string[];
  raw: string;
}

/** A real SMTP server on loopback that records what it accepts and refuses one address. */
async function startSmtp(refuse: string) {
  const received: Received[] = [];
  const refused: string[] = [];
  const smtp = new SMTPServer({
    // Plain SMTP on loopback: no STARTTLS offered, no AUTH needed.
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    onRcptTo(address, _session, callback) {
      if (address.address === refuse) {
        refused.push(address.address);
        callback(Object.assign(new Error('mailbox unavailable'), { responseCode: 550 }));
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const port = (smtp.server.address() as AddressInfo).port;
  return { port, received, refused, close: () => new Promise<void>((resolve) => smtp.close(resolve)) };
}

/** The code from a received message body (quoted-printable soft breaks undone). */
function codeIn(raw: string): string {
  const text = raw.replace(/\r\n/g, '\n').replace(/=\n/g, '').replace(/=3D/g, '=');
  const code = /\b([BCDFGHJKMNPQRTWXY3467]{4}-[BCDFGHJKMNPQRTWXY3467]{4})\b/.exec(text.slice(text.indexOf('\n\n')))?.[1];
  assert.ok(code, `no code in the message:\n${raw}`);
  return code;
}

for (const backend of backends()) {
  describe(`sign-in over SMTP (${backend})`, () => {
    let smtp: Awaited<ReturnType<typeof startSmtp>>;
    let server: TestServer;
    before(async () => {
      smtp = await startSmtp('bounce@example.test');
      server = await startServer(backend, {
        env: { ATRIUM_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, ATRIUM_MAIL_FROM: 'atrium@atrium.example' },
      });
      for (const handle of ['wanda', 'bounce']) {
        const res = await server.request('POST', '/v0/humans', { token: STEWARD_KEY, body: { handle, email: `${handle}@example.test` } });
        assert.equal(res.status, 201);
      }
    });
    after(async () => {
      await server.stop();
      await smtp.close();
    });

    it('delivers the code through the SMTP server, and the code signs in', async () => {
      const res = await server.request('POST', '/v0/sign-in/email', { body: { email: 'wanda@example.test' } });
      assert.equal(res.status, 202);
      await mailSettled(server.app.ctx.mailer);
      assert.equal(smtp.received.length, 1);
      const [message] = smtp.received;
      assert.equal(message!.from, 'atrium@atrium.example');
      assert.deepEqual(message!.to, ['wanda@example.test']);
      assert.match(message!.raw, /^Subject: Your Atrium sign-in code$/m);

      const signedIn = await server.request('POST', '/v0/sign-in/verify', { body: { email: 'wanda@example.test', code: codeIn(message!.raw) } });
      assert.equal(signedIn.status, 200);
      assert.equal(signedIn.body.member.handle, 'wanda');
      assert.equal(signedIn.body.member.email_verified, true);
    });

    it('answers a refused delivery exactly like an unknown address', async () => {
      const delivered = smtp.received.length;
      const bounced = await server.request('POST', '/v0/sign-in/email', { body: { email: 'bounce@example.test' } });
      const unknown = await server.request('POST', '/v0/sign-in/email', { body: { email: 'stranger@example.test' } });
      await mailSettled(server.app.ctx.mailer);
      assert.equal(bounced.status, 202);
      assert.deepEqual(bounced.body, unknown.body);
      assert.equal(unknown.status, 202);
      assert.deepEqual(smtp.refused, ['bounce@example.test'], 'the server did try to deliver, and was refused');
      assert.equal(smtp.received.length, delivered);
    });
  });

  describe(`sign-in with the SMTP server down (${backend})`, () => {
    let server: TestServer;
    before(async () => {
      // A port that was just free and is now closed: every connection is refused.
      const gone = await startSmtp('none');
      await gone.close();
      server = await startServer(backend, { env: { ATRIUM_SMTP_URL: `smtp://127.0.0.1:${gone.port}` } });
      await server.request('POST', '/v0/humans', { token: STEWARD_KEY, body: { handle: 'yusuf', email: 'yusuf@example.test' } });
    });
    after(() => server.stop());

    it('still answers 202 when the mail cannot leave', async () => {
      const res = await server.request('POST', '/v0/sign-in/email', { body: { email: 'yusuf@example.test' } });
      assert.equal(res.status, 202);
      assert.deepEqual(res.body, { status: 'sent' });
      await mailSettled(server.app.ctx.mailer);
      const codes = await server.app.ctx.db.kysely.selectFrom('sign_in_codes').selectAll().where('email', '=', 'yusuf@example.test').execute();
      assert.equal(codes.length, 1, 'the code was issued; asking again mails a new one');
    });
  });
}
