import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { backends, startServer, type TestServer } from './support/server.js';

/**
 * What one client may hold of the server (docs/http.md): request and header
 * deadlines, and connection caps. A client that announces a large body and
 * trickles it is answered 408 and disconnected at the deadline while everyone
 * else is served; errors Node meets before Fastify leave as `{detail}` too.
 */

interface RawAnswer {
  /** Everything the server sent before it closed the connection. */
  text: string;
  status: number | undefined;
  body: unknown;
}

/** Opens a raw connection (from `localAddress`, a loopback address of its own, when given). */
function open(server: TestServer, localAddress?: string): Promise<Socket> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: Number(port), ...(localAddress ? { localAddress } : {}) });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Resolves with what the server sent once it closes the connection. */
function answerOf(socket: Socket): Promise<RawAnswer> {
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  // Writes after the server hung up fail; that is the point.
  socket.on('error', () => {});
  return new Promise((resolve) =>
    socket.once('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
      const body = text.includes('\r\n\r\n') ? text.slice(text.indexOf('\r\n\r\n') + 4) : '';
      resolve({ text, status: status ? Number(status) : undefined, body: body ? JSON.parse(body) : undefined });
    }),
  );
}

/** Writes one byte at a time until the connection closes; never finishes on its own. */
function trickle(socket: Socket, byte = 'a'): void {
  const timer = setInterval(() => {
    if (!socket.destroyed) socket.write(byte);
  }, 50);
  socket.once('close', () => clearInterval(timer));
}

for (const backend of backends()) {
  describe(`Slow and greedy clients (${backend})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startServer(backend, {
        env: {
          ATRIUM_REQUEST_TIMEOUT_MS: '1500',
          ATRIUM_HEADERS_TIMEOUT_MS: '1000',
          ATRIUM_MAX_CONNECTIONS_PER_ADDRESS: '12',
        },
      });
      await server.human('innocent');
    });
    after(() => server.stop());

    it('serves others while slow bodies trickle in, then answers each 408 and disconnects it', async () => {
      const slow = await Promise.all(Array.from({ length: 8 }, () => open(server, '127.0.0.2')));
      const answers = slow.map((socket) => {
        const answer = answerOf(socket);
        socket.write(
          'POST /v0/sign-in/email HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 2000000\r\n\r\n{"email":"',
        );
        trickle(socket);
        return answer;
      });
      let slowClosed = 0;
      for (const answer of answers) void answer.then(() => (slowClosed += 1));

      const signIn = await server.request('POST', '/v0/sign-in/email', { body: { email: 'innocent@example.test' } });
      assert.equal(signIn.status, 202);
      assert.equal((await server.request('GET', '/v0/spaces')).status, 200);
      assert.equal(slowClosed, 0, 'the innocent requests were answered while every slow one was still open');

      for (const answer of await Promise.all(answers)) {
        assert.equal(answer.status, 408, answer.text);
        assert.match(answer.text, /\r\natrium-error: request_timeout\r\n/);
        assert.deepEqual(Object.keys(answer.body as object), ['detail']);
      }
    });

    it('disconnects a client whose headers never finish', async () => {
      const socket = await open(server, '127.0.0.3');
      const answer = answerOf(socket);
      socket.write('GET /v0/spaces HTTP/1.1\r\nhost: 127.0.0.1\r\nx-slow: ');
      trickle(socket);
      assert.equal((await answer).status, 408);
    });

    it('refuses connections beyond the per-address cap and serves other addresses', async () => {
      const held = await Promise.all(Array.from({ length: 12 }, () => open(server, '127.0.0.4')));
      const extra = await open(server, '127.0.0.4');
      const refused = await answerOf(extra);
      assert.equal(refused.text, '', 'closed without an answer');
      // Other peers are not affected, and the held connections still work.
      assert.equal((await server.request('GET', '/v0/spaces')).status, 200);
      const one = held[0]!;
      const served = answerOf(one);
      one.write('GET /v0/spaces HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n');
      assert.equal((await served).status, 200);
      for (const socket of held) socket.destroy();
    });

    it('answers oversized headers 431, a malformed chunked body and a control character in a header 400, all as {detail} with their code', async () => {
      const big = await open(server);
      const bigAnswer = answerOf(big);
      big.write(`GET /v0/spaces HTTP/1.1\r\nhost: 127.0.0.1\r\nx-big: ${'a'.repeat(20000)}\r\n\r\n`);
      const tooLarge = await bigAnswer;
      assert.equal(tooLarge.status, 431);
      assert.match(tooLarge.text, /content-type: application\/json/);
      assert.match(tooLarge.text, /\r\natrium-error: headers_too_large\r\n/);
      assert.deepEqual(Object.keys(tooLarge.body as object), ['detail']);

      const chunked = await open(server);
      const chunkedAnswer = answerOf(chunked);
      chunked.write(
        'POST /v0/sign-in/email HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
      );
      const bad = await chunkedAnswer;
      assert.equal(bad.status, 400, bad.text);
      assert.match(bad.text, /\r\natrium-error: http_malformed\r\n/);
      assert.deepEqual(Object.keys(bad.body as object), ['detail']);

      const control = await open(server);
      const controlAnswer = answerOf(control);
      control.write('GET /v0/spaces HTTP/1.1\r\nhost: 127.0.0.1\r\nx-note: a\x0bb\r\n\r\n');
      const refused = await controlAnswer;
      assert.equal(refused.status, 400, refused.text);
      assert.match(refused.text, /\r\natrium-error: http_malformed\r\n/);
    });
  });
}
