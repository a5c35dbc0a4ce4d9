import assert from 'node:assert/strict';
import type { AtriumEvent } from '../../src/events/types.js';
import { STEWARD_KEY, type Schemas, type TestServer } from './server.js';

export type FeedEvent = AtriumEvent;

/** The host-wide feed (protocol: Feeds), read with the steward key. */
export async function hostEvents(server: TestServer, since = 0): Promise<FeedEvent[]> {
  const page = await server.request('GET', `/v0/events?since=${since}&limit=500`, { token: STEWARD_KEY });
  assert.equal(page.status, 200);
  return page.body.events;
}

/** The newest cursor now, so a test can read only what its own action emitted. */
export async function lastCursor(server: TestServer): Promise<number> {
  const head = await server.app.ctx.db.kysely
    .selectFrom('events')
    .select((eb) => eb.fn.max('cursor').as('head'))
    .executeTakeFirst();
  return Number(head?.head ?? 0);
}

/**
 * An event as the contract declares it (`Event`, a union by `type`), any
 * payload field readable: tests compare the payloads of several types at once.
 */
export type ContractEvent = Schemas['Event'] & { payload: Record<string, unknown> };

/** A feed page as the contract declares it (`FeedPage`), its events' payload fields readable. */
export type ContractPage = Omit<Schemas['FeedPage'], 'events'> & { events: ContractEvent[] };
