import { Worker } from 'node:worker_threads';
import { AtriumError, invalid } from '../shared/errors.js';

/**
 * Finds mention candidates without letting one message, or one member, stall
 * posting for everyone (docs/mentions.md).
 *
 * The CommonMark parser is superlinear on some inputs well under the 20000
 * character body limit (long runs of emphasis delimiters, list markers or
 * setext underlines take seconds), and a parse cannot be interrupted on the
 * thread that runs it. So parsing happens in worker threads, before any
 * transaction opens, under these rules:
 *
 * - Each body has one time budget, counted from its arrival: waiting behind
 *   other bodies spends it. A body whose budget runs out while waiting is
 *   refused with 503 (the host is busy, retry); one whose parse runs past it
 *   is refused with 422 (too complex) and its worker is replaced. Time the
 *   host spends starting workers is not charged to anyone.
 * - Bodies wait in one queue per member, served round-robin, so one member's
 *   backlog never sits ahead of another member's single message.
 * - One member may have only `perMember` bodies waiting or parsing (429 beyond)
 *   and, with more than one worker, never occupies every worker at once.
 * - At most `queueLimit` bodies wait host-wide (503 beyond).
 */
export interface MentionParser {
  /** `owner` names who the body is parsed for (a member handle): the unit of fairness. */
  candidates(markdown: string, owner?: string): Promise<string[]>;
  close(): Promise<void>;
}

export interface MentionParserOptions {
  timeoutMs: number;
  workers: number;
  queueLimit: number;
  perMember: number;
}

/** A parse always gets at least this long, however long the body waited, so a plain body is never called too complex. */
const MIN_PARSE_MS = 100;

interface Pending {
  id: number;
  owner: string;
  markdown: string;
  arrivedMs: number;
  /** The host's start-up stall total when the body arrived: what accrues after it is not charged. */
  stalledAtArrival: number;
  waitTimer?: NodeJS.Timeout;
  resolve(candidates: string[]): void;
  reject(err: unknown): void;
}

interface Slot {
  worker?: Worker;
  ready: boolean;
  current?: { request: Pending; timer: NodeJS.Timeout };
}

export function createMentionParser(opts: MentionParserOptions): MentionParser {
  const slots: Slot[] = Array.from({ length: Math.max(1, opts.workers) }, () => ({ ready: false }));
  // A member may hold every worker only when there is just one.
  const maxParsingPerOwner = Math.max(1, slots.length - 1);
  const waiting = new Map<string, Pending[]>();
  /** Owners with waiting bodies, in the order they are next served. */
  const rotation: string[] = [];
  /** Bodies per owner, waiting or parsing. */
  const held = new Map<string, number>();
  const parsing = new Map<string, number>();
  let waitingCount = 0;
  let nextId = 1;
  let closed = false;
  // Start-up stalls: while no worker has started, waiting is the host's doing.
  let stalledTotal = 0;
  let stalledSince: number | undefined;

  const workerUrl = new URL(`./mention-worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url);

  const now = () => performance.now();
  const bump = (map: Map<string, number>, owner: string, by: number) => {
    const n = (map.get(owner) ?? 0) + by;
    if (n === 0) map.delete(owner);
    else map.set(owner, n);
  };

  function noteReadiness(): void {
    const anyReady = slots.some((s) => s.ready);
    if (!anyReady && stalledSince === undefined) stalledSince = now();
    if (anyReady && stalledSince !== undefined) {
      stalledTotal += now() - stalledSince;
      stalledSince = undefined;
    }
  }

  function stalled(): number {
    return stalledTotal + (stalledSince === undefined ? 0 : now() - stalledSince);
  }

  /** Budget spent so far: time since arrival, less the start-up stalls since then. */
  function spent(request: Pending): number {
    return now() - request.arrivedMs - (stalled() - request.stalledAtArrival);
  }

  function settle(request: Pending): void {
    bump(held, request.owner, -1);
  }

  function start(slot: Slot): void {
    // Running from the TypeScript sources (tests, development), the worker
    // registers tsx before importing its module, as bin/atrium.js does.
    const w = import.meta.url.endsWith('.ts')
      ? new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(workerUrl.href)}); });`, {
          eval: true,
        })
      : new Worker(workerUrl);
    w.unref();
    slot.worker = w;
    slot.ready = false;
    w.on('message', (reply: { ready?: true; id?: number; candidates?: string[]; error?: string }) => {
      if (slot.worker !== w) return;
      if (reply.ready) {
        slot.ready = true;
        noteReadiness();
        pump();
        return;
      }
      if (!slot.current || slot.current.request.id !== reply.id) return;
      const { request, timer } = slot.current;
      clearTimeout(timer);
      finishParse(slot);
      if (reply.candidates) request.resolve(reply.candidates);
      else request.reject(new Error(`mention parser failed: ${reply.error}`));
      pump();
    });
    w.on('error', (err) => {
      if (slot.worker !== w) return;
      const current = slot.current;
      if (current) clearTimeout(current.timer);
      finishParse(slot);
      retire(slot);
      current?.request.reject(err);
      pump();
    });
  }

  function finishParse(slot: Slot): void {
    if (!slot.current) return;
    const { request } = slot.current;
    slot.current = undefined;
    bump(parsing, request.owner, -1);
    settle(request);
  }

  function retire(slot: Slot): void {
    const stuck = slot.worker;
    slot.worker = undefined;
    slot.ready = false;
    noteReadiness();
    void stuck?.terminate();
  }

  /** The next waiting body, round-robin over owners, skipping owners who already hold their share of workers. */
  function takeNext(): Pending | undefined {
    for (let i = 0; i < rotation.length; i++) {
      const owner = rotation[i]!;
      if ((parsing.get(owner) ?? 0) >= maxParsingPerOwner) continue;
      const queue = waiting.get(owner)!;
      const request = queue.shift()!;
      waitingCount--;
      rotation.splice(i, 1);
      if (queue.length > 0) rotation.push(owner);
      else waiting.delete(owner);
      return request;
    }
    return undefined;
  }

  function removeWaiting(request: Pending): void {
    const queue = waiting.get(request.owner);
    const at = queue?.indexOf(request) ?? -1;
    if (!queue || at < 0) return;
    queue.splice(at, 1);
    waitingCount--;
    if (queue.length === 0) {
      waiting.delete(request.owner);
      rotation.splice(rotation.indexOf(request.owner), 1);
    }
  }

  function busy(): AtriumError {
    return new AtriumError('host_busy', 'the host is busy checking other messages for mentions; retry shortly', {
      'retry-after': String(Math.max(1, Math.ceil(opts.timeoutMs / 1000))),
    });
  }

  function armWaitTimer(request: Pending): void {
    request.waitTimer = setTimeout(() => {
      const left = opts.timeoutMs - spent(request);
      // Start-up stalls extend the budget: look again when the rest runs out.
      if (left > 0) return armWaitTimer(request);
      removeWaiting(request);
      settle(request);
      request.reject(busy());
    }, Math.max(1, opts.timeoutMs - spent(request)));
  }

  function pump(): void {
    if (closed || waitingCount === 0) return;
    for (const slot of slots) {
      if (!slot.worker) start(slot);
    }
    for (const slot of slots) {
      if (!slot.ready || slot.current) continue;
      const request = takeNext();
      if (!request) return;
      clearTimeout(request.waitTimer);
      bump(parsing, request.owner, 1);
      const budget = Math.max(MIN_PARSE_MS, opts.timeoutMs - spent(request));
      const timer = setTimeout(() => {
        finishParse(slot);
        retire(slot);
        request.reject(invalid('mention_too_complex', 'the message Markdown is too complex to check for mentions; simplify its formatting'));
        pump();
      }, budget);
      slot.current = { request, timer };
      slot.worker!.postMessage({ id: request.id, markdown: request.markdown });
    }
  }

  noteReadiness();
  return {
    candidates(markdown, owner = 'host') {
      return new Promise((resolve, reject) => {
        if (closed) return reject(new Error('mention parser is closed'));
        if ((held.get(owner) ?? 0) >= opts.perMember) {
          return reject(
            new AtriumError('rate_limited', `at most ${opts.perMember} of your messages may wait to be checked for mentions at once; retry when they are answered`, {
              'retry-after': '1',
            }),
          );
        }
        if (waitingCount >= opts.queueLimit) return reject(busy());
        const request: Pending = { id: nextId++, owner, markdown, arrivedMs: now(), stalledAtArrival: stalled(), resolve, reject };
        bump(held, owner, 1);
        const queue = waiting.get(owner);
        if (queue) queue.push(request);
        else {
          waiting.set(owner, [request]);
          rotation.push(owner);
        }
        waitingCount++;
        armWaitTimer(request);
        pump();
      });
    },
    async close() {
      closed = true;
      const err = new Error('mention parser is closed');
      for (const queue of waiting.values()) {
        for (const request of queue) {
          clearTimeout(request.waitTimer);
          request.reject(err);
        }
      }
      waiting.clear();
      rotation.length = 0;
      waitingCount = 0;
      await Promise.all(
        slots.map(async (slot) => {
          if (slot.current) {
            clearTimeout(slot.current.timer);
            slot.current.request.reject(err);
            slot.current = undefined;
          }
          await slot.worker?.terminate();
          slot.worker = undefined;
        }),
      );
    },
  };
}
