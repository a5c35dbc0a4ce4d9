import assert from 'node:assert/strict';
import { STEWARD_KEY, type TestServer } from './server.js';

/** Proposes a Space as `proposer` (a session token) and approves it with the steward key. */
export async function activeSpace(
  server: TestServer,
  proposer: string,
  slug: string,
  join_policy: 'open' | 'request' | 'invite' = 'open',
): Promise<void> {
  const proposed = await server.request('POST', '/v0/spaces', { token: proposer, body: { slug, name: slug, join_policy } });
  assert.equal(proposed.status, 201, `propose ${slug}`);
  const approved = await server.request('POST', `/v0/spaces/${slug}/approve`, { token: STEWARD_KEY });
  assert.equal(approved.status, 200, `approve ${slug}`);
}

/** Each credential joins the Space (an open one): the usual start of a conversation test. */
export async function joinAll(server: TestServer, slug: string, tokens: readonly string[]): Promise<void> {
  for (const token of tokens) {
    const joined = await server.request('POST', `/v0/spaces/${slug}/join`, { token });
    assert.equal(joined.status, 200, `join ${slug}`);
  }
}
