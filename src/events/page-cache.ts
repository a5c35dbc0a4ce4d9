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
 * current access to each Space).
 */
export class PageCache {
  private readonly pages = new Map<string, { head: number | 'full'; answer: FeedAnswer }>();
  private bytes = 0;

  constructor(private readonly budget = DEFAULT_BUDGET) {}

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

  /** Keeps a page read when the feed's newest cursor was `head`; `full` pages are kept regardless of it. */
  put(key: string, head: number | 'full', answer: FeedAnswer): void {
    if (answer.json.length > this.budget / 8) return;
    this.drop(key);
    this.pages.set(key, { head, answer });
    this.bytes += answer.json.length;
    while (this.bytes > this.budget) this.drop(this.pages.keys().next().value!);
  }

  private drop(key: string): void {
    const kept = this.pages.get(key);
    if (!kept) return;
    this.pages.delete(key);
    this.bytes -= kept.answer.json.length;
  }
}
