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
