import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SearchPage, SearchResult } from '../src/search/schemas.js';
import { backends, startServer, type TestServer } from './support/server.js';
import { activeSpace } from './support/spaces.js';

/**
 * What a search result quotes of its record (docs/search.md, "Snippets and
 * highlights"): plain text, the Markdown's syntax gone, with highlights on
 * the words themselves, for messages, task bodies and discussion, and
 * Resources alike; and a record found by its title shows its title.
 */

/** The highlighted stretches of a result, as text. */
const marked = (result: SearchResult) => result.highlights.map(([start, end]) => Array.from(result.snippet).slice(start, end).join(''));

/** Characters of Markdown syntax the texts below use: none may reach a snippet. */
const SYNTAX = /[*_#`[\]()>|]|https?:/;

const MARKDOWN = [
  '## Espalier care',
  '',
  'Tie the **espalier** to the _south wall_ with `soft twine`; see [the espalier guide](https://guides.example/espalier-wires).',
  '',
  '> Prune in ~~spring~~ winter.',
  '',
  '| tool | use |',
  '|---|---|',
  '| secateurs | espalier shoots |',
].join('\n');

for (const backend of backends()) {
  describe(`search snippets (${backend})`, () => {
    let server: TestServer;
    let ada: { handle: string; session: string };
    const ids: { message?: number; task?: number; discussion?: number; resource?: string; long?: string } = {};

    const post = async (path: string, body: unknown) => {
      const res = await server.request('POST', path, { token: ada.session, body });
      assert.ok(res.status === 200 || res.status === 201, `${path}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body as { id: number & string };
    };
    const search = async (q: string): Promise<SearchResult[]> => {
      const res = await server.request('GET', `/v0/search?q=${encodeURIComponent(q)}`, { token: ada.session });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return (res.body as SearchPage).results;
    };
    const resultFor = (results: SearchResult[], kind: SearchResult['kind'], id: number | string | undefined) => {
      const found = results.find((r) => r.kind === kind && r.id === id);
      assert.ok(found, `${kind} ${id} among ${JSON.stringify(results)}`);
      return found;
    };

    before(async () => {
      server = await startServer(backend);
      ada = await server.human('ada');
      await activeSpace(server, ada.session, 'orchard');
      ids.message = (await post('/v0/spaces/orchard/channels/general/messages', { body: MARKDOWN })).id;
      ids.task = (await post('/v0/spaces/orchard/tasks', { kind: 'general', title: 'Wire the wall', body: MARKDOWN })).id;
      ids.discussion = (await post(`/v0/spaces/orchard/tasks/${ids.task}/messages`, { body: MARKDOWN })).id;
      ids.resource = (await post('/v0/spaces/orchard/resources', { name: 'Orchard notes', content: MARKDOWN })).id;
      // Almost a megabyte: its name holds a word its text holds too, at the very end.
      const filler = 'Rows of apple trees along the lane, mulched in autumn.\n\n'.repeat(18_500);
      ids.long = (await post('/v0/spaces/orchard/resources', { name: 'Quince ledger', content: `${filler}The quince went in last.\n` })).id;
    });
    after(() => server.stop());

    it('quotes the plain text of messages, task bodies and discussion, and Resources, highlighting the words', async () => {
      const results = await search('espalier');
      for (const [kind, id] of [
        ['message', ids.message],
        ['message', ids.discussion],
        ['task', ids.task],
        ['resource', ids.resource],
      ] as const) {
        const result = resultFor(results, kind, id);
        assert.doesNotMatch(result.snippet, SYNTAX, `${kind} ${id}: ${result.snippet}`);
        assert.ok(result.snippet.startsWith('Espalier care Tie the espalier to the south wall with soft twine; see the espalier guide.'), result.snippet);
        assert.deepEqual(marked(result), ['Espalier', 'espalier', 'espalier', 'espalier'], `${kind} ${id}`);
      }
    });

    it('highlights a phrase where its words stand together in the plain text, not in the syntax between them', async () => {
      const result = resultFor(await search('"south wall" secateurs'), 'message', ids.message);
      assert.doesNotMatch(result.snippet, SYNTAX, result.snippet);
      assert.deepEqual(marked(result), ['south', 'wall', 'secateurs']);
    });

    it("does not show a link's URL, so it is never highlighted, though the record is found by it", async () => {
      const result = resultFor(await search('wires'), 'message', ids.message);
      assert.ok(!result.snippet.includes('wires'), result.snippet);
      assert.deepEqual(result.highlights, []);
    });

    it('shows the title of a record found by its title, without reading its text', async () => {
      // The text holds the word too, after a megabyte of other words: read, it would be the snippet.
      const long = resultFor(await search('quince'), 'resource', ids.long);
      assert.equal(long.snippet, 'Quince ledger');
      assert.deepEqual(marked(long), ['Quince']);
      const task = resultFor(await search('wall'), 'task', ids.task);
      assert.equal(task.snippet, 'Wire the wall');
      assert.deepEqual(marked(task), ['wall']);
    });

    it('quotes the text when the title does not hold every word', async () => {
      const task = resultFor(await search('wall secateurs'), 'task', ids.task);
      assert.doesNotMatch(task.snippet, SYNTAX, task.snippet);
      assert.deepEqual(marked(task), ['wall', 'secateurs']);
      const long = resultFor(await search('apple ledger'), 'resource', ids.long);
      assert.ok(long.snippet.startsWith('Rows of apple trees along the lane'), long.snippet);
      assert.ok(long.snippet.endsWith('…'), long.snippet);
      assert.deepEqual(marked(long)[0], 'apple');
    });
  });
}
