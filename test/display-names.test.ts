import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { normaliseDisplayName } from '../src/members/display-name.js';
import { hostEvents, lastCursor } from './support/events.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';
import { assertError } from './support/errors.js';

/** Names that render like "Ada Admin" (or reorder the text around them) but are not. */
const LOOK_ALIKES: Array<[string, string]> = [
  ['right-to-left override', 'Ada \u202EnimdA'],
  ['left-to-right embedding', 'Ada \u202AAdmin'],
  ['pop directional formatting', 'Ada Admin\u202C'],
  ['right-to-left isolate', 'Ada \u2067Admin\u2069'],
  ['first strong isolate', 'Ada \u2068Admin'],
  ['zero-width space', 'Ada\u200B Admin'],
  ['zero-width non-joiner', 'Ad\u200Ca Admin'],
  ['zero-width joiner', 'Ada Ad\u200Dmin'],
  ['word joiner', 'Ada\u2060 Admin'],
  ['byte-order mark inside', 'Ada \uFEFFAdmin'],
  ['soft hyphen', 'Ada Ad\u00ADmin'],
  ['tag character', 'Ada Admin\u{E0041}'],
  ['Hangul filler', 'Ada\u3164Admin'],
  ['control character (escape)', 'Ada \u001B[2JAdmin'],
  ['newline inside', 'Ada\nAdmin'],
  ['tab inside', 'Ada\tAdmin'],
  ['line separator', 'Ada\u2028Admin'],
  ['lone surrogate', 'Ada \uD800Admin'],
];

describe('normaliseDisplayName', () => {
  it('trims, composes to NFC and shows inner whitespace runs as one space', () => {
    assert.equal(normaliseDisplayName('  Ada Admin  '), 'Ada Admin');
    assert.equal(normaliseDisplayName('Ada\u00A0\u00A0Admin'), 'Ada Admin', 'no-break spaces look like a space');
    assert.equal(normaliseDisplayName('Ada\u3000Admin'), 'Ada Admin');
    assert.equal(normaliseDisplayName('Zoe\u0308'), 'Zo\u00EB', 'decomposed and composed forms are one name');
    assert.equal(normaliseDisplayName('Ada 🚀 Admin'), 'Ada 🚀 Admin');
    assert.equal(normaliseDisplayName('عليّ'), 'عليّ', 'right-to-left scripts are fine; only the control characters are refused');
  });

  it('refuses look-alike characters and blank names with a 422 naming the code point', () => {
    for (const [label, name] of LOOK_ALIKES) {
      assert.throws(
        () => normaliseDisplayName(name),
        (err: { status?: number; message?: string }) => err.status === 422 && /U\+[0-9A-F]{4,5}/.test(err.message ?? ''),
        label,
      );
    }
    assert.throws(() => normaliseDisplayName('   '), (err: { status?: number }) => err.status === 422);
  });
});

for (const backend of backends()) {
  describe(`Display names over the API (${backend})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startServer(backend, { env: { ATRIUM_OPEN_SIGNUP: 'true' } });
      await server.human('olivia');
    });
    after(() => server.stop());

    it('refuses look-alike display names in agent registration, human creation and sign-up with 422, writing nothing', async () => {
      const since = await lastCursor(server);
      for (const [label, display_name] of LOOK_ALIKES) {
        const agent = await server.request('POST', '/v0/agents', { body: { handle: 'look-bot', operator: 'olivia', display_name } });
        assertError(agent, 'validation_failed', `agent: ${label}`);
        assert.deepEqual(Object.keys(agent.body), ['detail']);
        const human = await server.request('POST', '/v0/humans', {
          token: STEWARD_KEY,
          body: { handle: 'look-human', email: 'look@example.test', display_name },
        });
        assert.equal(human.status, 422, `human: ${label}`);
        const signUp = await server.request('POST', '/v0/sign-up', { body: { handle: 'look-up', email: 'up@example.test', display_name } });
        assert.equal(signUp.status, 422, `sign-up: ${label}`);
        // The same answer whether the address is new or taken: no account enumeration through the name rule.
        const taken = await server.request('POST', '/v0/sign-up', { body: { handle: 'look-up', email: 'olivia@example.test', display_name } });
        assert.equal(taken.status, 422, `sign-up with a taken address: ${label}`);
      }
      for (const handle of ['look-bot', 'look-human', 'look-up']) {
        assert.equal((await server.request('GET', `/v0/members/${handle}`)).status, 404, handle);
      }
      assert.deepEqual(await hostEvents(server, since), []);
    });

    it('refuses whitespace-only names and stores the normalised form', async () => {
      const blank = await server.request('POST', '/v0/agents', { body: { handle: 'blank-bot', operator: 'olivia', display_name: '\u00A0 \u3000' } });
      assert.equal(blank.status, 422);
      const agent = await server.request('POST', '/v0/agents', {
        body: { handle: 'tidy-bot', operator: 'olivia', display_name: '  Tidy\u00A0\u00A0Bot ' },
      });
      assert.equal(agent.status, 201);
      assert.equal(agent.body.member.display_name, 'Tidy Bot');
      const human = await server.request('POST', '/v0/humans', {
        token: STEWARD_KEY,
        body: { handle: 'zoe', email: 'zoe@example.test', display_name: 'Zoe\u0308 ' },
      });
      assert.equal(human.status, 201);
      assert.equal(human.body.display_name, 'Zo\u00EB');
      assert.equal((await server.request('GET', '/v0/members/zoe')).body.display_name, 'Zo\u00EB');
    });

    it('keeps handles to lowercase ASCII letters, digits and single hyphens', async () => {
      for (const handle of ['ada\u200Bbot', 'ad\u0430-bot', 'ada-bot\u202E', '\uFEFFada-bot', 'ａda-bot']) {
        const agent = await server.request('POST', '/v0/agents', { body: { handle, operator: 'olivia' } });
        assert.equal(agent.status, 422, JSON.stringify(handle));
        const human = await server.request('POST', '/v0/humans', { token: STEWARD_KEY, body: { handle, email: 'h@example.test' } });
        assert.equal(human.status, 422, JSON.stringify(handle));
      }
    });
  });
}
