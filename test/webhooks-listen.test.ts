import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { newId } from '../src/shared/ids.js';
import { signatureHeader } from '../src/webhooks/signing-keys.js';
import { assertRefusal, CliRunner, type CliProcess, type CliResult } from './support/cli.js';
import { type ContractEvent } from './support/events.js';
import { backends, freePort, startServer, STEWARD_KEY, type TestServer } from './support/server.js';

const SUBSCRIPTION = 'whsub_abcdefghijklmnopqrstuvwxyz';

interface State {
  host: string;
  subscription: string;
  feed: unknown;
  cursor: number | null;
  watermark: number | null;
  seen: string[];
}

/**
 * `atrium webhooks listen` as a child process against a real server: it
 * answers the host's own challenge, and deliveries signed with the host's
 * active key (as the host signs them) are verified against the published key
 * set, stored, acknowledged and followed by a feed read with the caller's
 * credential.
 */
for (const backend of backends()) {
  describe(`atrium webhooks listen (${backend})`, () => {
    let server: TestServer;
    let cli: CliRunner;
    let dir: string;
    let ada: { handle: string; session: string };
    let bob: { handle: string; session: string };
    let asAda: Record<string, string>;

    before(async () => {
      server = await startServer(backend, { env: { ATRIUM_EGRESS_ALLOW_CIDRS: '127.0.0.0/8' } });
      cli = new CliRunner(server.url);
      dir = mkdtempSync(join(tmpdir(), 'atrium-listen-'));
      ada = await server.human('ada');
      bob = await server.human('bob');
      asAda = { ATRIUM_TOKEN: ada.session };
      assert.equal((await server.request('POST', '/v0/spaces', { token: ada.session, body: { slug: 'plaza', name: 'plaza' } })).status, 201);
      assert.equal((await server.request('POST', '/v0/spaces/plaza/approve', { token: STEWARD_KEY })).status, 200);
      for (const who of [ada, bob]) assert.ok((await server.request('POST', '/v0/spaces/plaza/join', { token: who.session })).status < 300);
    });
    after(async () => {
      await cli.cleanup();
      rmSync(dir, { recursive: true, force: true });
      await server.stop();
    });

    /** The newest cursor of plaza's feed as Ada reads it (direct messages to her included). */
    const plazaHead = async (): Promise<number> => {
      let since = 0;
      for (;;) {
        const page = await server.request('GET', `/v0/spaces/plaza/events?since=${since}&limit=500`, { token: ada.session });
        assert.equal(page.status, 200);
        if (page.body.events.length === 0) return since;
        since = page.body.cursor;
      }
    };

    const post = async (text: string): Promise<void> => {
      const res = await server.request('POST', '/v0/spaces/plaza/channels/general/messages', { token: bob.session, body: { body: text } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
    };

    const spaceEnvelope = (after: number, through: number, overrides: Record<string, unknown> = {}) => ({
      spec_version: 'atrium.webhooks/1',
      id: newId('whd'),
      type: 'atrium.events.available',
      issuer: server.url,
      subscription_id: SUBSCRIPTION,
      subscription_version: 1,
      space: 'plaza',
      event_range: { after, through },
      created_ts: new Date().toISOString(),
      ...overrides,
    });

    /** POSTs `envelope` to the listener signed as the host signs: its active key, over `<kid>.<timestamp>.<raw body>`. */
    const deliver = async (
      url: string,
      envelope: Record<string, unknown>,
      opts: { timestamp?: number; id?: string; tamper?: (raw: string) => string; headers?: Record<string, string> } = {},
    ): Promise<{ status: number; body: { detail?: string; reason?: string; challenge?: string } }> => {
      const key = await server.app.ctx.webhookKeys.active();
      const raw = JSON.stringify(envelope);
      const timestamp = opts.timestamp ?? Math.floor(Date.now() / 1000);
      const headers = opts.headers ?? {
        'content-type': 'application/json',
        'webhook-id': opts.id ?? String(envelope.id),
        'webhook-key-id': key.kid,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(key, timestamp, raw),
      };
      const res = await fetch(url, { method: 'POST', headers, body: opts.tamper ? opts.tamper(raw) : raw });
      return { status: res.status, body: (await res.json()) as { detail?: string; reason?: string } };
    };

    const listen = async (args: string[], env: Record<string, string> = asAda): Promise<{ proc: CliProcess; url: string }> => {
      const proc = cli.spawn(['webhooks', 'listen', '--subscription', SUBSCRIPTION, '--port', '0', ...args], env);
      const [, url] = await proc.waitForStderr(/^Listening on (http:\/\/127\.0\.0\.1:\d+\/\S*) for deliveries of whsub_\w+ from /m);
      return { proc, url: url! };
    };

    const stop = async (proc: CliProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<CliResult> => {
      proc.child.kill(signal);
      const result = await proc.exited;
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stderr, /^Stopped\.$/m);
      return result;
    };

    const jsonLines = (stdout: string): ContractEvent[] =>
      stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as ContractEvent);

    const readState = (path: string): State => JSON.parse(readFileSync(path, 'utf8')) as State;

    it("answers the host's signed challenge for the endpoint it serves only, so another member cannot claim its URL", async () => {
      // The endpoints are registered first: the listener is started knowing which one it serves.
      const port = await freePort();
      const local = `http://127.0.0.1:${port}/atrium-hook`;
      const add = async (env: Record<string, string>): Promise<string> => {
        const added = await cli.run(['webhooks', 'endpoints', 'add', local, '--json'], env);
        assert.equal(added.code, 0, added.stderr);
        return (JSON.parse(added.stdout) as { id: string }).id;
      };
      const mine = await add(asAda);
      const theirs = await add({ ATRIUM_TOKEN: bob.session });
      const { proc, url } = await listen(['--port', String(port), '--url', 'https://hooks.example.org/atrium-hook', '--endpoint', mine]);
      assert.equal(url, local);
      await proc.waitForStderr(new RegExp(`^Answering challenges for ${mine} only$`, 'm'));

      // Bob registered the same URL: its challenge names his endpoint, and is not echoed.
      const claimed = await cli.run(['webhooks', 'endpoints', 'verify', theirs], { ATRIUM_TOKEN: bob.session });
      assert.equal(assertRefusal(claimed, 422), 'challenge_failed');
      await proc.waitForStderr(new RegExp(`^Refused a request \\(wrong_endpoint\\): the challenge is for endpoint ${theirs}, not ${mine}$`, 'm'));
      assert.equal((await server.request('GET', `/v0/webhook-endpoints/${theirs}`, { token: bob.session })).body.status, 'unverified');

      const verified = await cli.run(['webhooks', 'endpoints', 'verify', mine], asAda);
      assert.equal(verified.code, 0, verified.stderr);
      assert.equal(verified.stdout, `${mine} is active: ${url} answered the challenge.\n`);
      await proc.waitForStderr(new RegExp(`^Answered the challenge whd_[a-z2-7]{26} for ${mine}\\.$`, 'm'));

      // Only the registered path is answered, and only POST.
      const elsewhere = await fetch(url.replace(/\/atrium-hook$/, '/other'), { method: 'POST', body: '{}' });
      assert.equal(elsewhere.status, 404);
      const got = await fetch(url);
      assert.equal(got.status, 405);
      assert.equal(got.headers.get('allow'), 'POST');

      const { stdout } = await stop(proc, 'SIGINT');
      assert.equal(stdout, '');
    });

    it('listens on the port its --url names, unless --port says otherwise', async () => {
      const port = await freePort();
      const proc = cli.spawn(['webhooks', 'listen', '--subscription', SUBSCRIPTION, '--url', `http://127.0.0.1:${port}/hooks`], asAda);
      const [, url] = await proc.waitForStderr(/^Listening on (http:\/\/127\.0\.0\.1:\d+\/\S*) for deliveries of /m);
      assert.equal(url, `http://127.0.0.1:${port}/hooks`);
      await stop(proc);
    });

    it('answers no challenge at all when started without --endpoint, and says so', async () => {
      const { proc, url } = await listen([]);
      const endpoint = newId('whep');
      const challenge = { id: newId('whd'), type: 'atrium.webhook.challenge', issuer: server.url, challenge: `${endpoint}.${'x'.repeat(32)}`, created_ts: new Date().toISOString(), spec_version: 'atrium.webhooks/1' };
      const res = await deliver(url, challenge);
      assert.deepEqual([res.status, res.body.reason, res.body.challenge], [400, 'wrong_endpoint', undefined]);
      await proc.waitForStderr(/^Answering no challenges: name the endpoint to verify with --endpoint$/m);
      await proc.waitForStderr(new RegExp(`^Refused the challenge ${challenge.id} for ${endpoint}: no --endpoint given, so no challenge is answered\\.$`, 'm'));
      const bad = await cli.run(['webhooks', 'listen', '--subscription', SUBSCRIPTION, '--endpoint', 'ep_1', '--port', '0'], asAda);
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /expected an endpoint id like whep_/);
      await stop(proc);
    });

    it('stores a verified delivery before acknowledging it, reads the Space feed from its checkpoint, and handles a retry once', async () => {
      const statePath = join(dir, 'space.json');
      const start = await plazaHead();
      await post('first from bob');
      const through1 = await plazaHead();
      const { proc, url } = await listen(['--json', '--state', statePath]);

      const first = spaceEnvelope(start, through1);
      const accepted = await deliver(url, first);
      assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
      // On disk by the time the host hears 202.
      const stored = readState(statePath);
      assert.deepEqual([stored.host, stored.subscription, stored.seen, stored.watermark], [server.url, SUBSCRIPTION, [first.id], through1]);
      assert.deepEqual(stored.feed, { space: 'plaza' });
      await proc.waitForStdout(/first from bob/);

      // A retry: the same id and body, signed afresh.
      const retried = await deliver(url, first, { timestamp: Math.floor(Date.now() / 1000) + 1 });
      assert.equal(retried.status, 202);
      await proc.waitForStderr(new RegExp(`^Delivery ${first.id} again: already acknowledged\\.$`, 'm'));

      await post('second from bob');
      const through2 = await plazaHead();
      const second = spaceEnvelope(through1, through2);
      assert.equal((await deliver(url, second)).status, 202);
      await proc.waitForStdout(/second from bob/);

      const { stdout } = await stop(proc);
      const events = jsonLines(stdout);
      assert.deepEqual(
        events.filter((e) => e.type === 'message_posted').map((e) => [e.space, e.actor, e.payload.body]),
        [
          ['plaza', 'bob', 'first from bob'],
          ['plaza', 'bob', 'second from bob'],
        ],
      );
      const cursors = events.map((e) => e.cursor);
      assert.deepEqual(cursors, [...new Set(cursors)].sort((a, b) => a - b), 'each event once, oldest first');
      assert.ok(cursors.every((c) => c > start && c <= through2));
      const state = readState(statePath);
      assert.deepEqual([state.cursor, state.watermark, state.seen], [through2, through2, [first.id, second.id]]);
    });

    it('resumes from its checkpoint after a restart, and reads at start what it acknowledged but had not read', async () => {
      const statePath = join(dir, 'resume.json');
      const start = await plazaHead();
      await post('before the restart');
      const through1 = await plazaHead();
      const firstRun = await listen(['--json', '--state', statePath]);
      assert.equal((await deliver(firstRun.url, spaceEnvelope(start, through1))).status, 202);
      await firstRun.proc.waitForStdout(/before the restart/);
      await stop(firstRun.proc);

      await post('after the restart');
      const through2 = await plazaHead();
      const secondRun = await listen(['--json', '--state', statePath]);
      assert.equal((await deliver(secondRun.url, spaceEnvelope(through1, through2))).status, 202);
      await secondRun.proc.waitForStdout(/after the restart/);
      const second = await stop(secondRun.proc);
      assert.doesNotMatch(second.stdout, /before the restart/);
      assert.ok(jsonLines(second.stdout).every((e) => e.cursor > through1));

      // As if a delivery up to through3 had been acknowledged and the listener stopped before reading.
      await post('acknowledged, then stopped');
      const through3 = await plazaHead();
      writeFileSync(statePath, JSON.stringify({ ...readState(statePath), watermark: through3 }));
      const thirdRun = await listen(['--json', '--state', statePath]);
      await thirdRun.proc.waitForStdout(/acknowledged, then stopped/);
      const third = await stop(thirdRun.proc);
      assert.deepEqual(
        jsonLines(third.stdout).map((e) => e.payload.body),
        ['acknowledged, then stopped'],
      );
      assert.equal(readState(statePath).cursor, through3);
    });

    it('refuses what does not verify, with a reason, and stores and prints nothing', async () => {
      const statePath = join(dir, 'refusals.json');
      const head = await plazaHead();
      const { proc, url } = await listen(['--json', '--state', statePath]);
      const refused = async (res: Promise<{ status: number; body: { reason?: string } }>, status: number, reason: string) => {
        const { status: got, body } = await res;
        assert.deepEqual([got, body.reason], [status, reason]);
      };

      await refused(deliver(url, spaceEnvelope(0, head), { tamper: (raw) => raw.replace('"after":0', '"after":1') }), 401, 'bad_signature');
      await refused(deliver(url, spaceEnvelope(0, head), { timestamp: Math.floor(Date.now() / 1000) - 600 }), 401, 'stale_timestamp');
      await refused(deliver(url, spaceEnvelope(0, head, { issuer: 'https://elsewhere.example.org' })), 401, 'wrong_issuer');
      await refused(deliver(url, spaceEnvelope(0, head, { subscription_id: 'whsub_zzzzzzzzzzzzzzzzzzzzzzzzzz' })), 400, 'wrong_subscription');
      await refused(deliver(url, spaceEnvelope(0, head), { id: newId('whd') }), 400, 'id_mismatch');
      await refused(deliver(url, spaceEnvelope(0, head, { type: 'atrium.other' })), 400, 'wrong_type');
      await refused(deliver(url, spaceEnvelope(0, head), { headers: { 'content-type': 'application/json' } }), 400, 'malformed');

      // Signed by a key the host never published: fetching the set again (within its cooldown) may be worth a retry.
      const { publicKey, privateKey } = generateKeyPairSync('ed25519');
      const kid = createHash('sha256').update(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x: publicKey.export({ format: 'jwk' }).x })).digest('base64url');
      const envelope = spaceEnvelope(0, head);
      const raw = JSON.stringify(envelope);
      const ts = Math.floor(Date.now() / 1000);
      const forged = await fetch(url, {
        method: 'POST',
        headers: {
          'webhook-id': envelope.id,
          'webhook-key-id': kid,
          'webhook-timestamp': String(ts),
          'webhook-signature': `v1=${sign(null, Buffer.from(`${kid}.${ts}.${raw}`), privateKey).toString('base64url')}`,
        },
        body: raw,
      });
      assert.equal(forged.status, 503);
      assert.equal(((await forged.json()) as { reason: string }).reason, 'unknown_key');

      const { stdout, stderr } = await stop(proc);
      assert.equal(stdout, '');
      assert.equal(stderr.match(/^Refused a request/gm)?.length, 8);
      assert.equal(existsSync(statePath), false, 'nothing was acknowledged, so nothing was stored');
    });

    it('answers 503 and acknowledges nothing while it cannot store a delivery; the retry then goes through', async () => {
      const stateDir = join(dir, 'unwritable');
      mkdirSync(stateDir);
      const statePath = join(stateDir, 'state.json');
      const start = await plazaHead();
      await post('stored on the second try');
      const through = await plazaHead();
      const { proc, url } = await listen(['--json', '--state', statePath]);

      // The state's directory becomes a plain file: no write can succeed (whatever the user's privileges).
      rmSync(stateDir, { recursive: true });
      writeFileSync(stateDir, '');
      const envelope = spaceEnvelope(start, through);
      const failed = await deliver(url, envelope);
      assert.equal(failed.status, 503);
      await proc.waitForStderr(new RegExp(`^Could not store delivery ${envelope.id}: `, 'm'));

      rmSync(stateDir);
      mkdirSync(stateDir);
      assert.equal((await deliver(url, envelope)).status, 202);
      await proc.waitForStdout(/stored on the second try/);
      const { stdout, stderr } = await stop(proc);
      assert.doesNotMatch(stderr, /already acknowledged/);
      assert.equal(stdout.match(/stored on the second try/g)?.length, 1);
      assert.deepEqual(readState(statePath).seen, [envelope.id]);
    });

    it("reads the caller's inbox for an inbox delivery, and prints a line per event", async () => {
      const start = await plazaHead();
      const sent = await server.request('POST', '/v0/spaces/plaza/direct-messages', { token: bob.session, body: { to: 'ada', body: 'psst, ada' } });
      assert.equal(sent.status, 201);
      const throughDirect = await plazaHead();
      const mention = await server.request('POST', '/v0/spaces/plaza/channels/general/messages', { token: ada.session, body: { body: '@bob look here' } });
      assert.equal(mention.status, 201);
      const throughMention = await plazaHead();
      const inboxEnvelope = (after: number, through: number) => {
        const { space: _space, ...inbox } = spaceEnvelope(after, through, { type: 'atrium.inbox_events.available' });
        return inbox;
      };

      const adasState = join(dir, 'inbox-ada.json');
      const asAdaListener = await listen(['--state', adasState]);
      assert.equal((await deliver(asAdaListener.url, inboxEnvelope(start, throughDirect))).status, 202);
      const [line] = await asAdaListener.proc.waitForStdout(/^.*psst, ada$/m);
      assert.match(line!, new RegExp(`^${throughDirect}\\s+\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\s+plaza\\s+message_posted\\s+bob\\s+psst, ada$`));
      await stop(asAdaListener.proc);
      assert.deepEqual(readState(adasState).feed, { inbox: true });
      assert.equal(readState(adasState).cursor, throughDirect);

      // Bob's credential reads Bob's inbox: his mention, not the direct message he sent Ada.
      const asBob = await listen(['--json', '--state', join(dir, 'inbox-bob.json')], { ATRIUM_TOKEN: bob.session });
      assert.equal((await deliver(asBob.url, inboxEnvelope(start, throughMention))).status, 202);
      await asBob.proc.waitForStdout(/@bob look here/);
      const bobs = await stop(asBob.proc);
      assert.deepEqual(
        jsonLines(bobs.stdout).map((e) => e.payload.body),
        ['@bob look here'],
      );
    });

    it("prints what the host's own wakes announce: a Space subscription and an inbox subscription, end to end", async () => {
      /** An endpoint at a port chosen beforehand (the listener needs the subscription's id to start), and a subscription on it. */
      const subscribe = async (collection: string) => {
        const url = `http://127.0.0.1:${await freePort()}/atrium`;
        const added = await cli.run(['webhooks', 'endpoints', 'add', url, '--json'], asAda);
        assert.equal(added.code, 0, added.stderr);
        const endpoint = (JSON.parse(added.stdout) as { id: string }).id;
        const created = await server.request('POST', collection, { token: ada.session, body: { endpoint_id: endpoint, debounce_ms: 0 } });
        assert.equal(created.status, 201, created.body?.detail);
        const subscription = created.body.id as string;
        const port = new URL(url).port;
        const proc = cli.spawn(['webhooks', 'listen', '--subscription', subscription, '--endpoint', endpoint, '--port', port, '--url', url, '--json', '--state', join(dir, `${subscription}.json`)], asAda);
        await proc.waitForStderr(new RegExp(`^Listening on http://127\\.0\\.0\\.1:${port}/atrium for deliveries of ${subscription}`, 'm'));
        const verified = await cli.run(['webhooks', 'endpoints', 'verify', endpoint], asAda);
        assert.equal(verified.code, 0, verified.stderr);
        const activated = await server.request('POST', `${collection}/${subscription}/activate`, { token: ada.session });
        assert.equal(activated.status, 200, activated.body?.detail);
        return { proc, subscription };
      };

      const space = await subscribe('/v0/spaces/plaza/webhook-subscriptions');
      await post('wake the listener');
      await space.proc.waitForStdout(/wake the listener/);

      const inbox = await subscribe('/v0/me/inbox-subscriptions');
      const sent = await server.request('POST', '/v0/spaces/plaza/direct-messages', { token: bob.session, body: { to: 'ada', body: 'for your inbox' } });
      assert.equal(sent.status, 201);
      await inbox.proc.waitForStdout(/for your inbox/);

      for (const { proc, subscription } of [space, inbox]) {
        const { stdout, stderr } = await stop(proc);
        assert.match(stderr, /^Delivery whd_[a-z2-7]{26}: events after \d+ through \d+/m);
        const state = readState(join(dir, `${subscription}.json`));
        assert.ok(state.seen.length >= 1 && state.watermark !== null && state.cursor !== null);
        const events = jsonLines(stdout);
        assert.equal(state.cursor, events.at(-1)!.cursor, 'the checkpoint is the last event printed');
      }
    });

    it('refuses to start on the state of another subscription', async () => {
      const statePath = join(dir, 'other.json');
      writeFileSync(statePath, JSON.stringify({ host: server.url, subscription: SUBSCRIPTION, feed: null, cursor: null, watermark: null, seen: [] }));
      const result = await cli.run(['webhooks', 'listen', '--subscription', 'whsub_zzzzzzzzzzzzzzzzzzzzzzzzzz', '--port', '0', '--state', statePath], asAda);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /is the state of whsub_abcdefghijklmnopqrstuvwxyz on http:\/\/127\.0\.0\.1:\d+, not of whsub_zzzzzzzzzzzzzzzzzzzzzzzzzz/);
      const bad = await cli.run(['webhooks', 'listen', '--subscription', 'sub_1', '--port', '0'], asAda);
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /expected a subscription id like whsub_/);
    });
  });
}
