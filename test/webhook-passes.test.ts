import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PROJECTION_BATCH } from '../src/webhooks/projector.js';
import { claimBatch, type WebhookWorker } from '../src/webhooks/worker.js';
import { backends, startServer, type TestServer } from './support/server.js';
import { activeSpace } from './support/spaces.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

/**
 * How much a webhook pass projects (docs/webhooks.md, "From commit to wake"):
 * again only after a step that took a full batch. Projecting until a step
 * found no new event never ended under a steady stream of writes, and sent no
 * wake meanwhile; this checks the rule itself, on a worker stopped so that
 * only the test's passes run.
 */
for (const backend of backends()) {
  describe(`webhook passes (${backend})`, () => {
    let server: TestServer;
    let receiver: WebhookReceiver;
    let worker: WebhookWorker;

    before(async () => {
      server = await startServer(backend, { env: { ATRIUM_EGRESS_ALLOW_CIDRS: '127.0.0.0/8' } });
      receiver = await WebhookReceiver.start(server.url);
      const ada = await server.human('ada');
      await activeSpace(server, ada.session, 'plaza');
      const endpoint = await server.request('POST', '/v0/webhook-endpoints', { token: ada.session, body: { url: receiver.url('/passes') } });
      assert.equal(endpoint.status, 201, endpoint.body?.detail);
      assert.equal((await server.request('POST', `/v0/webhook-endpoints/${endpoint.body.id}/verify`, { token: ada.session })).status, 200);
      const collection = '/v0/spaces/plaza/webhook-subscriptions';
      const created = await server.request('POST', collection, { token: ada.session, body: { endpoint_id: endpoint.body.id, debounce_ms: 0 } });
      assert.equal(created.status, 201, created.body?.detail);
      assert.equal((await server.request('POST', `${collection}/${created.body.id}/activate`, { token: ada.session })).status, 200);
      worker = server.app.ctx.webhooks as WebhookWorker;
      await worker.stop();
      await worker.cycle();
    });
    after(async () => {
      await receiver.stop();
      await server.stop();
    });

    /** Events a live subscription is owed, committed together. */
    const commit = (count: number) =>
      server.app.ctx.db.transaction(async (tx) => {
        for (let i = 0; i < count; i++) {
          tx.emit({ type: 'space_proposed', space: 'plaza', actor: { system: 'admin_cli' }, subjects: ['space:plaza'], payload: { slug: 'plaza', name: 'plaza', join_policy: 'open' } });
        }
      });

    it('projects a backlog in full batches, and stops at the first step short of one', async () => {
      await commit(PROJECTION_BATCH + 100);
      assert.equal(await worker.cycle(), 2);
      await commit(PROJECTION_BATCH * 2);
      // The second full step may still have had more behind it: a third finds none.
      assert.equal(await worker.cycle(), 3);
    });

    it('takes one step for what a steady stream of writes left since the last pass', async () => {
      await commit(5);
      assert.equal(await worker.cycle(), 1);
      assert.equal(await worker.cycle(), 1);
    });
  });
}

// A claim ranks every due delivery, so its cost grows with them; the slots it
// waits for grow with that cost (docs/webhooks.md, "Claims"), within bounds.
describe('freed slots that start a claim', () => {
  it('are 32 while claims are cheap, more as they cost more, and never over half of the 256 slots', () => {
    assert.equal(claimBatch(0), 32);
    assert.equal(claimBatch(2), 32);
    assert.equal(claimBatch(4), 64);
    assert.equal(claimBatch(6), 96);
    assert.equal(claimBatch(27), 128);
  });
});
