import assert from 'node:assert/strict';
import { setImmediate as turn } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { components } from '../src/client/openapi.js';
import { assertRefusal, CliRunner, type CliResult } from './support/cli.js';
import { backends, startServer, type TestServer } from './support/server.js';
import { activeSpace } from './support/spaces.js';
import { answerInTurn, WebhookReceiver } from './support/webhook-receiver.js';

type Subscription = components['schemas']['WebhookSubscription'];
type Delivery = components['schemas']['WebhookDelivery'];

const ID = '[a-z2-7]{26}';


/**
 * `atrium webhooks subscriptions …`, `atrium webhooks deliveries` and
 * `atrium webhooks replay`, run as child processes against a real server and
 * a receiver on loopback.
 */
for (const backend of backends()) {
  describe(`atrium webhooks subscriptions and deliveries (${backend})`, () => {
    let server: TestServer;
    let receiver: WebhookReceiver;
    let cli: CliRunner;
    let ada: { handle: string; session: string };
    let bea: { handle: string; session: string };
    let asAda: Record<string, string>;
    let channelSeq = 0;

    before(async () => {
      server = await startServer(backend, { env: { ATRIUM_EGRESS_ALLOW_CIDRS: '127.0.0.0/8', ATRIUM_WEBHOOK_RETRY_SCHEDULE: '0,0' } });
      receiver = await WebhookReceiver.start(server.url);
      cli = new CliRunner(server.url);
      ada = await server.human('ada');
      bea = await server.human('bea');
      asAda = { ATRIUM_TOKEN: ada.session };
      await activeSpace(server, ada.session, 'plaza');
    });
    after(async () => {
      await cli.cleanup();
      await receiver.stop();
      await server.stop();
    });

    const atrium = (...args: string[]): Promise<CliResult> => cli.run(['webhooks', ...args], asAda);

    async function ok(...args: string[]): Promise<string> {
      const result = await atrium(...args);
      assert.equal(result.code, 0, `atrium webhooks ${args.join(' ')}: ${result.stderr}`);
      return result.stdout;
    }

    /** An endpoint at `path`, verified unless told otherwise (set up over the API: its commands have their own test). */
    async function endpoint(path: string, verified = true): Promise<string> {
      const created = await server.request('POST', '/v0/webhook-endpoints', { token: ada.session, body: { url: receiver.url(path) } });
      assert.equal(created.status, 201, created.body?.detail);
      if (verified) assert.equal((await server.request('POST', `/v0/webhook-endpoints/${created.body.id}/verify`, { token: ada.session })).status, 200);
      return created.body.id;
    }

    async function channel(): Promise<string> {
      const name = `room-${(channelSeq += 1)}`;
      const res = await server.request('POST', '/v0/spaces/plaza/channels', { token: ada.session, body: { name } });
      assert.equal(res.status, 201, res.body?.detail);
      return name;
    }

    async function post(room: string, body: string): Promise<void> {
      const res = await server.request('POST', `/v0/spaces/plaza/channels/${room}/messages`, { token: bea.session, body: { body } });
      assert.equal(res.status, 201, res.body?.detail);
    }

    /** Re-reads the history until `done` holds: the receiver answers before the host records the attempt. */
    async function historyUntil(subscription: string, done: (d: Delivery[]) => boolean): Promise<Delivery[]> {
      for (;;) {
        const res = await server.request('GET', `/v0/webhook-subscriptions/${subscription}/deliveries`, { token: ada.session });
        assert.equal(res.status, 200, res.body?.detail);
        if (done(res.body.deliveries)) return res.body.deliveries;
        await turn();
      }
    }

    /** What the host holds, read over the API: each CLI run starts a process, and the tables are checked where they matter. */
    async function listed(space?: string): Promise<Subscription[]> {
      const res = await server.request('GET', space ? `/v0/spaces/${space}/webhook-subscriptions` : '/v0/me/inbox-subscriptions', { token: ada.session });
      assert.equal(res.status, 200, res.body?.detail);
      return res.body.subscriptions;
    }

    it('adds a Space subscription, activates, lists, pauses, resumes, changes and deletes it', async () => {
      const whep = await endpoint('/space');
      assert.match(await ok('subscriptions', 'list', '--space', 'plaza'), /^No webhook subscriptions to plaza yet\. Create one with: atrium webhooks subscriptions add --endpoint <whep_id> --space plaza\n$/);

      const added = await ok('subscriptions', 'add', '--endpoint', whep, '--space', 'plaza', '--channel', 'general', '--type', 'message_posted');
      const [, id] = new RegExp(`^Created (whsub_${ID}) \\(inactive\\): Space plaza, message_posted events in channel general, debounce 1000 ms, to ${whep}\\.$`, 'm').exec(added) ?? [];
      assert.ok(id, added);
      assert.match(added, new RegExp(`^Activate it with: atrium webhooks subscriptions activate ${id} --space plaza$`, 'm'));
      const [created] = await listed('plaza');
      assert.deepEqual(created!.filter, { any: [{ event_types: [{ exact: 'message_posted' }], subject: { channel: 'general' } }] });

      assert.match(await ok('subscriptions', 'activate', id!, '--space', 'plaza'), new RegExp(`^${id} is active\\. Events after cursor \\d+ wake ${whep}\\. Watch its deliveries with: atrium webhooks deliveries ${id}\n$`));
      const table = (await ok('subscriptions', 'list', '--space', 'plaza')).split('\n');
      assert.match(table[0]!, /^ID +SCOPE +SPACE +STATUS +VERSION +DEBOUNCE +ENDPOINT$/);
      assert.match(table[1]!, new RegExp(`^${id} +space +plaza +active +1 +1000 ms +${whep}$`));

      assert.equal(await ok('subscriptions', 'pause', id!, '--space', 'plaza'), `${id} is paused (version 2). Resume it with: atrium webhooks subscriptions resume ${id} --space plaza\n`);
      assert.equal((await listed('plaza'))[0]!.status, 'paused');
      assert.equal(await ok('subscriptions', 'resume', id!, '--space', 'plaza'), `${id} is active (version 3); what qualified while it was paused comes in one catch-up wake.\n`);

      assert.equal(
        await ok('subscriptions', 'set', id!, '--space', 'plaza', '--debounce-ms', '250', '--no-filter'),
        `${id} is active (version 4): Space plaza, every event you may read, debounce 250 ms, to ${whep}.\n`,
      );
      const filter = { any: [{ event_types: [{ prefix: 'task_' }] }, { subject: { channel: 'general' } }] };
      const set = JSON.parse(await ok('subscriptions', 'set', id!, '--space', 'plaza', '--filter', JSON.stringify(filter), '--json')) as Subscription;
      assert.deepEqual([set.version, set.debounce_ms, set.filter], [5, 250, filter]);

      assert.equal(await ok('subscriptions', 'delete', id!, '--space', 'plaza'), `Deleted ${id}; anything it had not sent is cancelled.\n`);
      assert.deepEqual(await listed('plaza'), []);
      const again = await atrium('subscriptions', 'delete', id!, '--space', 'plaza');
      assert.equal(assertRefusal(again, 404), 'webhook_subscription_not_found');
    });

    it('adds an inbox subscription and activates it at once', async () => {
      const whep = await endpoint('/inbox');
      const added = JSON.parse(await ok('subscriptions', 'add', '--endpoint', whep, '--inbox', '--debounce-ms', '0', '--activate', '--json')) as Subscription;
      assert.deepEqual([added.scope, added.status, added.debounce_ms, 'space' in added], ['inbox_events', 'active', 0, false]);
      const table = (await ok('subscriptions', 'list', '--inbox')).split('\n');
      assert.match(table[1]!, new RegExp(`^${added.id} +inbox +- +active +1 +0 ms +${whep}$`));
      const human = await ok('subscriptions', 'add', '--endpoint', whep, '--inbox', '--activate');
      assert.match(human, new RegExp(`^Created whsub_${ID} \\(active\\): your inbox, debounce 1000 ms, to ${whep}\\.\nEvents after cursor \\d+ wake ${whep}\\. Watch its deliveries with: atrium webhooks deliveries whsub_${ID}\n$`));
      const json = JSON.parse(await ok('subscriptions', 'list', '--inbox', '--json')) as { subscriptions: Subscription[] };
      assert.deepEqual(json.subscriptions, await listed());
      assert.equal(json.subscriptions.length, 2);
    });

    it('shows a delivered wake in the history, and refuses to replay it with the host\'s reason', async () => {
      receiver.behaviours.set('/wake', answerInTurn([]));
      const room = await channel();
      const whep = await endpoint('/wake');
      const added = JSON.parse(await ok('subscriptions', 'add', '--endpoint', whep, '--space', 'plaza', '--channel', room, '--debounce-ms', '0', '--activate', '--json')) as Subscription;
      assert.equal(added.status, 'active');
      assert.match(await ok('deliveries', added.id), new RegExp(`^No deliveries for ${added.id} yet`));

      await post(room, 'wake up');
      const wake = (await receiver.waitFor('/wake', 2))[1]!;
      assert.equal(wake.signatureValid, true);
      const envelope = wake.body as { id: string; event_range: { after: number; through: number } };
      await historyUntil(added.id, (d) => d[0]?.status === 'delivered');

      const table = (await ok('deliveries', added.id)).split('\n');
      assert.match(table[0]!, /^ID +STATUS +RANGE +ATTEMPTS +CREATED +NEXT$/);
      assert.match(
        table[1]!,
        new RegExp(`^${envelope.id} +delivered +${envelope.event_range.after}→${envelope.event_range.through} +1 \\(202\\) +\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ +-$`),
      );
      const json = JSON.parse(await ok('deliveries', added.id, '--json')) as { deliveries: Delivery[] };
      assert.deepEqual(json.deliveries.map((d) => [d.id, d.status, d.event_range]), [[envelope.id, 'delivered', envelope.event_range]]);

      const replay = await atrium('replay', envelope.id);
      assertRefusal(replay, 409);
    });

    it('shows a dead delivery with its last answer, and replays it', async () => {
      receiver.behaviours.set('/dead', answerInTurn([500, 500, 500]));
      const room = await channel();
      const whep = await endpoint('/dead');
      const { id } = JSON.parse(await ok('subscriptions', 'add', '--endpoint', whep, '--space', 'plaza', '--channel', room, '--debounce-ms', '0', '--activate', '--json')) as Subscription;
      await post(room, 'nobody home');
      await receiver.waitFor('/dead', 4);
      const [dead] = await historyUntil(id, (d) => d[0]?.status === 'dead');
      assert.match((await ok('deliveries', id)).split('\n')[1]!, new RegExp(`^${dead!.id} +dead +\\d+→\\d+ +3 \\(500\\) +\\S+ +-$`));

      assert.equal(await ok('replay', dead!.id), `Replaying ${dead!.id}: it is pending again and goes out now. Follow it with: atrium webhooks deliveries ${id}\n`);
      const again = (await receiver.waitFor('/dead', 5))[4]!;
      assert.equal(again.headers['webhook-id'], dead!.id);
      await historyUntil(id, (d) => d[0]?.status === 'delivered');
      assert.match((await ok('deliveries', id)).split('\n')[1]!, new RegExp(`^${dead!.id} +delivered +\\d+→\\d+ +4 \\(202\\)`));
    });

    it('says what is wrong with the command line before asking the host, and passes on what the host refuses', async () => {
      await activeSpace(server, ada.session, 'yard');
      const whep = await endpoint('/refusals', false);
      const refusals: Array<[string[], RegExp]> = [
        [['subscriptions', 'add', '--endpoint', whep, '--space', 'yard', '--filter', '{"any": ['], /^atrium: --filter is not valid JSON: /],
        [['subscriptions', 'add', '--endpoint', whep, '--space', 'yard', '--filter', '["general"]'], /^atrium: --filter takes a JSON object such as \{"any"/],
        [['subscriptions', 'add', '--endpoint', whep, '--space', 'yard', '--filter', '{}', '--channel', 'general'], /^atrium: use either --filter or --channel\/--type\/--type-prefix, not both\n$/],
        [['subscriptions', 'add', '--endpoint', whep, '--inbox', '--channel', 'general'], /^atrium: inbox subscriptions take no filter/],
        [['subscriptions', 'add', '--endpoint', whep, '--space', 'yard', '--inbox'], /^atrium: use --space or --inbox, not both\n$/],
        [['subscriptions', 'add', '--endpoint', whep, '--space', 'yard', '--debounce-ms', '60001'], /argument '60001' is invalid\. expected whole milliseconds, 0-60000/],
        [['subscriptions', 'list'], /^atrium: there is no list across Spaces and the inbox: name one with --space <slug>, or --inbox\n$/],
        [['subscriptions', 'pause', 'whsub_abcdefghijklmnopqrstuvwxyz'], /^atrium: name the subscription's collection: --space <slug>, or --inbox\n$/],
        [['subscriptions', 'set', 'whsub_abcdefghijklmnopqrstuvwxyz', '--space', 'yard'], /^atrium: nothing to change: give --debounce-ms, or a filter/],
      ];
      const results = await Promise.all(refusals.map(([args]) => atrium(...args)));
      refusals.forEach(([args, stderr], i) => {
        assert.equal(results[i]!.code, 2, `${args.join(' ')}: ${results[i]!.stderr}`);
        assert.match(results[i]!.stderr, stderr);
        assert.equal(results[i]!.stdout, '');
      });
      assert.deepEqual(await listed('yard'), [], 'nothing reached the host');

      const shape = await atrium('subscriptions', 'add', '--endpoint', whep, '--space', 'yard', '--filter', '{"any": []}');
      assertRefusal(shape, 422);

      // The endpoint is unverified: the subscription is made but not activated, and the error says both.
      const unverified = await atrium('subscriptions', 'add', '--endpoint', whep, '--space', 'yard', '--activate');
      // The refusal's own exit status: the activation met a conflict.
      assert.equal(unverified.code, 6);
      const [, id] = new RegExp(`^atrium: created (whsub_${ID}), but it could not be activated: \\[\\w+\\] endpoint ${whep} is unverified: verify it before activating a subscription \\(HTTP 409\\)\\. It stays inactive; once that is fixed, run: atrium webhooks subscriptions activate whsub_${ID} --space yard\n$`).exec(unverified.stderr) ?? [];
      assert.ok(id, unverified.stderr);
      assert.deepEqual((await listed('yard')).map((s) => [s.id, s.status]), [[id, 'inactive']]);
    });
  });
}
