import type { Kysely } from 'kysely';
import { feedKeys, type EventTail } from '../events/tail.js';
import type { DatabaseSchema } from '../storage/schema.js';
import type { SpaceRecord } from './records.js';
import { getSpace } from './service.js';

/** Space records a node keeps for its hottest read; beyond this the least recently used are dropped. */
const MAX_KEPT = 10_000;

/**
 * Space records as of the newest event of each Space this node has followed,
 * for the feed read, where the Space lookup was the only query of an empty
 * tail poll. Every change to a Space's record (approve, archive, review
 * policy, pins) emits an event of that Space in the same transaction, so while
 * the Space's head on this node's tail has not moved the record has not
 * changed: the record is as fresh as the feed it gates, which is only ever
 * behind the database (docs/events.md, "Kept pages"). The feed's gate reads
 * only the join policy, which never changes after the proposal, and
 * membership, which is never kept. Writes never use this: they read and lock
 * the record in their own transaction. A missing Space is never kept.
 */
export class KnownSpaces {
  private readonly records = new Map<string, { head: number; record: SpaceRecord }>();

  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly tail: EventTail,
  ) {}

  /** The Space, or 404 like getSpace. */
  async get(slug: string): Promise<SpaceRecord> {
    const kept = this.records.get(slug);
    if (kept && kept.head === (await this.tail.keyHead(feedKeys.space(slug)))) {
      this.records.delete(slug);
      this.records.set(slug, kept);
      return kept.record;
    }
    // Only a Space that exists gets a head on the tail (a guessed slug must not grow it); the head is
    // read before the record kept with it, so a change racing this read moves the head past what is kept.
    await getSpace(this.db, slug);
    const head = await this.tail.keyHead(feedKeys.space(slug));
    const record = await getSpace(this.db, slug);
    this.records.delete(slug);
    this.records.set(slug, { head, record });
    if (this.records.size > MAX_KEPT) this.records.delete(this.records.keys().next().value!);
    return record;
  }
}
