import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PageCache } from '../src/events/page-cache.js';
import type { FeedAnswer } from '../src/events/types.js';

/** What a node keeps of the feed pages it served, and what a message's deletion takes away (docs/events.md, "Kept pages"). */
describe('kept feed pages', () => {
  const page = (...messageIds: number[]): FeedAnswer => {
    const events = messageIds.map((id, i) => ({
      cursor: i + 1,
      type: 'message_posted' as const,
      space: 'plaza',
      actor: 'alice',
      subjects: [`message:${id}`],
      payload: { message_id: id, body: `body of ${id}` },
      created_ts: '2026-01-01T00:00:00.000Z',
    }));
    const body = { events, cursor: events.length, protocol: 'atrium/0' };
    return { page: body, body: Buffer.from(JSON.stringify(body)), etag: `W/"${messageIds.join('-')}"` };
  };

  it('drops exactly the pages that hold a deleted message', () => {
    const cache = new PageCache();
    cache.put('a', 'full', page(1, 2), cache.redactions);
    cache.put('b', 'full', page(3), cache.redactions);
    cache.dropMessage(2);
    assert.equal(cache.get('a', 0), undefined);
    assert.equal(cache.get('b', 0)?.etag, 'W/"3"');
  });

  it('keeps nothing read before a deletion this node has seen since', () => {
    const cache = new PageCache();
    // A read begins; its snapshot may predate a deletion the tail sees before the page is put.
    const sampled = cache.redactions;
    cache.dropMessage(7);
    cache.put('a', 'full', page(7), sampled);
    assert.equal(cache.get('a', 0), undefined);
    cache.put('a', 'full', page(7), cache.redactions);
    assert.ok(cache.get('a', 0));
  });
});
