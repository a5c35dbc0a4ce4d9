import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hostEvents } from './support/events.js';
import { rowCounts, seedAgent } from './support/seed.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';
import { assertError } from './support/errors.js';

type Assurance = 'independent_principal' | 'distinct_member' | 'self_attested';
const POLICIES: Assurance[] = ['independent_principal', 'distinct_member', 'self_attested'];
const KINDS = ['general', 'evidence', 'merge', 'production'] as const;
const STRENGTH: Record<Assurance, number> = { self_attested: 0, distinct_member: 1, independent_principal: 2 };

/**
 * The cast: two humans (ada, bob), ada's two agents, bob's agent. A human is its
 * own accountable principal; an agent's is its operator (protocol: Tasks).
 */
const PRINCIPAL: Record<string, string> = { ada: 'ada', bob: 'bob', 'ada-bot': 'ada', 'ada-bot-2': 'ada', 'bob-bot': 'bob' };

/** (worker, completer) pairs and the assurance that actually holds between them. */
const PAIRS: Array<{ worker: string; completer: string; holds: Assurance; note: string }> = [
  { worker: 'ada', completer: 'ada', holds: 'self_attested', note: 'a human completing their own work' },
  { worker: 'ada-bot', completer: 'ada-bot', holds: 'self_attested', note: 'an agent completing its own work' },
  { worker: 'ada', completer: 'ada-bot', holds: 'distinct_member', note: "an agent completing its operator's work" },
  { worker: 'ada-bot', completer: 'ada', holds: 'distinct_member', note: "a human completing their own agent's work" },
  { worker: 'ada-bot', completer: 'ada-bot-2', holds: 'distinct_member', note: 'two agents of one operator' },
  { worker: 'ada', completer: 'bob', holds: 'independent_principal', note: 'two humans' },
  { worker: 'ada-bot', completer: 'bob', holds: 'independent_principal', note: "another human completing an agent's work" },
  { worker: 'ada', completer: 'bob-bot', holds: 'independent_principal', note: "another human's agent completing a human's work" },
  { worker: 'ada-bot', completer: 'bob-bot', holds: 'independent_principal', note: 'agents of different operators' },
];

function required(kind: (typeof KINDS)[number], policy: Assurance): Assurance {
  return kind === 'merge' || kind === 'production' ? 'independent_principal' : policy;
}

/** protocol: Tasks (provenance) and the Space `review_policy`: who may complete, and what is recorded. */
for (const backend of backends()) {
  describe(`task completion provenance (${backend})`, () => {
    let server: TestServer;
    let owner: { handle: string; session: string };
    const tokens: Record<string, string> = {};
    /** One Space per review policy, each set through the review-policy endpoint. */
    const spaceFor = (policy: Assurance) => `rp-${policy.replace(/_/g, '-')}`;

    const post = (path: string, token: string, body?: unknown) => server.request('POST', path, { token, ...(body !== undefined ? { body } : {}) });
    const setPolicy = async (slug: string, policy: Assurance) => {
      const res = await post(`/v0/spaces/${slug}/review-policy`, owner.session, { review_policy: policy, reason: 'provenance test' });
      assert.equal(res.status, 200, res.body?.detail);
      assert.equal(res.body.review_policy, policy);
    };
    /** A task of `kind` that `worker` has claimed and submitted; returns its id. */
    const submitted = async (slug: string, kind: string, worker: string): Promise<number> => {
      const created = await post(`/v0/spaces/${slug}/tasks`, owner.session, { kind, title: `${kind} by ${worker}` });
      assert.equal(created.status, 201, created.body?.detail);
      const id: number = created.body.id;
      for (const verb of ['claim', 'submit']) {
        const res = await post(`/v0/spaces/${slug}/tasks/${id}/${verb}`, tokens[worker]!);
        assert.equal(res.status, 200, res.body?.detail);
      }
      return id;
    };
    const complete = (slug: string, id: number, completer: string) => post(`/v0/spaces/${slug}/tasks/${id}/complete`, tokens[completer]!);

    before(async () => {
      server = await startServer(backend);
      owner = await server.human('olga', { role: 'owner' });
      for (const human of ['ada', 'bob']) tokens[human] = (await server.human(human)).session;
      for (const [agent, operator] of [
        ['ada-bot', 'ada'],
        ['ada-bot-2', 'ada'],
        ['bob-bot', 'bob'],
      ] as const) {
        tokens[agent] = (await seedAgent(server, agent, operator, 'active')).key;
      }
      for (const policy of POLICIES) {
        const slug = spaceFor(policy);
        assert.equal((await post('/v0/spaces', owner.session, { slug, name: `Policy ${policy}` })).status, 201);
        assert.equal((await post(`/v0/spaces/${slug}/approve`, STEWARD_KEY)).status, 200);
        // New Spaces start independent_principal; setting it again is a no-op, which is fine.
        await setPolicy(slug, policy);
      }
    });
    after(() => server.stop());

    it('decides every kind × review policy × (worker, completer) pair and records what actually held', async () => {
      for (const policy of POLICIES) {
        const slug = spaceFor(policy);
        for (const kind of KINDS) {
          for (const pair of PAIRS) {
            const label = `${kind} in a ${policy} Space, ${pair.note} (${pair.worker} → ${pair.completer})`;
            const id = await submitted(slug, kind, pair.worker);
            const need = required(kind, policy);
            const allowed = STRENGTH[pair.holds] >= STRENGTH[need];
            const since = await headCursor(server);
            const res = await complete(slug, id, pair.completer);
            const events = await hostEvents(server, since);
            if (!allowed) {
              assertError(res, 'provenance_insufficient', label);
              // The detail names which rule refused: the kind's own, or the Space's review policy.
              assert.match(
                res.body.detail,
                kind === 'merge' || kind === 'production'
                  ? new RegExp(`^${kind} tasks always need a completer whose accountable principal differs from the worker's`)
                  : new RegExp(`^Space ${slug} has review policy ${policy}`),
                label,
              );
              assert.deepEqual(events, [], `${label}: a refused completion emits nothing`);
              const task = (await server.request('GET', `/v0/spaces/${slug}/tasks/${id}`)).body;
              assert.equal(task.status, 'submitted', label);
              assert.equal(task.completion, null, label);
              continue;
            }
            assert.equal(res.status, 200, `${label}: ${res.body?.detail}`);
            const provenance = {
              worker: pair.worker,
              worker_principal: PRINCIPAL[pair.worker],
              completer: pair.completer,
              completer_principal: PRINCIPAL[pair.completer],
              assurance: pair.holds,
              required_assurance: need,
            };
            assert.equal(res.body.status, 'completed', label);
            assert.deepEqual({ ...res.body.completion, completed_ts: undefined }, { ...provenance, completed_ts: undefined }, label);
            assert.deepEqual(
              events.map((e) => [e.type, e.actor, e.payload]),
              [['task_completed', pair.completer, { id, kind, ...provenance }]],
              label,
            );
          }
        }
      }
    });

    it("never lets a human's agent complete what needs a different principal, nor the human their agent's", async () => {
      const slug = spaceFor('self_attested');
      // Even where the policy lets anyone complete their own evidence, merge work needs another principal.
      const merge = await submitted(slug, 'merge', 'ada');
      const byAgent = await complete(slug, merge, 'ada-bot');
      assertError(byAgent, 'provenance_insufficient');
      // The detail names both accountable principals and who could complete the task instead.
      assert.equal(
        byAgent.body.detail,
        "merge tasks always need a completer whose accountable principal differs from the worker's: " +
          'ada-bot (accountable principal ada) cannot complete work by ada; both answer to the same accountable principal. ' +
          'Who could complete it: another human, or an agent whose confirmed operator is someone else. ' +
          'No review policy changes this for merge tasks.',
      );
      // A lone owner whose own agent did evidence work is told both ways forward.
      const evidenceSlug = spaceFor('independent_principal');
      const evidence = await submitted(evidenceSlug, 'evidence', 'ada-bot');
      const lone = await complete(evidenceSlug, evidence, 'ada');
      assertError(lone, 'provenance_insufficient');
      // The instruction is the point: who could complete it, and the command that changes the policy.
      assert.match(lone.body.detail, new RegExp(`^Space ${evidenceSlug} has review policy independent_principal`));
      assert.match(lone.body.detail, /Who could complete it: another human, or an agent whose confirmed operator is someone else\./);
      assert.match(lone.body.detail, new RegExp(`atrium spaces review-policy ${evidenceSlug} POLICY --reason TEXT\` \\(after \`atrium sign-in\`\\)`));
      const production = await submitted(slug, 'production', 'ada-bot');
      const byOperator = await complete(slug, production, 'ada');
      assertError(byOperator, 'provenance_insufficient');
      // The detail names the accountable principal both share.
      assert.match(byOperator.body.detail, /ada cannot complete work by ada-bot \(accountable principal ada\)/);
      // Another principal's agent may.
      const done = await complete(slug, merge, 'bob-bot');
      assert.equal(done.status, 200);
      assert.equal(done.body.completion.assurance, 'independent_principal');
    });

    it('records a permitted self-completion as self_attested, never as independent review', async () => {
      const slug = spaceFor('self_attested');
      const id = await submitted(slug, 'evidence', 'bob');
      const res = await complete(slug, id, 'bob');
      assert.equal(res.status, 200);
      assert.equal(res.body.completion.assurance, 'self_attested');
      assert.equal(res.body.completion.required_assurance, 'self_attested');
      assert.equal(res.body.completion.worker, res.body.completion.completer);
    });

    it('applies the review policy in force at completion, not at submission', async () => {
      await post('/v0/spaces', owner.session, { slug: 'shifting', name: 'Shifting policy' });
      assert.equal((await post('/v0/spaces/shifting/approve', STEWARD_KEY)).status, 200);
      await setPolicy('shifting', 'self_attested');
      const id = await submitted('shifting', 'evidence', 'ada');
      await setPolicy('shifting', 'independent_principal');
      const before = await rowCounts(server);
      const refused = await complete('shifting', id, 'ada');
      assertError(refused, 'provenance_insufficient');
      // The detail names the policy in force now, not the one at submission.
      assert.match(refused.body.detail, /review policy independent_principal, so the completer's accountable principal must differ/);
      assert.deepEqual(await rowCounts(server), before);
      await setPolicy('shifting', 'distinct_member');
      const byAgent = await complete('shifting', id, 'ada-bot');
      assert.equal(byAgent.status, 200);
      assert.equal(byAgent.body.completion.assurance, 'distinct_member');
      assert.equal(byAgent.body.completion.required_assurance, 'distinct_member');
    });

    it('keeps provenance across reopen only in the event log, and records the new completion afresh', async () => {
      const slug = spaceFor('independent_principal');
      const id = await submitted(slug, 'general', 'ada');
      assert.equal((await complete(slug, id, 'bob')).status, 200);
      const reopened = await post(`/v0/spaces/${slug}/tasks/${id}/reopen`, owner.session);
      assert.equal(reopened.status, 200);
      assert.equal(reopened.body.completion, null);
      for (const verb of ['claim', 'submit']) assert.equal((await post(`/v0/spaces/${slug}/tasks/${id}/${verb}`, tokens['bob-bot']!)).status, 200);
      const again = await complete(slug, id, 'ada-bot');
      assert.equal(again.status, 200);
      assert.deepEqual(
        [again.body.completion.worker, again.body.completion.completer, again.body.completion.assurance],
        ['bob-bot', 'ada-bot', 'independent_principal'],
      );
      const feed = await server.request('GET', `/v0/spaces/${slug}/events?limit=500`);
      const completions = feed.body.events.filter((e: { type: string; payload: { id: number } }) => e.type === 'task_completed' && e.payload.id === id);
      assert.deepEqual(
        completions.map((e: { payload: { worker: string; completer: string } }) => [e.payload.worker, e.payload.completer]),
        [
          ['ada', 'bob'],
          ['bob-bot', 'ada-bot'],
        ],
      );
    });

    it("treats an agent whose operator is not a registered human as having no principal that could differ", async () => {
      tokens['legacy-bot'] = (await seedAgent(server, 'legacy-bot', 'someone@example.com', 'active')).key;
      const strict = spaceFor('independent_principal');
      const id = await submitted(strict, 'evidence', 'legacy-bot');
      const refused = await complete(strict, id, 'bob');
      assertError(refused, 'provenance_insufficient');
      // The detail says the worker's principal is unknown, which the code does not carry.
      assert.match(refused.body.detail, /legacy-bot \(accountable principal unknown\)/);
      assert.match(refused.body.detail, /has no principal that could differ/);
      const lenient = spaceFor('distinct_member');
      const other = await submitted(lenient, 'evidence', 'legacy-bot');
      const done = await complete(lenient, other, 'bob');
      assert.equal(done.status, 200);
      assert.equal(done.body.completion.worker_principal, null);
      assert.equal(done.body.completion.assurance, 'distinct_member');
    });
  });
}

/** The newest cursor on the host, read from the log itself (a feed page stops at 500 events). */
async function headCursor(server: TestServer): Promise<number> {
  const row = await server.app.ctx.db.kysely.selectFrom('events').select((eb) => eb.fn.max('cursor').as('head')).executeTakeFirst();
  return Number(row?.head ?? 0);
}
