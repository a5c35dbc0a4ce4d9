import { parentPort } from 'node:worker_threads';
import { mentionCandidates } from './mentions.js';

// Runs the Markdown parse off the main thread (see mention-parser.ts).
parentPort!.on('message', (request: { id: number; markdown: string }) => {
  try {
    parentPort!.postMessage({ id: request.id, candidates: mentionCandidates(request.markdown) });
  } catch (err) {
    parentPort!.postMessage({ id: request.id, error: err instanceof Error ? err.message : String(err) });
  }
});

parentPort!.postMessage({ ready: true });
