import { feedKeys, type EventTail } from '../events/tail.js';
import type { ResourceDocument } from './records.js';

/** Bytes of kept documents a node holds; beyond this the least recently read are dropped. */
const DEFAULT_BUDGET = 16 * 1024 * 1024;

/** A Resource as sent: the document, its JSON (UTF-8, encoded once), and the entity tag that names its version. */
export interface ResourceAnswer {
  document: ResourceDocument;
  body: Buffer;
  etag: string;
}

/**
 * Resources this node has served, kept as the JSON it sent (docs/resources.md,
 * "Kept documents"). A Resource changes only by a new version (a rename is
 * one), and every version emits `resource_created` or `resource_version_added`
 * in the Space's feed in the same transaction; so while the Space's head on
 * this node's tail has not moved, neither has any of its Resources. The kept
 * document is therefore as fresh as the Space feed this node serves, which
 * trails the database only by the moment a write on another node takes to be
 * followed here (a write answers once its own node has followed it, so a
 * client reads back what it wrote from the node it wrote to). Who may read is
 * decided on every request before this is asked: only the bytes are kept.
 */
export class KeptResources {
  private readonly kept = new Map<string, { head: number; answer: ResourceAnswer }>();
  private bytes = 0;

  constructor(
    private readonly tail: EventTail,
    private readonly budget = DEFAULT_BUDGET,
  ) {}

  /** The Resource `id` of Space `slug` as `load` would read it now; `load` runs only when nothing current is kept. */
  async read(slug: string, id: string, load: () => Promise<ResourceDocument>): Promise<ResourceAnswer> {
    const key = `${slug}\n${id}`;
    // Read before the document it is kept with: a version committing meanwhile moves the head past what is kept.
    const head = await this.tail.keyHead(feedKeys.space(slug));
    const kept = this.kept.get(key);
    if (kept !== undefined && kept.head === head) {
      // Map order is insertion order: moving it to the end keeps the order one of use.
      this.kept.delete(key);
      this.kept.set(key, kept);
      return kept.answer;
    }
    const document = await load();
    const answer = { document, body: Buffer.from(JSON.stringify(document)), etag: resourceTag(document) };
    this.keep(key, head, answer);
    return answer;
  }

  private keep(key: string, head: number, answer: ResourceAnswer): void {
    this.drop(key);
    if (answer.body.length > this.budget / 8) return;
    this.kept.set(key, { head, answer });
    this.bytes += answer.body.length;
    while (this.bytes > this.budget) this.drop(this.kept.keys().next().value!);
  }

  private drop(key: string): void {
    const kept = this.kept.get(key);
    if (kept === undefined) return;
    this.kept.delete(key);
    this.bytes -= kept.answer.body.length;
  }
}

/**
 * A Resource's document is fixed by its id and current version (name, text and
 * times all change only with a version), so the tag names those: weak, as the
 * same document may be sent compressed or not.
 */
export function resourceTag(document: Pick<ResourceDocument, 'id' | 'current_version'>): string {
  return `W/"${document.id}.${document.current_version}"`;
}
