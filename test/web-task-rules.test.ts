import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { allowedMoves, principalOf, type Member, type Standing, type Task, type TaskMove, type TaskStatus } from '../web/src/tasks/rules.js';
import { seedAgent } from './support/seed.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';

// The web app offers a task move only when web/src/tasks/rules.ts says the
// server would allow it. That file repeats the server's rules, so this test
// holds the copy to the original: for every state, reader and move, it asks a
// real server whether the move succeeds and checks that the rules predicted it.

const STATES: TaskStatus[] = ['open', 'claimed', 'submitted', 'completed', 'cancelled'];
const MOVES: TaskMove[] = ['claim', 'release', 'submit', 'complete', 'reopen', 'cancel'];
/** The host-wide Owner, the task's creator and claimant, the claimant's agent, another member, someone who never joined. */
const READERS = ['olga', 'cleo', 'carl', 'carl-bot', 'otto', 'nina'] as const;
type Reader = (typeof READERS)[number];

/** An open Space that accepts any other member as reviewer, and an on-request one that needs a different principal. */
const SPACES = [
  { slug: 'open-tasks', join_policy: 'open', review_policy: 'distinct_member' },
  { slug: 'request-tasks', join_policy: 'request', review_policy: 'independent_principal' },
] as const;

for (const backend of backends()) {
  describe(`the web app's task rules agree with the server (${backend})`, () => {
    let server: TestServer;
    const tokens = {} as Record<Reader, string>;
    const records = new Map<string, Member>();

    const post = (path: string, token: string, body?: unknown) => server.request('POST', path, { token, ...(body !== undefined ? { body } : {}) });
    const ok = async (path: string, token: string, body?: unknown) => {
      const res = await post(path, token, body);
      assert.ok(res.status >= 200 && res.status < 300, `${path}: ${res.status} ${res.body?.detail}`);
      return res.body;
    };
    const record = async (handle: string): Promise<Member> => {
      const known = records.get(handle);
      if (known) return known;
      const res = await server.request('GET', `/v0/members/${handle}`, { token: tokens.olga });
      assert.equal(res.status, 200, res.body?.detail);
      records.set(handle, res.body);
      return res.body;
    };
    /** As the web app works it out: the member's public record and, for an agent, its operator's. */
    const principal = async (handle: string) => {
      const member = await record(handle);
      const operator = member.type === 'agent' && member.operator ? await record(member.operator) : null;
      return principalOf(member, operator);
    };
    /** As useStanding reads it: the reader's own memberships and role assignments. */
    const standing = async (reader: Reader, slug: string): Promise<Standing> => {
      const memberships = await server.request('GET', '/v0/me/memberships', { token: tokens[reader] });
      const roles = await server.request('GET', '/v0/me/role-assignments', { token: tokens[reader] });
      assert.equal(memberships.status, 200);
      assert.equal(roles.status, 200);
      return {
        me: { handle: reader },
        membership: memberships.body.memberships.find((m: { space: string }) => m.space === slug)?.state ?? 'none',
        ownerOrHost: roles.body.role_assignments.some(
          (r: { role: string; space: string | null }) => (r.role === 'owner' || r.role === 'host') && (r.space === null || r.space === slug),
        ),
      };
    };

    /** A new task of `kind`, created by cleo, brought to `state` by the moves people make. */
    const taskIn = async (slug: string, kind: string, state: TaskStatus): Promise<Task> => {
      const base = `/v0/spaces/${slug}/tasks`;
      let task: Task = await ok(base, tokens.cleo, { kind, title: `${kind}, ${state}` });
      const steps: Array<[TaskMove, Reader]> = {
        open: [],
        claimed: [['claim', 'carl']],
        submitted: [
          ['claim', 'carl'],
          ['submit', 'carl'],
        ],
        completed: [
          ['claim', 'carl'],
          ['submit', 'carl'],
          ['complete', 'olga'],
        ],
        cancelled: [['cancel', 'cleo']],
      }[state] as Array<[TaskMove, Reader]>;
      for (const [move, by] of steps) task = await ok(`${base}/${task.id}/${move}`, tokens[by]);
      assert.equal(task.status, state);
      return task;
    };

    before(async () => {
      server = await startServer(backend);
      tokens.olga = (await server.human('olga', { role: 'owner' })).session;
      for (const human of ['cleo', 'carl', 'otto', 'nina'] as const) tokens[human] = (await server.human(human)).session;
      tokens['carl-bot'] = (await seedAgent(server, 'carl-bot', 'carl', 'active')).key;
      for (const space of SPACES) {
        await ok('/v0/spaces', tokens.olga, { slug: space.slug, name: space.slug, join_policy: space.join_policy });
        await ok(`/v0/spaces/${space.slug}/approve`, STEWARD_KEY);
        await ok(`/v0/spaces/${space.slug}/review-policy`, tokens.olga, { review_policy: space.review_policy, reason: 'the rules test' });
        // The agent and nina never join: in the open Space they may act all the same, in the other not.
        for (const member of ['cleo', 'carl', 'otto'] as const) {
          await ok(`/v0/spaces/${space.slug}/join`, tokens[member]);
          if (space.join_policy === 'request') await ok(`/v0/spaces/${space.slug}/join-requests/${member}/admit`, tokens.olga);
        }
      }
    });

    after(async () => {
      await server?.stop();
    });

    for (const { slug } of SPACES) {
      it(`predicts every move of every reader in every state (${slug})`, async () => {
        const space = (await server.request('GET', `/v0/spaces/${slug}`)).body;
        const wrong: string[] = [];
        // Every state and move for a general task; merge tasks (always a different principal) for completion.
        const cases: Array<{ kind: string; state: TaskStatus; moves: TaskMove[] }> = [
          ...STATES.map((state) => ({ kind: 'general', state, moves: MOVES })),
          { kind: 'merge', state: 'submitted', moves: ['complete'] },
        ];
        let allowed = 0;
        for (const { kind, state, moves } of cases) {
          // A refused move changes nothing, so the refusals share one task; an allowed move gets its own.
          let shared = await taskIn(slug, kind, state);
          for (const reader of READERS) {
            const seen = await standing(reader, slug);
            for (const move of moves) {
              const principals = { worker: shared.claimant ? await principal(shared.claimant) : null, reader: await principal(reader), known: true };
              const predicted = allowedMoves(shared, space, seen, principals).has(move);
              const task = predicted ? await taskIn(slug, kind, state) : shared;
              const res = await post(`/v0/spaces/${slug}/tasks/${task.id}/${move}`, tokens[reader]);
              if ((res.status === 200) !== predicted) {
                wrong.push(`${kind} task ${state}, ${reader} ${move}: rules say ${predicted ? 'allowed' : 'refused'}, the server answered ${res.status}`);
              }
              if (predicted) allowed += 1;
              else if (res.status === 200) shared = await taskIn(slug, kind, state);
            }
          }
        }
        assert.deepEqual(wrong, []);
        assert.ok(allowed > 10, 'the cases include moves the rules allow');
      });
    }
  });
}
