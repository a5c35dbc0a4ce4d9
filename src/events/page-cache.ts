import type { FeedAnswer } from './types.js';

/** Bytes of serialised pages a node keeps; beyond this the least recently used are dropped. */
const DEFAULT_BUDGET = 16 * 1024 * 1024;

/**
 * Feed pages this node has served, kept as the bytes it sent (docs/events.md,
 * "Kept pages"). A page is a function of the log, the page's `since` and
 * `limit`, and who reads it; the log only grows, and cursors are never handed
 * out of commit order. So a full page (as many events as `limit`) never
 * changes, and a shorter one stays the same while the feed's newest cursor on
 * this node stays where it was when the page was read. Only feeds whose pages
 * depend on nothing else are kept (not the inbox, which follows the reader's
 * current access to each Space). Deleting a message is the one change to what
 * the log says: the pages holding it are dropped (`dropMessage`).
 */
export class PageCache {
  private readonly pages = new Map<string, { head: number | 'full'; answer: FeedAnswer; messages: ReadonlySet<number> }>();
  private bytes = 0;
  private redacted = 0;

  constructor(private readonly budget = DEFAULT_BUDGET) {}

  /**
   * How many deletions this node has seen. A page read while one was seen may
   * hold the body it took away (the read's snapshot can predate the deletion
   * while the page is put after the tail saw it), so a reader samples this
   * before reading and `put` keeps nothing read across a deletion.
   */
  get redactions(): number {
    return this.redacted;
  }

  /**
   * A message was deleted (the tail saw `message_deleted`): drop every page
   * that holds an event about it, as its body in them is gone from the log.
   * The one exception to "the log only grows" (docs/events.md, "Kept pages").
   */
  dropMessage(id: number): void {
    this.redacted += 1;
    for (const [key, kept] of [...this.pages]) if (kept.messages.has(id)) this.drop(key);
  }

  /** The kept page for `key`, if it is still what a read at `head` would answer. */
  get(key: string, head: number): FeedAnswer | undefined {
    const kept = this.pages.get(key);
    if (!kept) return undefined;
    if (kept.head !== 'full' && kept.head !== head) {
      this.drop(key);
      return undefined;
    }
    // Map order is insertion order: moving it to the end keeps the order one of use.
    this.pages.delete(key);
    this.pages.set(key, kept);
    return kept.answer;
  }

  /**
   * Keeps a page read when the feed's newest cursor was `head`; `full` pages are kept regardless of it.
   * `redactions` is what `redactions` said before the read: a deletion seen since leaves the page unkept.
   */
  put(key: string, head: number | 'full', answer: FeedAnswer, redactions: number): void {
    if (answer.body.length > this.budget / 8 || redactions !== this.redacted) return;
    this.drop(key);
    this.pages.set(key, { head, answer, messages: messagesIn(answer) });
    this.bytes += answer.body.length;
    while (this.bytes > this.budget) this.drop(this.pages.keys().next().value!);
  }

  private drop(key: string): void {
    const kept = this.pages.get(key);
    if (!kept) return;
    this.pages.delete(key);
    this.bytes -= kept.answer.body.length;
  }
}

/** The messages whose bodies a page shows (or would, for an event kept with its own copy). */
function messagesIn(answer: FeedAnswer): ReadonlySet<number> {
  const ids = new Set<number>();
  for (const event of answer.page.events) {
    const id = (event.payload as { message_id?: unknown }).message_id;
    if (typeof id === 'number') ids.add(id);
  }
  return ids;
}
