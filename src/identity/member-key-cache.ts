import type { GrantNarrowing } from './actor.js';
import type { MemberTable } from '../members/tables.js';
import type { MemberStatus } from '../members/tables.js';

/** What a member key resolved to: enough to build the Actor and refuse the suspended without asking again. */
export interface KeyResolution {
  member: MemberTable;
  operatorStatus: MemberStatus | null;
  keyId: string;
  keyHash: string;
  lastUsedTs: string | null;
  /** An OAuth access token's: what its grant allows, where it works, until when, and whether the consenting human is suspended. */
  grant?: { narrowing: GrantNarrowing; resource: string; expiresTs: string; humanStatus: MemberStatus };
  /** A session's (`keyId` is the session's id): until when it lasts, judged on every request. */
  session?: { expiresTs: string };
}

/**
 * How a node learns that members or member keys changed: announcements it
 * hears (PostgreSQL notifications), or a count it reads (SQLite).
 */
export interface CredentialChanges {
  /** False while this node cannot hear changes (no listener connection): nothing may be kept then. */
  readonly live: boolean;
  /** Called on every change heard, and whenever hearing stops or resumes. */
  onChange(listener: () => void): void;
  /**
   * SQLite: the database's count of such changes (migration 0018), read on
   * every keyed request. When it moved, everything kept is forgotten first.
   */
  count?(): Promise<number>;
}

/** How long a resolution is kept even when no change is heard: a backstop, should a notification ever be lost. */
export const KEPT_FOR_MS = 30_000;
const MAX_KEPT = 10_000;

/**
 * Member-key resolutions this node keeps (docs/identity.md, "Keeping key
 * resolutions"). On PostgreSQL the lookup is a round trip on every request,
 * one of the few a write makes; keeping it is safe only because triggers
 * announce every change to members and member keys (migration 0017) and
 * every node forgets everything it kept when it hears one, or when its
 * listener connection drops. The trade-off, stated openly: a key revoked (or
 * a member suspended) on one node may still be accepted by another node for
 * the moment the notification takes to arrive, milliseconds; no longer than
 * KEPT_FOR_MS should it be lost. The node that writes the change forgets at
 * once, without waiting to hear it (key-resolution-writes.ts). OAuth access
 * tokens (migration 0020) and sessions (migration 0033) are kept the same way.
 *
 * On SQLite the lookup is a join built and run per request, most of what a
 * keyed empty poll costs. There, triggers count the same changes in the
 * database (migration 0018), whoever writes them, and every keyed request
 * reads that count (one tiny statement) before it uses what was kept: a
 * change is never missed, not even for a moment.
 *
 * A lookup that was already running when a change was heard may carry the
 * old answer: the generation counter keeps it from being stored.
 */
export class MemberKeyCache {
  private readonly kept = new Map<string, { resolution: KeyResolution; at: number }>();
  private generationNow = 0;
  /** SQLite: the change count the kept resolutions were looked up under. */
  private counted: number | undefined;

  constructor(
    /** How this node hears of changes (tests wait on it). */
    readonly changes: CredentialChanges,
    private readonly now: () => number = Date.now,
  ) {
    changes.onChange(() => this.forget());
  }

  /** Pass to `put`: a lookup started before a change is not kept. */
  get generation(): number {
    return this.generationNow;
  }

  /**
   * Call before `get` on each request: where changes are counted rather than
   * announced (SQLite), reads the count and forgets everything if it moved.
   * Answers the generation to pass to `put`.
   */
  begin(): number | Promise<number> {
    const count = this.changes.count;
    if (!count) return this.generationNow;
    return count().then((changes) => {
      if (changes !== this.counted) {
        this.forget();
        this.counted = changes;
      }
      return this.generationNow;
    });
  }

  get(keyHash: string): KeyResolution | undefined {
    if (!this.changes.live) return undefined;
    const entry = this.kept.get(keyHash);
    if (!entry) return undefined;
    if (this.now() - entry.at > KEPT_FOR_MS) {
      this.kept.delete(keyHash);
      return undefined;
    }
    return entry.resolution;
  }

  put(keyHash: string, resolution: KeyResolution, generation: number): void {
    if (!this.changes.live || generation !== this.generationNow) return;
    this.kept.delete(keyHash);
    this.kept.set(keyHash, { resolution, at: this.now() });
    if (this.kept.size > MAX_KEPT) this.kept.delete(this.kept.keys().next().value!);
  }

  forget(): void {
    this.generationNow += 1;
    this.kept.clear();
  }
}
