/** Something waiting to be parsed for one owner (a member handle): the unit of fairness. */
export interface Owned {
  owner: string;
}

/**
 * Bodies waiting for a mention parse (mention-parser.ts): one queue per owner,
 * served round-robin, so one member's backlog never sits ahead of another
 * member's single message; and what each owner holds, waiting or parsing.
 */
export class FairQueues<T extends Owned> {
  private readonly waiting = new Map<string, T[]>();
  /** Owners with waiting bodies, in the order they are next served. */
  private readonly rotation: string[] = [];
  /** Bodies per owner, waiting or parsing. */
  private readonly held = new Map<string, number>();
  private readonly parsing = new Map<string, number>();
  private waitingCount = 0;

  /** `maxParsingPerOwner`: how many bodies of one owner may be parsed at once. */
  constructor(private readonly maxParsingPerOwner: number) {}

  /** Bodies waiting, host-wide. */
  get size(): number {
    return this.waitingCount;
  }

  /** Bodies of `owner` waiting or parsing. */
  heldBy(owner: string): number {
    return this.held.get(owner) ?? 0;
  }

  add(request: T): void {
    bump(this.held, request.owner, 1);
    const queue = this.waiting.get(request.owner);
    if (queue) queue.push(request);
    else {
      this.waiting.set(request.owner, [request]);
      this.rotation.push(request.owner);
    }
    this.waitingCount++;
  }

  /** The next waiting body, round-robin over owners, skipping owners who already hold their share of workers; it counts as parsing. */
  take(): T | undefined {
    for (let i = 0; i < this.rotation.length; i++) {
      const owner = this.rotation[i]!;
      if ((this.parsing.get(owner) ?? 0) >= this.maxParsingPerOwner) continue;
      const queue = this.waiting.get(owner)!;
      const request = queue.shift()!;
      this.waitingCount--;
      this.rotation.splice(i, 1);
      if (queue.length > 0) this.rotation.push(owner);
      else this.waiting.delete(owner);
      bump(this.parsing, owner, 1);
      return request;
    }
    return undefined;
  }

  /** A waiting body leaves without being parsed (its budget ran out). */
  removeWaiting(request: T): void {
    const queue = this.waiting.get(request.owner);
    const at = queue?.indexOf(request) ?? -1;
    if (!queue || at < 0) return;
    queue.splice(at, 1);
    this.waitingCount--;
    if (queue.length === 0) {
      this.waiting.delete(request.owner);
      this.rotation.splice(this.rotation.indexOf(request.owner), 1);
    }
    bump(this.held, request.owner, -1);
  }

  /** A body taken for parsing is done, however its parse ended. */
  finishParse(request: T): void {
    bump(this.parsing, request.owner, -1);
    bump(this.held, request.owner, -1);
  }

  /** Every waiting body, leaving none. */
  drain(): T[] {
    const all = [...this.waiting.values()].flat();
    this.waiting.clear();
    this.rotation.length = 0;
    this.waitingCount = 0;
    return all;
  }
}

function bump(map: Map<string, number>, owner: string, by: number): void {
  const n = (map.get(owner) ?? 0) + by;
  if (n === 0) map.delete(owner);
  else map.set(owner, n);
}
