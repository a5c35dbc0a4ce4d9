import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery, createQueryId, sql, type Kysely, type KyselyPlugin, type RootOperationNode } from 'kysely';
import type { EventStore, FeedRead } from '../src/events/feed.js';
import { readInbox } from '../src/inbox/service.js';
import { getMember } from '../src/members/service.js';
import { NO_WAITING } from '../src/operations/waits.js';
import type { DatabaseSchema } from '../src/storage/schema.js';
import { backends, startServer, type Backend, type TestServer } from './support/server.js';
import { activeSpace } from './support/spaces.js';

/**
 * What a feed read costs as the log grows (docs/operations.md, "Capacity: costs as data
 * grows"): a member's page finds the direct messages addressed to them through
 * an index by member, never by reading the audience of every direct message on
 * the host, which would cost more with every one ever sent.
 */
for (const backend of backends()) {
  describe(`Feed read costs (${backend})`, () => {
    let server: TestServer;

    before(async () => {
      server = await startServer(backend);
      const alice = await server.human('cost-alice');
      const bob = await server.human('cost-bob');
      await activeSpace(server, alice.session, 'costs');
      for (const [from, to] of [
        [alice, bob],
        [bob, alice],
      ] as const) {
        const sent = await server.request('POST', '/v0/spaces/costs/direct-messages', { token: from.session, body: { to: to.handle, body: 'just between us' } });
        assert.equal(sent.status, 201);
      }
      for (const body of ['@cost-bob first', '@cost-bob second']) {
        const posted = await server.request('POST', '/v0/spaces/costs/channels/general/messages', { token: alice.session, body: { body } });
        assert.equal(posted.status, 201, JSON.stringify(posted.body));
      }
    });
    after(() => server.stop());

    it("reads a member's audience rows through an index by member", async () => {
      const db = server.app.ctx.db.kysely;
      const plan = await db.transaction().execute(async (trx) => {
        if (backend === 'sqlite') {
          return (await sql<{ detail: string }>`explain query plan select cursor from event_audience where member = ${'cost-bob'}`.execute(trx)).rows.map((r) => r.detail);
        }
        // A handful of rows is cheaper to read whole; the planner is asked what it would use once there are many.
        await sql`set local enable_seqscan = off`.execute(trx);
        return (await sql<{ 'QUERY PLAN': string }>`explain select cursor from event_audience where member = ${'cost-bob'}`.execute(trx)).rows.map((r) => r['QUERY PLAN']);
      });
      const text = plan.join('\n');
      assert.match(text, /event_audience_member_idx/, text);
      assert.match(text, backend === 'sqlite' ? /SEARCH event_audience USING COVERING INDEX event_audience_member_idx \(member=\?\)/ : /Index Cond: \(member = /, text);
    });

    // An inbox page costs a page. Joined to the log, a planner that expects a member's mentions
    // spread through it may walk the log from one end to meet them: for mentions far behind the
    // head, the whole log. Taking the mentions as a list first (`cursor in (select …)` on SQLite)
    // costs every mention after `since`.
    for (const [name, read, walk] of [
      ['a page after since', { since: 0, limit: 1 }, { index: /cursor > /, sqlite: /cursor>\?/, backward: false }],
      ['the newest page', { since: 0, limit: 1, newest: 1 }, { index: /cursor <= /, sqlite: /cursor<\?/, backward: true }],
    ] as const) {
      it(`reads ${name} of an inbox by walking the member's mentions by their key, a page at a time`, async () => {
        const db = server.app.ctx.db.kysely;
        const bob = { kind: 'member' as const, member: await getMember(db, 'cost-bob'), credential: { type: 'session' as const, id: 'costs' } };
        const statements = await statementsOf(db, async (recorded) => {
          const store: EventStore = { kysely: recorded, dialect: server.app.ctx.db.dialect };
          const answer = await readInbox(store, server.app.ctx.events.tail, bob, read satisfies FeedRead, NO_WAITING);
          assert.equal(answer.page.events.length, 1);
        });
        // The page is the last statement a read sends; before it come the reader's access checks.
        const page = statements.at(-1)!;
        assert.match(page.sql, /limit/, page.sql);
        if (backend === 'sqlite') {
          const plan = await planOf(backend, db, page);
          const text = plan.join('\n');
          assert.match(plan[0]!, /^SEARCH event_subjects USING COVERING INDEX sqlite_autoindex_event_subjects_1 \(subject=\? AND /, text);
          assert.match(plan[0]!, walk.sqlite, text);
          assert.match(plan[1]!, /^SEARCH events USING INTEGER PRIMARY KEY \(rowid=\?\)$/, text);
          assert.doesNotMatch(text, /TEMP B-TREE|LIST SUBQUERY \d+\n.*event_subjects/, text);
          return;
        }
        // Also with a nested loop priced as high as the planner can price it: at one size PostgreSQL
        // chose to merge with the log, so the walk must not be a choice its estimates could undo.
        for (const settings of [[], ['enable_nestloop = off']]) {
          const plan = await planOf(backend, db, page, settings);
          const text = plan.join('\n');
          const scan = planNodes(plan).find((node) => /Index (Only )?Scan (Backward )?using event_subjects_pk on event_subjects/.test(node.text));
          assert.ok(scan?.parent, text);
          assert.equal(/ Backward /.test(scan.text), walk.backward, text);
          assert.match(scan.details.join('\n'), walk.index, text);
          // The mentions are the outer loop, each event looked up by its key.
          assert.match(scan.parent.text, /^Nested Loop/, text);
          assert.equal(scan.parent.children[0], scan, text);
          assert.match(text, /Index Scan using events_pkey on events[\s\S]*Index Cond: \(cursor = event_subjects\.cursor\)/, text);
          // Nothing between the walk and the limit gathers rows before handing them on.
          const above = ancestors(scan);
          assert.match(above.at(-1)!.text, /^Limit/, text);
          assert.ok(!above.some((node) => /^(Sort|Incremental Sort|Materialize|Hash|Merge)/.test(node.text)), text);
        }
      });
    }
  });
}

/** The statements `read` sends through the Kysely it is handed, as the database receives them. */
async function statementsOf(db: Kysely<DatabaseSchema>, read: (recorded: Kysely<DatabaseSchema>) => Promise<void>): Promise<CompiledQuery[]> {
  const sent: RootOperationNode[] = [];
  const recorder: KyselyPlugin = {
    transformQuery: ({ node }) => {
      sent.push(node);
      return node;
    },
    transformResult: ({ result }) => Promise.resolve(result),
  };
  await read(db.withPlugin(recorder));
  const compiler = db.getExecutor().withoutPlugins();
  return sent.map((node) => compiler.compileQuery(node, createQueryId()));
}

/** The plan each database would follow for `statement`, a line a step. */
async function planOf(backend: Backend, db: Kysely<DatabaseSchema>, statement: CompiledQuery, settings: readonly string[] = []): Promise<string[]> {
  if (backend === 'sqlite') {
    const rows = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${statement.sql}`, [...statement.parameters]));
    return rows.rows.map((row) => row.detail);
  }
  return db.transaction().execute(async (trx) => {
    // A handful of rows is cheaper to read whole; the planner is asked what it would use once there are many.
    await sql`set local enable_seqscan = off`.execute(trx);
    for (const setting of settings) await sql.raw(`set local ${setting}`).execute(trx);
    const rows = await trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${statement.sql}`, [...statement.parameters]));
    return rows.rows.map((row) => row['QUERY PLAN']);
  });
}

interface PlanNode {
  text: string;
  details: string[];
  parent?: PlanNode;
  children: PlanNode[];
}

/** PostgreSQL's text plan as nodes, each under the nearest node above it indented less. */
function planNodes(lines: string[]): PlanNode[] {
  const nodes: PlanNode[] = [];
  const open: Array<{ node: PlanNode; column: number }> = [];
  for (const line of lines) {
    const arrow = line.indexOf('->  ');
    const isNode = nodes.length === 0 || arrow >= 0;
    if (!isNode) {
      open.at(-1)?.node.details.push(line.trim());
      continue;
    }
    const column = nodes.length === 0 ? -1 : arrow;
    while (open.length > 0 && open.at(-1)!.column >= column) open.pop();
    const parent = open.at(-1)?.node;
    const node: PlanNode = { text: (arrow >= 0 ? line.slice(arrow + 4) : line).trim(), details: [], ...(parent ? { parent } : {}), children: [] };
    parent?.children.push(node);
    nodes.push(node);
    open.push({ node, column });
  }
  return nodes;
}

function ancestors(node: PlanNode): PlanNode[] {
  const above: PlanNode[] = [];
  for (let at = node.parent; at; at = at.parent) above.push(at);
  return above;
}
