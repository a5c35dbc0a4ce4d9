import assert from 'node:assert/strict';
import { createPublicKey, verify } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createContext } from '../src/app.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { signatureHeader, type PublishedKey } from '../src/webhooks/signing-keys.js';
import { CliRunner } from './support/cli.js';
import { TestClock } from './support/clock.js';
import { backends, startServer, type TestServer, withSearchPath } from './support/server.js';

const DAY = 86_400_000;

for (const backend of backends()) {
  describe(`webhook signing keys (${backend})`, () => {
    let server: TestServer;
    let cli: CliRunner;
    // Near real time: the CLI that rotates runs on the system clock.
    const clock = new TestClock(Date.now());
    before(async () => {
      server = await startServer(backend, { clock });
      cli = new CliRunner(server.url);
    });
    after(async () => {
      await cli.cleanup();
      await server.stop();
    });

    const keySet = async () => {
      const res = await server.request('GET', '/v0/webhook-signing-keys');
      assert.equal(res.status, 200);
      return (res.body as { keys: PublishedKey[] }).keys;
    };
    /** The CLI on this server's database and data directory, as an operator runs it on the host. */
    const rotate = () =>
      cli.run(['webhooks', 'rotate-key'], {
        ATRIUM_DATABASE_URL: server.database.schema ? withSearchPath(server.database.url, server.database.schema) : server.database.url,
        ATRIUM_DATA_DIR: server.app.ctx.config.dataDir,
        ATRIUM_LOG_LEVEL: 'warn',
      });

    it('publishes one active Ed25519 key, public members only, that verifies what the service signs', async () => {
      const keys = await keySet();
      assert.equal(keys.length, 1);
      const [key] = keys;
      assert.deepEqual(Object.keys(key!).sort(), ['alg', 'created_ts', 'crv', 'kid', 'kty', 'status', 'use', 'x']);
      assert.deepEqual([key!.kty, key!.crv, key!.alg, key!.use, key!.status], ['OKP', 'Ed25519', 'EdDSA', 'sig', 'active']);
      assert.equal(Buffer.from(key!.x, 'base64url').length, 32);

      const signing = await server.app.ctx.webhookKeys.active();
      assert.equal(signing.kid, key!.kid);
      const body = '{"id":"whd_example","type":"atrium.events.available"}';
      const header = signatureHeader(signing, 1767225600, body);
      assert.match(header, /^v1=[A-Za-z0-9_-]{86}$/);
      // Checked with node:crypto and the published JWK alone, as a receiver would.
      const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: key!.x }, format: 'jwk' });
      const signed = Buffer.from(`${key!.kid}.1767225600.${body}`);
      assert.ok(verify(null, signed, publicKey, Buffer.from(header.slice(3), 'base64url')));
      assert.ok(!verify(null, Buffer.from(`${key!.kid}.1767225601.${body}`), publicKey, Buffer.from(header.slice(3), 'base64url')));
    });

    it('serves the key set as application/jwk-set+json, as the contract declares', async () => {
      const res = await server.request('GET', '/v0/webhook-signing-keys');
      assert.match(res.headers.get('content-type') ?? '', /^application\/jwk-set\+json(;|$)/);
      const contract = (await server.request('GET', '/v0/openapi.json')).body;
      const answer = contract.paths['/v0/webhook-signing-keys'].get.responses['200'];
      assert.deepEqual(Object.keys(answer.content), ['application/jwk-set+json']);
      assert.equal(answer.content['application/jwk-set+json'].schema.$ref, '#/components/schemas/WebhookSigningKeySet');
    });

    it('keeps private keys sealed at rest, under a key that is not in the database', async () => {
      const row = await server.app.ctx.db.kysely.selectFrom('webhook_signing_keys').selectAll().executeTakeFirstOrThrow();
      const { privateKey } = await server.app.ctx.webhookKeys.active();
      const d = Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url');
      const der = privateKey.export({ format: 'der', type: 'pkcs8' });
      const stored = Buffer.from(row.sealed_private, 'base64url');
      assert.equal(stored.includes(d), false);
      assert.equal(stored.includes(der), false);
      assert.equal(row.sealed_private.includes(d.toString('base64url')), false);
      const file = join(server.app.ctx.config.dataDir, 'webhook-sealing.key');
      assert.equal(statSync(file).mode & 0o777, 0o600);
    });

    it('rotates from the CLI: the new key signs on every node, the old one stays listed as retiring for 7 days', async () => {
      const before = (await keySet())[0]!;
      const rotated = await rotate();
      assert.equal(rotated.code, 0, rotated.stderr);
      const [, active] = /New active signing key: (\S+)/.exec(rotated.stdout) ?? [];
      assert.match(rotated.stdout, new RegExp(`Retiring \\(still published for 7 days\\): ${before.kid}`));

      const keys = await keySet();
      assert.deepEqual(
        keys.map((k) => [k.kid, k.status]),
        [
          [active, 'active'],
          [before.kid, 'retiring'],
        ],
      );
      // This server process did not rotate, yet signs with the new key at once.
      assert.equal((await server.app.ctx.webhookKeys.active()).kid, active);

      clock.advance(7 * DAY - 60_000);
      assert.equal((await keySet()).length, 2);
      clock.advance(2 * 3_600_000);
      assert.deepEqual(
        (await keySet()).map((k) => k.kid),
        [active],
      );
    });

    it('refuses to start a node whose sealing key differs, saying what to do', async () => {
      const config = loadConfig({
        ATRIUM_DATABASE_URL: server.database.url,
        ATRIUM_DATA_DIR: server.app.ctx.config.dataDir,
        ATRIUM_WEBHOOK_SEALING_KEY: Buffer.alloc(32, 7).toString('base64url'),
      });
      await assert.rejects(
        createContext(config, { log: createLogger('silent'), ...(server.database.schema ? { databaseSchema: server.database.schema } : {}) }),
        /different webhook sealing key[\s\S]*ATRIUM_WEBHOOK_SEALING_KEY/,
      );
      assert.throws(() => loadConfig({ ATRIUM_WEBHOOK_SEALING_KEY: 'short' }), ConfigError);
    });
  });
}
