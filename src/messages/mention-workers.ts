import { Worker } from 'node:worker_threads';

/** What a worker says: it is ready, or the candidates (or the error) of one parse. */
export interface WorkerReply {
  ready?: true;
  id?: number;
  candidates?: string[];
  error?: string;
}

/** One place for a worker; `current` is the job it parses, if any. */
export interface Slot<Job> {
  worker?: Worker;
  ready: boolean;
  current?: Job;
}

export interface PoolEvents<Job> {
  /** A worker became ready, or one went: the pool's readiness may have changed. */
  readiness(): void;
  /** A ready worker answered (a parse, or its readiness: then `reply.ready`). */
  reply(slot: Slot<Job>, reply: WorkerReply): void;
  /** A worker failed; it is no longer the slot's. */
  failed(slot: Slot<Job>, err: Error): void;
}

/**
 * The worker threads that parse message bodies for mentions (mention-worker.ts),
 * one per slot. A worker whose parse runs too long cannot be interrupted, only
 * retired: its slot gets a new one when work next arrives.
 */
export class MentionWorkers<Job> {
  readonly slots: Array<Slot<Job>>;
  private readonly workerUrl = new URL(`./mention-worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url);

  constructor(
    count: number,
    private readonly events: PoolEvents<Job>,
  ) {
    this.slots = Array.from({ length: Math.max(1, count) }, () => ({ ready: false }));
  }

  get anyReady(): boolean {
    return this.slots.some((s) => s.ready);
  }

  /** Starts a worker in every slot that has none. */
  fill(): void {
    for (const slot of this.slots) {
      if (!slot.worker) this.start(slot);
    }
  }

  start(slot: Slot<Job>): void {
    // Running from the TypeScript sources (tests, development), the worker
    // registers tsx before importing its module, as bin/atrium.js does.
    const w = import.meta.url.endsWith('.ts')
      ? new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(this.workerUrl.href)}); });`, {
          eval: true,
        })
      : new Worker(this.workerUrl);
    w.unref();
    slot.worker = w;
    slot.ready = false;
    w.on('message', (reply: WorkerReply) => {
      if (slot.worker !== w) return;
      if (reply.ready) {
        slot.ready = true;
        this.events.readiness();
      }
      this.events.reply(slot, reply);
    });
    w.on('error', (err) => {
      if (slot.worker !== w) return;
      this.events.failed(slot, err);
    });
  }

  retire(slot: Slot<Job>): void {
    const stuck = slot.worker;
    slot.worker = undefined;
    slot.ready = false;
    this.events.readiness();
    void stuck?.terminate();
  }

  async close(): Promise<void> {
    await Promise.all(
      this.slots.map(async (slot) => {
        await slot.worker?.terminate();
        slot.worker = undefined;
      }),
    );
  }
}
