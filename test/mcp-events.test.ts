import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestClock } from './support/clock.js';
import { hostEvents } from './support/events.js';
import { McpCaller, restCall } from './support/mcp.js';
import { seedAgent } from './support/seed.js';
import { backends, startServer, type TestServer } from './support/server.js';

/**
 * The same script of writes, once through REST and once through MCP tools,
 * against two fresh servers on the same frozen clock. The host-wide event
 * feeds must come out identical (every type, actor, subject and payload) and
 * so must every write's result, once random ids are lined up: a tool is the
 * operation, not a second implementation of it.
 */

type Who = 'ada' | 'bea' | 'bot';
// Results are only passed on (ids) and compared whole.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
type Invoke = (who: Who, tool: string, args: Record<string, unknown>) => Promise<Json>;

async function script(invoke: Invoke): Promise<void> {
  await invoke('ada', 'propose_space', { slug: 'twin', name: 'Twin room', join_policy: 'invite', charter: 'Be kind.' });
  await invoke('ada', 'approve_space', { slug: 'twin' });
  await invoke('ada', 'change_review_policy', { slug: 'twin', review_policy: 'distinct_member', reason: 'small team' });
  for (const member of ['bot', 'bea'] as const) {
    await invoke('ada', 'invite_member', { slug: 'twin', member });
    await invoke(member, 'join_space', { slug: 'twin' });
  }
  await invoke('bot', 'create_channel', { slug: 'twin', name: 'ops', topic: 'Operations' });
  await invoke('bot', 'post_message', { slug: 'twin', channel: 'general', body: 'Hello @bea and @ada, `@nobody` in code.' });
  await invoke('bot', 'send_direct_message', { slug: 'twin', to: 'bea', body: 'psst' });
  const task = await invoke('bot', 'create_task', { slug: 'twin', kind: 'general', title: 'Summarise', body: 'Please.' });
  for (const [who, verb] of [
    ['bot', 'claim'],
    ['bot', 'submit'],
    ['bea', 'complete'],
  ] as const) {
    await invoke(who, `${verb}_task`, { slug: 'twin', id: task.id });
  }
  await invoke('bot', 'post_task_message', { slug: 'twin', id: task.id, body: 'Done, @bea.' });
  const resources: string[] = [];
  for (const n of [1, 2, 3]) resources.push((await invoke('bot', 'create_resource', { slug: 'twin', name: `Doc ${n}`, content: `# Doc ${n}\n` })).id);
  await invoke('bea', 'update_resource', { slug: 'twin', id: resources[0], content: '# Doc 1, edited\n', name: 'Doc one', expected_version: 1 });
  await invoke('ada', 'set_space_pins', { slug: 'twin', resource_ids: [resources[0]], reason: 'start here' });
  await invoke('ada', 'assign_role', { member: 'bot', role: 'maintainer', space: 'twin' });
  await invoke('bot', 'pin_resource', { slug: 'twin', resource_id: resources[1] });
  const proposal = await invoke('bea', 'propose_pin', { slug: 'twin', resource_id: resources[2], rationale: 'Everyone needs it' });
  await invoke('ada', 'decline_pin_proposal', { slug: 'twin', id: proposal.id, reason: 'Not yet' });
  await invoke('bot', 'register_agent', { handle: 'helper', operator: 'ada' });
  await invoke('ada', 'approve_agent', { handle: 'helper' });
  await invoke('ada', 'suspend_member', { handle: 'helper' });
  await invoke('ada', 'reinstate_member', { handle: 'helper' });
  await invoke('ada', 'create_human', { handle: 'carl', email: 'carl@example.test' });
  await invoke('bea', 'leave_space', { slug: 'twin' });
}

interface Twin {
  server: TestServer;
  tokens: Record<Who, string>;
  results: unknown[];
}

async function startTwin(backend: 'sqlite' | 'postgres'): Promise<Twin> {
  const server = await startServer(backend, { clock: new TestClock() });
  const ada = await server.human('ada', { role: 'owner' });
  const bea = await server.human('bea');
  const bot = await seedAgent(server, 'bot', 'ada', 'active');
  return { server, tokens: { ada: ada.session, bea: bea.session, bot: bot.key }, results: [] };
}

/** Random ids, keys and the base URL differ between the twins; number ids by first appearance instead. */
function lineUp(twin: Twin, value: unknown): unknown {
  const seen = new Map<string, string>();
  const text = JSON.stringify(value).replaceAll(twin.server.url, '<base>').replace(/\b(?:(?:res|role|cred|sess)_[a-z2-7]{26}|sk_atrium_[A-Za-z0-9_-]+)/g, (id) => {
    if (!seen.has(id)) seen.set(id, `<${id.split('_')[0]}#${seen.size + 1}>`);
    return seen.get(id)!;
  });
  return JSON.parse(text);
}

for (const backend of backends()) {
  describe(`MCP writes emit exactly the events of REST writes (${backend})`, () => {
    let viaRest: Twin;
    let viaMcp: Twin;
    const callers: McpCaller[] = [];

    before(async () => {
      [viaRest, viaMcp] = await Promise.all([startTwin(backend), startTwin(backend)]);
      const mcp: Partial<Record<Who, McpCaller>> = {};
      for (const who of ['ada', 'bea', 'bot'] as const) {
        mcp[who] = await McpCaller.connect(viaMcp.server, viaMcp.tokens[who]);
        callers.push(mcp[who]);
      }
      await script(async (who, tool, args) => {
        const res = await restCall(viaRest.server, viaRest.tokens[who], tool, args);
        assert.ok(res.status < 300, `REST ${tool}: ${res.status} ${res.body?.detail}`);
        viaRest.results.push({ tool, status: res.status, body: res.body });
        return res.body;
      });
      await script(async (who, tool, args) => {
        const { result, json } = await mcp[who]!.ok(tool, args);
        viaMcp.results.push({ tool, status: (result._meta as Record<string, unknown>)['atrium/status'], body: json });
        return json;
      });
    });

    after(async () => {
      for (const caller of callers) await caller.close();
      await Promise.all([viaRest?.server.stop(), viaMcp?.server.stop()]);
    });

    it('answers every write with the same status and JSON', () => {
      assert.equal(viaMcp.results.length, viaRest.results.length);
      assert.deepEqual(lineUp(viaMcp, viaMcp.results), lineUp(viaRest, viaRest.results));
    });

    it('leaves the same host-wide feed, event for event', async () => {
      const rest = await hostEvents(viaRest.server);
      const mcp = await hostEvents(viaMcp.server);
      assert.ok(rest.length > 30, `the script emits a fair share of the vocabulary (${rest.length} events)`);
      assert.deepEqual(
        mcp.map((e) => e.type),
        rest.map((e) => e.type),
      );
      assert.deepEqual(lineUp(viaMcp, mcp), lineUp(viaRest, rest));
    });

    it("leaves the same Space feed, as list_event_page shows it", async () => {
      const page = async (twin: Twin) => (await restCall(twin.server, twin.tokens.ada, 'list_event_page', { slug: 'twin', limit: 500 })).body;
      assert.deepEqual(lineUp(viaMcp, await page(viaMcp)), lineUp(viaRest, await page(viaRest)));
    });
  });
}
