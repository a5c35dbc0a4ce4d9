import { AtriumError, invalid } from '../shared/errors.js';
import { ParseBudgets, type Arrival } from './mention-budget.js';
import { FairQueues } from './mention-queues.js';
import { MentionWorkers, type Slot } from './mention-workers.js';

/**
 * Finds mention candidates without letting one message, or one member, stall
 * posting for everyone (docs/mentions.md).
 *
 * The CommonMark parser is superlinear on some inputs well under the 20000
 * character body limit (long runs of emphasis delimiters, list markers or
 * setext underlines take seconds), and a parse cannot be interrupted on the
 * thread that runs it. So parsing happens in worker threads (mention-workers.ts),
 * before any transaction opens, under these rules:
 *
 * - Each body has one time budget, counted from its arrival: waiting behind
 *   other bodies spends it. A body whose budget runs out while waiting is
 *   refused with 503 (the host is busy, retry); one whose parse runs past it
 *   is refused with 422 (too complex) and its worker is replaced. Time the
 *   host spends starting workers is not charged to anyone (mention-budget.ts).
 * - Bodies wait in one queue per member, served round-robin, so one member's
 *   backlog never sits ahead of another member's single message (mention-queues.ts).
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

interface Pending extends Arrival {
  id: number;
  owner: string;
  markdown: string;
  waitTimer?: NodeJS.Timeout;
  resolve(candidates: string[]): void;
  reject(err: unknown): void;
}

interface Parse {
  request: Pending;
  timer: NodeJS.Timeout;
}

export function createMentionParser(opts: MentionParserOptions): MentionParser {
  const budgets = new ParseBudgets(opts.timeoutMs);
  const pool: MentionWorkers<Parse> = new MentionWorkers<Parse>(opts.workers, {
    readiness: () => budgets.noteReadiness(pool.anyReady),
    reply(slot, reply) {
      if (reply.ready) return pump();
      if (!slot.current || slot.current.request.id !== reply.id) return;
      const { request, timer } = slot.current;
      clearTimeout(timer);
      finishParse(slot);
      if (reply.candidates) request.resolve(reply.candidates);
      else request.reject(new Error(`mention parser failed: ${reply.error}`));
      pump();
    },
    failed(slot, err) {
      const current = slot.current;
      if (current) clearTimeout(current.timer);
      finishParse(slot);
      pool.retire(slot);
      current?.request.reject(err);
      pump();
    },
  });
  // A member may hold every worker only when there is just one.
  const queues = new FairQueues<Pending>(Math.max(1, pool.slots.length - 1));
  let nextId = 1;
  let closed = false;

  function finishParse(slot: Slot<Parse>): void {
    if (!slot.current) return;
    const { request } = slot.current;
    slot.current = undefined;
    queues.finishParse(request);
  }

  function busy(): AtriumError {
    return new AtriumError('host_busy', 'the host is busy checking other messages for mentions; retry shortly', {
      'retry-after': String(Math.max(1, Math.ceil(opts.timeoutMs / 1000))),
    });
  }

  function armWaitTimer(request: Pending): void {
    request.waitTimer = setTimeout(() => {
      const left = budgets.left(request);
      // Start-up stalls extend the budget: look again when the rest runs out.
      if (left > 0) return armWaitTimer(request);
      queues.removeWaiting(request);
      request.reject(busy());
    }, Math.max(1, budgets.left(request)));
  }

  function pump(): void {
    if (closed || queues.size === 0) return;
    pool.fill();
    for (const slot of pool.slots) {
      if (!slot.ready || slot.current) continue;
      const request = queues.take();
      if (!request) return;
      clearTimeout(request.waitTimer);
      const timer = setTimeout(() => {
        finishParse(slot);
        pool.retire(slot);
        request.reject(invalid('mention_too_complex', 'the message Markdown is too complex to check for mentions; simplify its formatting'));
        pump();
      }, budgets.forParse(request));
      slot.current = { request, timer };
      slot.worker!.postMessage({ id: request.id, markdown: request.markdown });
    }
  }

  budgets.noteReadiness(pool.anyReady);
  return {
    candidates(markdown, owner = 'host') {
      return new Promise((resolve, reject) => {
        if (closed) return reject(new Error('mention parser is closed'));
        if (queues.heldBy(owner) >= opts.perMember) {
          return reject(
            new AtriumError('rate_limited', `at most ${opts.perMember} of your messages may wait to be checked for mentions at once; retry when they are answered`, {
              'retry-after': '1',
            }),
          );
        }
        if (queues.size >= opts.queueLimit) return reject(busy());
        const request: Pending = { id: nextId++, owner, markdown, ...budgets.arrival(), resolve, reject };
        queues.add(request);
        armWaitTimer(request);
        pump();
      });
    },
    async close() {
      closed = true;
      const err = new Error('mention parser is closed');
      for (const request of queues.drain()) {
        clearTimeout(request.waitTimer);
        request.reject(err);
      }
      for (const slot of pool.slots) {
        if (slot.current) {
          clearTimeout(slot.current.timer);
          slot.current.request.reject(err);
          slot.current = undefined;
        }
      }
      await pool.close();
    },
  };
}
