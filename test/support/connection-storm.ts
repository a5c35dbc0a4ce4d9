import http from 'node:http';
import net from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';

/**
 * A storm of clients, run in a worker thread so that it does not share the
 * server's event loop (test/http-fairness.test.ts): from each address, long
 * polls that never come back of themselves, and idle sockets that send part of
 * a request line and nothing more, reconnecting whenever the server closes
 * them. Told `stop`, it closes everything and reports how each long poll ended.
 *
 * The long polls go first, and the idle sockets only once the server has told
 * one long poll to come back later: started together, idle sockets could fill
 * every connection before any address had more long polls than its share, and
 * whether a test saw a poll turned away would depend on which connections the
 * kernel completed first (a loaded machine once saw none).
 */
export interface StormPlan {
  port: number;
  addresses: string[];
  /** Path of each long poll (with `since` at the head and `wait`). */
  pollPath: string;
  pollsPerAddress: number;
  idlePerAddress: number;
  /** Reconnections in all before the storm stops renewing its idle sockets (bounds the work of a test). */
  maxReconnects: number;
}

export interface StormReport {
  /** Long polls answered with events and no `Retry-After` (held until woken, or read after the events committed). */
  withEvents: number;
  /** Long polls answered at once with `Retry-After: 5` (over a share, or taken back): an ordinary page, empty unless events came first. */
  toldToComeBack: number;
  /** Other answers (an empty page without `Retry-After`, another status). */
  otherAnswers: number;
  /** Long polls whose connection was refused or closed before an answer. */
  refused: number;
  /** Long polls still open when the storm stopped. */
  open: number;
  reconnects: number;
}

const plan = workerData as StormPlan;
const idle = new Set<net.Socket>();
const polls = new Set<http.ClientRequest>();
const report: StormReport = { withEvents: 0, toldToComeBack: 0, otherAnswers: 0, refused: 0, open: 0, reconnects: 0 };
let stopping = false;

function idleSocket(from: string): void {
  const socket = net.connect({ host: '127.0.0.1', port: plan.port, localAddress: from });
  idle.add(socket);
  socket.on('error', () => undefined);
  // Part of a request line: the server sees the connection even when the handshake's last
  // packet was dropped (a flood makes the kernel answer with SYN cookies), and it stays idle.
  socket.once('connect', () => socket.write('GET /v0 HTTP/1.1\r\n'));
  socket.once('close', () => {
    idle.delete(socket);
    if (!stopping && report.reconnects < plan.maxReconnects) {
      report.reconnects += 1;
      idleSocket(from);
    }
  });
}

function longPoll(from: string): void {
  const request = http.request({ host: '127.0.0.1', port: plan.port, localAddress: from, path: plan.pollPath, agent: false });
  polls.add(request);
  const settle = (outcome: keyof Omit<StormReport, 'open' | 'reconnects'>) => {
    if (!polls.delete(request)) return;
    report[outcome] += 1;
  };
  request.once('response', (res) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.once('end', () => {
      try {
        const page = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { events: unknown[] };
        // Retry-After first: a poll over its share is answered at once as an ordinary poll,
        // which holds events too if the innocent client posted before the server got to it.
        if (res.statusCode === 200 && res.headers['retry-after'] === '5') {
          settle('toldToComeBack');
          startIdleSockets();
        } else if (res.statusCode === 200 && page.events.length > 0) settle('withEvents');
        else settle('otherAnswers');
      } catch {
        settle('otherAnswers');
      }
    });
    res.once('error', () => settle('refused'));
  });
  request.once('error', () => settle('refused'));
  request.end();
}

let idleStarted = false;
function startIdleSockets(): void {
  if (idleStarted || stopping) return;
  idleStarted = true;
  for (const from of plan.addresses) for (let i = 0; i < plan.idlePerAddress; i++) idleSocket(from);
}

for (const from of plan.addresses) for (let i = 0; i < plan.pollsPerAddress; i++) longPoll(from);

parentPort!.on('message', (message: string) => {
  if (message === 'report') {
    parentPort!.postMessage({ ...report, open: polls.size });
    return;
  }
  if (message !== 'stop') return;
  stopping = true;
  const final = { ...report, open: polls.size };
  for (const socket of idle) socket.destroy();
  for (const request of polls) request.destroy();
  parentPort!.postMessage(final);
});
