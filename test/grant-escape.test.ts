import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from './support/errors.js';
import { McpCaller, unwrapUntrusted } from './support/mcp.js';
import { grantTokens, postForm } from './support/oauth.js';
import { activeSpace } from './support/spaces.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';

/**
 * No escape from a grant (docs/oauth.md, "Narrowing"): what an adversarial
 * review of the OAuth server found, each as the request that got through.
 * A host-wide Owner consents for a client narrowed to one public Space; the
 * invite-only Space beside it holds a marker no answer to that token may show.
 */
const MARKER = 'only-for-the-inner-circle-7f3a';

for (const backend of backends()) {
  describe(`No escape from a grant (${backend})`, () => {
    let server: TestServer;
    let owner: { handle: string; session: string };
    let narrowed: string;
    let narrowedMcp: McpCaller;
    let wide: { access_token: string; refresh_token: string; clientId: string };

    before(async () => {
      server = await startServer(backend);
      owner = await server.human('olive', { role: 'owner' });
      await activeSpace(server, owner.session, 'pub');
      await activeSpace(server, owner.session, 'inner', 'invite');
      for (const slug of ['pub', 'inner']) assert.equal((await server.request('POST', `/v0/spaces/${slug}/join`, { token: owner.session })).status, 200);
      const said = await server.request('POST', '/v0/spaces/inner/channels/general/messages', { token: owner.session, body: { body: `the plan: ${MARKER}` } });
      assert.equal(said.status, 201);
      const task = await server.request('POST', '/v0/spaces/inner/tasks', { token: owner.session, body: { kind: 'general', title: `task ${MARKER}` } });
      assert.equal(task.status, 201);

      narrowed = (await grantTokens(server, owner.session, { acting_member: 'olive', scope: 'read', spaces: ['pub'], resource: 'rest' })).access_token;
      const narrowedForMcp = await grantTokens(server, owner.session, { acting_member: 'olive', scope: 'read', spaces: ['pub'], resource: 'mcp' });
      narrowedMcp = await McpCaller.connect(server, narrowedForMcp.access_token);
      wide = await grantTokens(server, owner.session, { acting_member: 'olive', resource: 'rest' });
    });
    after(async () => {
      await narrowedMcp.close();
      await server.stop();
    });

    const leaks = (answer: unknown) => JSON.stringify(answer).includes(MARKER);

    it("refuses a narrowed grant the host's event feed, over REST and MCP", async () => {
      // Before: 200 with every Space's messages, the invite-only one's bodies included.
      const feed = await server.request('GET', '/v0/events?since=0', { token: narrowed });
      assertError(feed, 'grant_space_excluded');
      assert.ok(!leaks(feed.body));
      const tool = await narrowedMcp.refused('list_host_event_page', { since: 0 });
      assert.equal(tool.code, 'grant_space_excluded');
      // The same owner's own session still reads it whole: the refusal is the grant's, not the role's.
      const own = await server.request('GET', '/v0/events?since=0&limit=500', { token: owner.session });
      assert.equal(own.status, 200);
      assert.ok(leaks(own.body));
    });

    it('refuses a narrowed grant the operator status and every other read across Spaces', async () => {
      assertError(await server.request('GET', '/v0/operator/status', { token: narrowed }), 'grant_space_excluded');
      assertError(await server.request('GET', '/v0/me/memberships', { token: narrowed }), 'grant_space_excluded');
      assert.equal((await narrowedMcp.refused('list_my_memberships', {})).code, 'grant_space_excluded');
    });

    it('answers a narrowed grant as the public on host-wide listings, and keeps search and the inbox inside its Spaces', async () => {
      // A host-wide Owner lists suspended members; a narrowed token of theirs is answered as anyone is.
      assertError(await server.request('GET', '/v0/members?status=suspended', { token: narrowed }), 'listing_forbidden');
      // Where the public would be asked for a credential, a valid token is told its grant does not reach there (never 401).
      assertError(await server.request('GET', '/v0/spaces/inner/channels', { token: narrowed }), 'grant_space_excluded');
      const spaces = await server.request('GET', '/v0/spaces?status=proposed', { token: narrowed });
      assert.equal(spaces.status, (await server.request('GET', '/v0/spaces?status=proposed')).status);
      const found = await server.request('GET', `/v0/search?q=${MARKER}`, { token: narrowed });
      assert.equal(found.status, 200);
      assert.deepEqual(found.body.results, []);
      const mcpFound = unwrapUntrusted((await narrowedMcp.ok('search', { q: MARKER })).json) as { results: unknown[] };
      assert.deepEqual(mcpFound.results, []);
      const inbox = await server.request('GET', '/v0/me/inbox-events?since=0', { token: narrowed });
      assert.equal(inbox.status, 200);
      assert.ok(!leaks(inbox.body));
    });

    it("does not let a narrowed grant use its member's host-wide role on a Space outside it", async () => {
      for (const path of ['/v0/spaces/inner/events?since=0', '/v0/spaces/inner/channels/general/messages', '/v0/spaces/inner/tasks']) {
        const answer = await server.request('GET', path, { token: narrowed });
        assert.equal(answer.status, 403, path);
        assert.ok(!leaks(answer.body), path);
      }
    });

    it('mints no credential with an OAuth token: client activations, agent registration, confirmation and approval are refused', async () => {
      const activation = await server.request('POST', '/v0/client-activations', { body: { client_name: 'a laptop' } });
      assert.equal(activation.status, 201);
      // Before: 200, and the poll then delivered a permanent sk_atrium_ key that outlived the grant.
      assertError(await server.request('POST', `/v0/client-activations/${activation.body.code}/approve`, { token: wide.access_token, body: {} }), 'session_required');
      const poll = await server.request('POST', `/v0/client-activations/${activation.body.code}/poll`, { body: { poll_secret: activation.body.poll_secret } });
      assert.equal(poll.status, 200);
      assert.equal(poll.body.key, undefined, 'no key was minted');

      assertError(await server.request('POST', '/v0/agents', { token: wide.access_token, body: { handle: 'token-bot', operator: 'olive' } }), 'session_required');
      const registered = await server.request('POST', '/v0/agents', { body: { handle: 'plain-bot', operator: 'olive' } });
      assert.equal(registered.status, 201);
      assertError(await server.request('POST', '/v0/agents/plain-bot/confirm', { token: wide.access_token }), 'session_required');
      assertError(await server.request('POST', '/v0/agents/plain-bot/approve', { token: wide.access_token }), 'session_required');
      assert.equal((await server.request('GET', '/v0/members/plain-bot', { token: STEWARD_KEY })).body.status, 'pending');
      assert.equal((await server.request('GET', '/v0/members/token-bot')).status, 404);

      // The human's own session still does all of it.
      assert.equal((await server.request('POST', '/v0/agents/plain-bot/confirm', { token: owner.session })).status, 200);
      assert.equal((await server.request('POST', '/v0/agents/plain-bot/approve', { token: owner.session })).status, 200);

      // Revoking the grant leaves nothing of it behind that still works.
      assert.equal((await postForm(server, '/oauth/revoke', { token: wide.refresh_token, client_id: wide.clientId })).status, 200);
      assertError(await server.request('GET', '/v0/me', { token: wide.access_token }), 'token_invalid');
    });
  });
}
