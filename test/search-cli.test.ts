import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertRefusal, CliRunner } from './support/cli.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';

/** `atrium search` run as a child process against a real server (docs/cli.md, "Search"). */
for (const backend of backends()) {
  describe(`atrium search (${backend})`, () => {
    let server: TestServer;
    let cli: CliRunner;
    let ada: { handle: string; session: string };

    before(async () => {
      server = await startServer(backend);
      ada = await server.human('ada');
      const owner = await server.human('olga', { role: 'owner' });
      assert.equal((await server.request('POST', '/v0/spaces', { token: owner.session, body: { slug: 'orchard', name: 'Orchard' } })).status, 201);
      assert.equal((await server.request('POST', '/v0/spaces/orchard/approve', { token: STEWARD_KEY })).status, 200);
      assert.equal((await server.request('POST', '/v0/spaces/orchard/join', { token: ada.session })).status, 200);
      for (let n = 1; n <= 3; n += 1) {
        const body = n === 2 ? 'The trellis \x1b[31mon\x1b[0m the south wall needs 🌱 new wire' : `Trellis note ${n}: plums ripen late`;
        assert.equal((await server.request('POST', '/v0/spaces/orchard/channels/general/messages', { token: ada.session, body: { body } })).status, 201);
      }
      assert.equal(
        (await server.request('POST', '/v0/spaces/orchard/tasks', { token: ada.session, body: { kind: 'general', title: 'Mend the trellis', body: 'Before spring.' } })).status,
        201,
      );
      cli = new CliRunner(server.url);
    });
    after(async () => {
      await cli.cleanup();
      await server.stop();
    });

    it('prints each result with where it lives and its snippet, and the cursor of the next page', async () => {
      const first = await cli.run(['search', 'trellis', 'kind:message', '--limit', '2']);
      assert.equal(first.code, 0, first.stderr);
      const lines = first.stdout.trimEnd().split('\n');
      // Two results of two lines each (messages have no title), then the next page's cursor.
      assert.equal(lines.length, 5, first.stdout);
      assert.match(lines[0]!, /^message \d+ {2}orchard #general {2}ada {2}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.ok(!first.stdout.includes('\u001b'), 'no escape sequence reaches a pipe');
      const cursor = /^More: add --cursor (\S+)$/.exec(lines[4]!)?.[1];
      assert.ok(cursor, lines[4]);

      const second = await cli.run(['search', 'trellis', 'kind:message', '--limit', '2', '--cursor', cursor]);
      assert.equal(second.code, 0, second.stderr);
      assert.equal(second.stdout.trimEnd().split('\n').length, 2, 'the third message, and no further cursor');
      const ids = [...`${first.stdout}${second.stdout}`.matchAll(/^message (\d+) /gm)].map((m) => Number(m[1]));
      assert.equal(new Set(ids).size, 3, 'three distinct messages over two pages');

      const wire = await cli.run(['search', '"south wall"']);
      assert.equal(wire.code, 0, wire.stderr);
      // A snippet is one line of plain text: the host already shows control characters as spaces.
      assert.match(wire.stdout, /\n {2}The trellis \[31mon \[0m the south wall needs 🌱 new wire\n/);
    });

    it('shows a task with its title, --json prints the page as sent, and an empty search says so', async () => {
      const task = await cli.run(['search', 'mend', '--kind', 'task']);
      assert.equal(task.code, 0, task.stderr);
      assert.match(task.stdout, /^task {2}orchard task \d+ {2}ada {2}\S+\n {2}Mend the trellis\n$/, 'found by its title, which is not printed twice');

      const json = await cli.run(['search', 'plums', '--json', '--newest']);
      assert.equal(json.code, 0, json.stderr);
      const page = JSON.parse(json.stdout) as { results: Array<{ kind: string; snippet: string; highlights: number[][] }>; next_cursor: string | null };
      assert.equal(page.results.length, 2);
      for (const result of page.results) {
        const [start, end] = result.highlights[0]!;
        assert.equal(Array.from(result.snippet).slice(start, end).join('').toLowerCase(), 'plums');
      }
      assert.equal(page.next_cursor, null);

      const none = await cli.run(['search', 'quince']);
      assert.equal(none.code, 0, none.stderr);
      assert.equal(none.stdout, 'Nothing found.\n');
    });

    it('reports a query the host refuses with its code and exit status 1', async () => {
      const refused = await cli.run(['search', 'kind:fruit']);
      assert.equal(assertRefusal(refused, 422), 'search_query_invalid');
      const unknown = await cli.run(['search', 'trellis', 'in:nowhere']);
      assert.equal(assertRefusal(unknown, 422), 'search_query_invalid');
    });
  });
}
