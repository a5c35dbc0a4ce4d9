import { Worker } from 'node:worker_threads';
import { invalid } from '../shared/errors.js';

/**
 * Finds mention candidates without letting one message stall the server.
 *
 * The CommonMark parser is superlinear on some inputs well under the 20000
 * character body limit (long alternating emphasis delimiters take seconds), and
 * a parse cannot be interrupted on the thread that runs it. So parsing happens
 * in a worker thread, before any transaction opens; a parse that exceeds the
 * time budget is abandoned (the worker is replaced) and the message refused with
 * 422, while every other request keeps being served.
 */
export interface MentionParser {
  candidates(markdown: string): Promise<string[]>;
  close(): Promise<void>;
}

interface Pending {
  id: number;
  markdown: string;
  resolve(candidates: string[]): void;
  reject(err: unknown): void;
}

export function createMentionParser(opts: { timeoutMs: number }): MentionParser {
  const queue: Pending[] = [];
  let worker: Worker | undefined;
  // The time budget covers parsing only, never the worker's start-up (which,
  // from the TypeScript sources, includes compiling the parser).
  let workerReady = false;
  let current: { request: Pending; timer: NodeJS.Timeout } | undefined;
  let nextId = 1;
  let closed = false;

  const workerUrl = new URL(`./mention-worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url);

  function start(): Worker {
    // Running from the TypeScript sources (tests, development), the worker
    // registers tsx before importing its module, as bin/atrium.js does.
    const w = import.meta.url.endsWith('.ts')
      ? new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(workerUrl.href)}); });`, {
          eval: true,
        })
      : new Worker(workerUrl);
    w.unref();
    w.on('message', (reply: { ready?: true; id?: number; candidates?: string[]; error?: string }) => {
      if (reply.ready) {
        workerReady = true;
        pump();
        return;
      }
      if (!current || current.request.id !== reply.id) return;
      const { request, timer } = current;
      clearTimeout(timer);
      current = undefined;
      if (reply.candidates) request.resolve(reply.candidates);
      else request.reject(new Error(`mention parser failed: ${reply.error}`));
      pump();
    });
    w.on('error', (err) => {
      if (current) {
        clearTimeout(current.timer);
        current.request.reject(err);
        current = undefined;
      }
      worker = undefined;
      workerReady = false;
      pump();
    });
    return w;
  }

  function pump(): void {
    if (current || closed || queue.length === 0) return;
    if (!worker) {
      workerReady = false;
      worker = start();
    }
    if (!workerReady) return;
    const request = queue.shift()!;
    const timer = setTimeout(() => {
      current = undefined;
      const stuck = worker;
      worker = undefined;
      workerReady = false;
      void stuck?.terminate();
      request.reject(invalid('the message Markdown is too complex to check for mentions; simplify its formatting'));
      pump();
    }, opts.timeoutMs);
    current = { request, timer };
    worker.postMessage({ id: request.id, markdown: request.markdown });
  }

  return {
    candidates(markdown) {
      return new Promise((resolve, reject) => {
        if (closed) return reject(new Error('mention parser is closed'));
        queue.push({ id: nextId++, markdown, resolve, reject });
        pump();
      });
    },
    async close() {
      closed = true;
      if (current) clearTimeout(current.timer);
      for (const pending of queue.splice(0)) pending.reject(new Error('mention parser is closed'));
      await worker?.terminate();
      worker = undefined;
    },
  };
}
