import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { allOperations } from '../src/operations/index.js';
import { AUDIENCES_DOC_PATH, audiencesDocument } from '../scripts/generate-audiences.js';
import type { Audience, AnyOperation } from '../src/operations/operation.js';
import { namesSpace, onlyReads } from '../src/oauth/narrowing.js';
import { TestClock } from './support/clock.js';
import { McpCaller } from './support/mcp.js';
import { grantTokens, postForm, registerClient, startAuthorization } from './support/oauth.js';
import { seedAgent } from './support/seed.js';
import { activeSpace } from './support/spaces.js';
import { backends, startServer, STEWARD_KEY, type ApiClient, type TestServer } from './support/server.js';

/**
 * Who may do what: every operation in the contract against every kind of
 * caller, over REST and MCP. Each operation declares its audience once
 * (`who` on its declaration); `AUDIENCES` below says what each audience
 * means for each caller on an invite-only Space; `EXCEPTIONS` names the few
 * operations whose rule is finer than their audience (the author of a
 * message, the creator of a task). A cell is either `ok` (the call passes
 * every authority check: any answer but 401 and 403, since a 404 or 409 is
 * about the data, not the caller) or the exact `Atrium-Error` code of the
 * refusal. And no answer to a caller who may not read the Space holds a word
 * of what was said there.
 */

/** The callers. Humans call with their session; OAuth tokens act as `inside` (or as the agent) under their grant. */
const ACTORS = [
  'anonymous',
  'outsider', // an active human, not admitted to the Space
  'inside', // an active human admitted to the Space
  'space_host', // Host of the Space (assigned on it), not admitted
  'space_owner', // Owner of the Space (assigned on it), not admitted
  'host_owner', // a host-wide Owner, not admitted
  'agent', // an active agent admitted to the Space, with its own key
  'operator', // the agent's operator, not admitted
  'steward', // the steward key
  'removed', // a human removed from the Space
  'grant_read', // OAuth, scope read, acting as `inside`
  'grant_write', // OAuth, scope read write, acting as `inside`
  'grant_elsewhere', // OAuth, read write, acting as `inside`, narrowed to another Space
  'grant_owner_elsewhere', // OAuth, read write, acting as the host-wide Owner, narrowed to another Space
  'grant_agent', // OAuth, read write, acting as the agent
  'grant_revoked',
  'grant_expired',
] as const;
type ActorName = (typeof ACTORS)[number];

/** Who a caller is once its credential is read: the grants act as their member. */
type Identity = 'anonymous' | 'outsider' | 'inside' | 'space_host' | 'space_owner' | 'host_owner' | 'agent' | 'operator' | 'steward' | 'removed';
type Cell = 'ok' | string;

const NOT_ADMITTED: Partial<Record<Identity, Cell>> = { anonymous: 'credential_required', outsider: 'not_admitted', operator: 'not_admitted', removed: 'not_admitted' } as const;
const NO_ROLE = { anonymous: 'credential_required', outsider: 'role_required', inside: 'role_required', agent: 'role_required', operator: 'role_required', removed: 'role_required' } as const;

/** What each audience means for each identity, in the invite-only Space `inner` (src/operations/operation.ts, Audience). */
const AUDIENCES: Record<Audience, Partial<Record<Identity, Cell>>> = {
  anyone: {},
  anyone_filtered: {},
  space_readers: NOT_ADMITTED,
  space_members: NOT_ADMITTED,
  admitted_members: { ...NOT_ADMITTED, space_host: 'not_admitted', space_owner: 'not_admitted', host_owner: 'not_admitted' },
  space_stewards: { ...NO_ROLE },
  host_stewards: { ...NO_ROLE, space_host: 'role_required', space_owner: 'role_required' },
  host_owners: { ...NO_ROLE, space_host: 'role_required', space_owner: 'role_required' },
  members: { anonymous: 'credential_required' },
  humans: { anonymous: 'credential_required', agent: 'human_required' },
  operators: { anonymous: 'credential_required', outsider: 'not_operator', inside: 'not_operator', space_host: 'not_operator', space_owner: 'not_operator', host_owner: 'not_operator', agent: 'not_operator', removed: 'not_operator' },
};

/**
 * Operations whose rule is finer than their audience, each cell a refusal the
 * audience alone would not predict, and why.
 */
const EXCEPTIONS: Record<string, Partial<Record<Identity, Cell>>> = {
  // Sign-up is open only where the host opens it (ATRIUM_SIGNUP); by default people are added by an Owner.
  sign_up: { anonymous: 'signup_closed' },
  // An invite-only Space admits only whom it invited (or its Owners and Hosts).
  join_space: { outsider: 'not_admitted', operator: 'not_admitted', removed: 'not_admitted' },
  // Only its author edits a message; its author or an Owner/Host deletes one (the matrix's message to delete is someone else's).
  edit_message: { agent: 'not_message_author', space_host: 'not_message_author', space_owner: 'not_message_author', host_owner: 'not_message_author' },
  delete_message: { inside: 'not_message_author', agent: 'not_message_author' },
  // Cancelling a task is its creator's or an Owner/Host's (the matrix's task is someone else's).
  cancel_task: { inside: 'not_task_creator', agent: 'not_task_creator' },
  // Appending a pin names its own rule: Owners/Hosts pin, members propose.
  pin_resource: { outsider: 'pin_append_forbidden', inside: 'pin_append_forbidden', agent: 'pin_append_forbidden', operator: 'pin_append_forbidden', removed: 'pin_append_forbidden' },
};

/** Refusals of a secret the body carries (a wrong code), not of the caller: such a cell has passed authority. */
const ABOUT_THE_DATA = new Set(['sign_in_code_invalid', 'poll_secret_invalid']);

const MARKER = 'matrix-private-words-5d1c';

/** MCP is for members: no credential, a dead token or the steward key connects no client (docs/mcp.md). */
const NO_MCP: ReadonlySet<ActorName> = new Set(['anonymous', 'grant_revoked', 'grant_expired', 'steward']);

function identityOf(actor: ActorName): Identity {
  if (actor === 'grant_read' || actor === 'grant_write' || actor === 'grant_elsewhere') return 'inside';
  if (actor === 'grant_agent') return 'agent';
  if (actor === 'grant_owner_elsewhere') return 'host_owner';
  if (actor === 'grant_revoked' || actor === 'grant_expired') return 'anonymous';
  return actor;
}

const isGrant = (actor: ActorName) => actor.startsWith('grant_');

/**
 * The cell for one operation and caller: first the credential rules every
 * operation shares (src/http/authenticate.ts, src/oauth/narrowing.ts), then
 * the operation's audience.
 */
function expected(op: AnyOperation, actor: ActorName): Cell {
  const schemes = op.auth.schemes;
  if (schemes.length === 0) return roleCell(op, 'anonymous'); // A public operation reads no credential.
  if (actor === 'grant_revoked' || actor === 'grant_expired') return 'token_invalid';
  const identity = identityOf(actor);
  let asPublic = false;
  if (actor === 'steward' && !schemes.includes('steward_key')) {
    if (!op.auth.anonymous) return 'steward_key_refused';
    asPublic = true;
  }
  const keyed = isGrant(actor) || identity === 'agent';
  if (keyed && !asPublic && !schemes.includes('member_key')) {
    if (!op.auth.anonymous) return 'session_required';
    asPublic = true;
  }
  if (isGrant(actor) && op.createsCredential) return 'session_required';
  if (actor === 'grant_read' && !onlyReads(op)) return 'grant_read_only';
  if (actor === 'grant_elsewhere' || actor === 'grant_owner_elsewhere') {
    if (!onlyReads(op)) return 'grant_space_excluded';
    if (!namesSpace(op) && op.beyondSpaces === undefined) return 'grant_space_excluded';
    if (namesSpace(op) || op.beyondSpaces === 'public') {
      if (!op.auth.anonymous) return 'grant_space_excluded';
      // Answered as the public is, except that a valid token is never told to sign in.
      const publicCell = roleCell(op, 'anonymous');
      return publicCell === 'credential_required' ? 'grant_space_excluded' : publicCell;
    }
    // Inside the grant's reach, a host-wide role counts for nothing: a narrowed grant holds no power over the host.
    if (identity === 'host_owner') {
      const asMember = roleCell(op, 'inside');
      return asMember === 'not_admitted' ? 'grant_space_excluded' : asMember;
    }
  }
  if (asPublic) return roleCell(op, 'anonymous');
  if (identity === 'anonymous' && !op.auth.anonymous) return 'credential_required';
  return roleCell(op, identity);
}

function roleCell(op: AnyOperation, identity: Identity): Cell {
  return EXCEPTIONS[op.name]?.[identity] ?? AUDIENCES[op.who][identity] ?? 'ok';
}

describe('Who may do what, written down', () => {
  it('docs/who-may-do-what.md is the declarations\' table (npm run generate:audiences)', () => {
    assert.equal(readFileSync(AUDIENCES_DOC_PATH, 'utf8'), audiencesDocument());
  });

  it('names only operations that exist among its exceptions', () => {
    const names = new Set(allOperations(() => ({})).map((op) => op.name));
    assert.deepEqual(Object.keys(EXCEPTIONS).filter((name) => !names.has(name)), []);
  });
});

for (const backend of backends()) {
  describe(`Role matrix (${backend})`, () => {
    let server: TestServer;
    const clock = new TestClock(Date.now());
    const rest = new Map<ActorName, string | undefined>();
    const mcp = new Map<ActorName, McpCaller | 'refused'>();
    const ids: Record<string, string | number> = {};
    let spaceCount = 0;
    let proposer = '';

    before(async () => {
      server = await startServer(backend, { clock });
      const humans: Record<string, { handle: string; session: string }> = {};
      for (const handle of ['outsider', 'inside', 'operator', 'removed', 'victim', 'removable', 'author']) humans[handle] = await server.human(handle);
      humans.host_owner = await server.human('host-owner', { role: 'owner' });
      proposer = (await server.human('proposer')).session;
      const founder = humans.host_owner;
      await activeSpace(server, founder.session, 'inner', 'invite');
      await activeSpace(server, founder.session, 'elsewhere', 'open');
      humans.space_host = await server.human('space-host', { role: 'host', space: 'inner' });
      humans.space_owner = await server.human('space-owner', { role: 'owner', space: 'inner' });
      const agent = await seedAgent(server, 'matrix-agent', 'operator', 'active');
      for (const handle of ['inside', 'removed', 'victim', 'removable', 'author', 'matrix-agent']) {
        await must(server.request('POST', '/v0/spaces/inner/invitations', { token: STEWARD_KEY, body: { member: handle } }));
      }
      for (const who of ['inside', 'removed', 'victim', 'removable', 'author']) await must(server.request('POST', '/v0/spaces/inner/join', { token: humans[who]!.session }));
      await must(server.request('POST', '/v0/spaces/inner/join', { token: agent.key }));
      await must(server.request('POST', '/v0/spaces/inner/members/removed/remove', { token: STEWARD_KEY }));

      // What was said in the Space, which no one outside it may read a word of.
      const said = (token: string, body: string) => must(server.request('POST', '/v0/spaces/inner/channels/general/messages', { token, body: { body } }));
      ids.message = (await said(humans.author!.session, `the plan: ${MARKER}`)).id;
      ids.editable = (await said(humans.inside!.session, `draft ${MARKER}`)).id;
      ids.deletable = (await said(humans.author!.session, `doomed ${MARKER}`)).id;
      ids.task = (await must(server.request('POST', '/v0/spaces/inner/tasks', { token: humans.author!.session, body: { kind: 'general', title: `task ${MARKER}` } }))).id;
      ids.resource = (await must(server.request('POST', '/v0/spaces/inner/resources', { token: humans.author!.session, body: { name: 'plan.md', content: `# Plan\n\n${MARKER}` } }))).id;
      ids.proposal = (await must(server.request('POST', '/v0/spaces/inner/pin-proposals', { token: humans.author!.session, body: { resource_id: ids.resource, rationale: `pin it ${MARKER}` } }))).id;
      await must(server.request('POST', '/v0/spaces/inner/direct-messages', { token: humans.author!.session, body: { to: 'victim', body: `between us ${MARKER}` } }));
      ids.assignment = (await must(server.request('POST', '/v0/role-assignments', { token: STEWARD_KEY, body: { member: 'victim', role: 'host', space: 'elsewhere' } }))).id;
      await must(server.request('POST', '/v0/agents', { body: { handle: 'pending-bot', operator: 'operator' } }));
      ids.activation = (await must(server.request('POST', '/v0/client-activations', { body: { client_name: 'matrix laptop' } }))).code;
      ids.oauthRequest = (await startAuthorization(server, await registerClient(server))).requestId;

      // Tokens: the expired ones first, then the clock moves past their hour.
      const consenting = { 'matrix-agent': humans.operator, 'host-owner': humans.host_owner } as Record<string, { session: string } | undefined>;
      const oauth = async (resource: 'rest' | 'mcp', choice: { acting_member: string; scope?: string; spaces?: string[] }) =>
        grantTokens(server, (consenting[choice.acting_member] ?? humans.inside)!.session, { ...choice, resource });
      const expiredRest = (await oauth('rest', { acting_member: 'inside' })).access_token;
      const expiredMcp = (await oauth('mcp', { acting_member: 'inside' })).access_token;
      clock.advance(60 * 60 * 1000 + 1000);
      const grants: Record<string, { acting_member: string; scope?: string; spaces?: string[] }> = {
        grant_read: { acting_member: 'inside', scope: 'read' },
        grant_write: { acting_member: 'inside' },
        grant_elsewhere: { acting_member: 'inside', spaces: ['elsewhere'] },
        grant_owner_elsewhere: { acting_member: 'host-owner', spaces: ['elsewhere'] },
        grant_agent: { acting_member: 'matrix-agent' },
        grant_revoked: { acting_member: 'inside' },
      };
      const tokens: Record<string, { rest: string; mcp: string }> = {};
      for (const [name, choice] of Object.entries(grants)) {
        const forRest = await oauth('rest', choice);
        const forMcp = await oauth('mcp', choice);
        if (name === 'grant_revoked') {
          for (const t of [forRest, forMcp]) assert.equal((await postForm(server, '/oauth/revoke', { token: t.refresh_token, client_id: t.clientId })).status, 200);
        }
        tokens[name] = { rest: forRest.access_token, mcp: forMcp.access_token };
      }
      tokens.grant_expired = { rest: expiredRest, mcp: expiredMcp };

      for (const actor of ACTORS) {
        let restToken: string | undefined;
        let mcpToken: string | undefined;
        if (actor === 'steward') restToken = mcpToken = STEWARD_KEY;
        else if (actor === 'agent') restToken = mcpToken = agent.key;
        else if (isGrant(actor)) ({ rest: restToken, mcp: mcpToken } = tokens[actor]!);
        else if (actor !== 'anonymous') restToken = mcpToken = humans[actor]!.session;
        rest.set(actor, restToken);
        if (mcpToken === undefined) {
          mcp.set(actor, 'refused');
          continue;
        }
        try {
          mcp.set(actor, await McpCaller.connect(server, mcpToken));
        } catch {
          mcp.set(actor, 'refused');
        }
      }
    });

    after(async () => {
      for (const caller of mcp.values()) if (caller !== 'refused') await caller.close();
      await server.stop();
    });

    /** A fresh Space in the state an operation starts from, for the calls that change a Space's status. */
    async function freshSpace(status: 'proposed' | 'archived'): Promise<string> {
      const slug = `fresh-${++spaceCount}`;
      await must(server.request('POST', '/v0/spaces', { token: proposer, body: { slug, name: slug } }));
      // A proposal is approved or archived; an archived one is restored to a proposal.
      if (status === 'archived') await must(server.request('POST', `/v0/spaces/${slug}/archive`, { token: STEWARD_KEY, body: { reason: 'matrix' } }));
      return slug;
    }

    /** The arguments of one call: path parameters, query and body, flat as an MCP tool takes them. */
    async function argumentsFor(op: AnyOperation): Promise<Record<string, unknown>> {
      const args: Record<string, unknown> = {};
      for (const name of Object.keys((op.params as { properties?: object } | undefined)?.properties ?? {})) args[name] = pathValue(op, name);
      if (['approve_space', 'archive_space', 'restore_space'].includes(op.name)) {
        args.slug = await freshSpace(op.name === 'restore_space' ? 'archived' : 'proposed');
      }
      Object.assign(args, BODIES[op.name] ?? {}, QUERIES[op.name] ?? {});
      return args;
    }

    function pathValue(op: AnyOperation, name: string): string | number {
      switch (name) {
        case 'slug':
        case 'space':
          return 'inner';
        case 'channel':
          return 'general';
        case 'version':
          return 1;
        case 'emoji':
          return '👍';
        case 'code':
          return ids.activation!;
        case 'handle':
          if (op.path.startsWith('/v0/agents')) return 'pending-bot';
          if (op.name === 'remove_space_member') return 'removable';
          return 'victim';
        case 'id':
          if (op.path.includes('/tasks/')) return ids.task!;
          if (op.name === 'edit_message') return ids.editable!;
          if (op.name === 'delete_message') return ids.deletable!;
          if (op.path.includes('/messages/')) return ids.message!;
          if (op.path.includes('/resources/')) return ids.resource!;
          if (op.path.includes('/pin-proposals/')) return ids.proposal!;
          if (op.path.includes('/role-assignments/')) return ids.assignment!;
          if (op.path.includes('/oauth-authorization-requests/')) return ids.oauthRequest!;
          // No such record, well formed: whoever passes authority learns only that it is not theirs (404).
          return UNKNOWN_IDS.find(([path]) => op.path.includes(path))?.[1] ?? 'x-1';
        default:
          throw new Error(`no value for {${name}} in ${op.path}`);
      }
    }

    const UNKNOWN_IDS: Array<[string, string]> = [
      ['/webhook-endpoints/', `whep_${'a'.repeat(26)}`],
      ['/webhook-subscriptions/', `whsub_${'a'.repeat(26)}`],
      ['/inbox-subscriptions/', `whsub_${'a'.repeat(26)}`],
      ['/webhook-deliveries/', `whd_${'a'.repeat(26)}`],
      ['/oauth-grants/', `grant_${'a'.repeat(26)}`],
      ['/credentials/', `cred_${'a'.repeat(26)}`],
    ];
    const BODIES: Record<string, Record<string, unknown>> = {
      propose_space: { slug: 'matrix-proposed', name: 'Matrix' },
      archive_space: { reason: 'matrix' },
      change_review_policy: { review_policy: 'distinct_member', reason: 'matrix' },
      invite_member: { member: 'outsider' },
      register_agent: { handle: 'matrix-registered', operator: 'operator' },
      create_human: { handle: 'matrix-human', email: 'matrix-human@example.org' },
      sign_up: { handle: 'matrix-signup', email: 'matrix-signup@example.org' },
      request_sign_in_code: { email: 'inside@example.org' },
      verify_sign_in: { email: 'inside@example.org', code: '000000' },
      poll_client_activation: { poll_secret: 'x'.repeat(43) },
      assign_role: { member: 'victim', role: 'host', space: 'elsewhere' },
      create_task: { kind: 'general', title: 'matrix task' },
      post_task_message: { body: 'matrix' },
      create_channel: { name: 'matrix' },
      post_message: { body: 'matrix' },
      send_direct_message: { to: 'victim', body: 'matrix' },
      edit_message: { body: 'edited', expected_version: 1 },
      mark_conversation_read: { channel: 'general', message_id: 1 },
      mark_inbox_read: { cursor: 1 },
      create_resource: { name: 'matrix.md', content: 'matrix' },
      update_resource: { content: 'matrix again' },
      set_space_pins: { resource_ids: [] },
      pin_resource: { resource_id: 'res-x' },
      propose_pin: { resource_id: 'res-x', rationale: 'matrix' },
      decline_pin_proposal: { reason: 'matrix' },
      create_webhook_endpoint: { url: 'https://example.org/hook' },
      create_space_webhook_subscription: { endpoint_id: `whep_${'a'.repeat(26)}` },
      update_space_webhook_subscription: { debounce_ms: 0 },
      create_inbox_subscription: { endpoint_id: `whep_${'a'.repeat(26)}` },
      update_inbox_subscription: { debounce_ms: 0 },
      call_external_service: { connection_id: 'x-1', purpose: 'matrix', request: { method: 'GET', url: 'https://example.org/' } },
      issue_credential_ticket: { connection_id: 'x-1', purpose: 'matrix', request: { method: 'GET', url: 'https://example.org/' } },
      create_credential_approval: { connection_id: 'x-1', member_handle: 'inside', run_id: 'r', purpose: 'matrix', reason: 'matrix', request: { method: 'GET', url: 'https://example.org/' } },
      approve_oauth_authorization_request: { acting_member: 'inside', scope: 'read', spaces: null },
    };
    const QUERIES: Record<string, Record<string, unknown>> = {
      list_event_page: { since: 0 },
      list_host_event_page: { since: 0 },
      list_inbox_events: { since: 0 },
      search: { q: MARKER },
      get_repository_file: { path: 'README.md' },
    };

    /** The callers who may read what was said in `inner`: every answer to anyone else is checked for its words. */
    const readsInner = (actor: ActorName) => ['inside', 'space_host', 'space_owner', 'host_owner', 'agent', 'steward', 'grant_read', 'grant_write', 'grant_agent'].includes(actor);

    /** Operations that end the caller's own standing run last, so that every other cell sees the callers as they were. */
    const LAST = ['join_space', 'invite_member', 'leave_space', 'sign_out'];
    const operations = allOperations(() => ({})).sort((a, b) => LAST.indexOf(a.name) - LAST.indexOf(b.name));

    for (const op of operations) {
      it(`${op.name}: every caller over REST${op.notAnMcpTool ? '' : ' and MCP'}`, async () => {
        // Refusals first: they change nothing, so every refused caller sees the state the allowed ones start from.
        const order = [...ACTORS].sort((a, b) => Number(expected(op, a) === 'ok') - Number(expected(op, b) === 'ok'));
        const mismatches: string[] = [];
        for (const actor of order) {
          const want = expected(op, actor);
          // REST goes through the client generated from the contract, as a client author's code would; every answer is checked against the contract.
          const token = rest.get(actor);
          const answer = await restCall(token ? server.as(token) : server.api, op, await argumentsFor(op));
          const got = outcome(answer.status, answer.headers.get('atrium-error'));
          if (!matches(want, got)) mismatches.push(`REST ${actor}: expected ${want}, got ${got} ${JSON.stringify(answer.body)?.slice(0, 160)}`);
          if (!readsInner(actor) && JSON.stringify(answer.body ?? '').includes(MARKER)) mismatches.push(`REST ${actor}: the answer holds words said in inner`);

          if (op.notAnMcpTool) continue;
          const caller = mcp.get(actor)!;
          if (caller === 'refused') {
            // No MCP connection without a member credential (docs/mcp.md): nothing to call a tool with.
            if (!NO_MCP.has(actor)) mismatches.push(`MCP ${actor}: could not connect`);
            continue;
          }
          const result = await callTool(caller, op, await argumentsFor(op));
          const gotMcp = result.isError ? String((result.structuredContent as { code?: string } | undefined)?.code ?? 'error') : 'ok';
          if (!matchesMcp(want, gotMcp)) mismatches.push(`MCP ${actor}: expected ${want}, got ${gotMcp}`);
          if (!readsInner(actor) && JSON.stringify(result).includes(MARKER)) mismatches.push(`MCP ${actor}: the answer holds words said in inner`);
        }
        assert.deepEqual(mismatches, []);
      });
    }

    it('connects no MCP client without a usable member credential: the steward key is refused there too', () => {
      for (const actor of NO_MCP) assert.equal(mcp.get(actor), 'refused', actor);
      for (const actor of ACTORS.filter((a) => !NO_MCP.has(a))) assert.notEqual(mcp.get(actor), 'refused', actor);
    });
  });
}

/** A setting-up call that must succeed; answers its body. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function must(answer: Promise<{ status: number; body: any }>): Promise<any> {
  const { status, body } = await answer;
  assert.ok(status >= 200 && status < 300, `${status} ${JSON.stringify(body)}`);
  return body;
}

/** `ok`, or the refusal's code; other answers (404, 409, 422, 429, …) are about the data and pass authority. */
function outcome(status: number, code: string | null): string {
  if (status === 401 || status === 403) return code ?? String(status);
  return status < 400 ? 'ok' : `passed:${status}:${code ?? ''}`;
}

function matches(want: Cell, got: string): boolean {
  return want === 'ok' ? got === 'ok' || got.startsWith('passed:') || ABOUT_THE_DATA.has(got) : got === want;
}

/** An MCP tool error carries its code; a refusal of the caller is one of the codes REST would answer with 401 or 403. */
function matchesMcp(want: Cell, got: string): boolean {
  if (want === 'ok') return got === 'ok' || !REFUSALS.has(got);
  return got === want;
}

const REFUSALS = new Set([
  'credential_required',
  'token_invalid',
  'key_invalid',
  'session_required',
  'session_refused',
  'steward_key_refused',
  'steward_key_invalid',
  'member_pending',
  'member_suspended',
  'grant_read_only',
  'grant_space_excluded',
  'not_admitted',
  'role_required',
  'human_required',
  'member_required',
  'not_operator',
  'not_message_author',
  'listing_forbidden',
]);

/** One REST call through the generated client: the tool's flat arguments split into path, query and body as the contract declares them. */
async function restCall(api: ApiClient, op: AnyOperation, args: Record<string, unknown>): Promise<{ status: number; headers: Headers; body: unknown }> {
  const pathNames = new Set(Object.keys((op.params as { properties?: object } | undefined)?.properties ?? {}));
  const queryNames = new Set(Object.keys((op.query as { properties?: object } | undefined)?.properties ?? {}));
  const path: Record<string, unknown> = {};
  const query: Record<string, unknown> = {};
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) (pathNames.has(key) ? path : queryNames.has(key) ? query : body)[key] = value;
  // The loop's path and method are any of the contract's, so the client's per-path types are widened here; the calls are the generated client's own.
  const call = api.request as unknown as (method: string, url: string, init: object) => Promise<{ response: Response; data?: unknown; error?: unknown }>;
  const { response, data, error } = await call(op.method.toLowerCase(), op.path, {
    params: { path, query },
    ...(op.body ? { body } : {}),
  });
  return { status: response.status, headers: response.headers, body: data ?? error };
}

/**
 * A tool call, or the refusal of it. A `read` grant calling a tool that writes
 * is refused at the HTTP level with `insufficient_scope`, so that its client
 * can ask for more (docs/oauth.md): that is the `grant_read_only` cell.
 */
async function callTool(caller: McpCaller, op: AnyOperation, args: Record<string, unknown>): Promise<CallToolResult> {
  try {
    return await caller.call(op.name, args);
  } catch (err) {
    if ((err as { code?: unknown }).code === 403 && /grant is read-only/.test(String(err))) {
      return { isError: true, content: [], structuredContent: { code: 'grant_read_only' } };
    }
    throw err;
  }
}
