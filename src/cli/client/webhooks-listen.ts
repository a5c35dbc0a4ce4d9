import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import {
  CHALLENGE,
  challengeEndpointId,
  INBOX_DELIVERY,
  WebhookVerificationError,
  WebhookVerifier,
  type DeliveryEnvelope,
  type WebhookJwk,
  type WebhookVerificationReason,
} from '../../webhooks/verifier.js';
import { oneLine } from './command-kit.js';
import { normaliseHost, resolveTarget, send, type Target } from './api.js';
import { configDir } from './credentials-file.js';
import { ApiError, ClientError, ConnectionError, usageError } from './errors.js';
import { payloadOf, type FeedEvent, type FeedQuery } from './events.js';
import { stopOnSignals, time } from './output.js';

interface ListenOptions {
  host?: string;
  json?: boolean;
  subscription: string;
  endpoint?: string;
  port?: number;
  listenHost: string;
  url?: string;
  issuer?: string;
  state?: string;
  since?: number;
}

/** Which feed a subscription's deliveries point at. */
type FeedRef = { space: string } | { inbox: true };

/**
 * What the listener keeps between runs. `cursor` is the checkpoint: the last
 * event handled (printed). `watermark` is the highest `through` of a delivery
 * it acknowledged, so a listener stopped between acknowledging and reading
 * knows at its next start that events may be waiting.
 */
export interface ListenState {
  host: string;
  subscription: string;
  feed: FeedRef | null;
  cursor: number | null;
  watermark: number | null;
  /** Delivery ids already acknowledged, oldest first, the last SEEN_KEPT of them. */
  seen: string[];
}

const DEFAULT_PORT = 8787;
const SEEN_KEPT = 1000;
const PAGE_LIMIT = 100;
/** Envelopes are a few hundred bytes; anything much larger is not from Atrium. */
const MAX_BODY_BYTES = 64 * 1024;
const MAX_BACKOFF_SECONDS = 30;
/** How long a stop waits for requests in progress before closing their connections. */
const STOP_GRACE_MS = 5_000;

/** Refusals that say the request is not authentically from the host now: 401; the rest are 400. */
const UNAUTHENTIC: ReadonlySet<WebhookVerificationReason> = new Set(['unknown_key', 'bad_signature', 'stale_timestamp', 'wrong_issuer']);

/** `atrium webhooks listen`: the reference receiver (docs/webhooks.md, "Receiving"). */
export function registerWebhookListen(webhooks: Command): void {
  webhooks
    .command('listen')
    .description("receive a subscription's webhooks on this machine: answer challenges, verify deliveries, print the events they announce")
    .option('--host <url>', 'the Atrium host (default: ATRIUM_URL, else the host you logged in to, else http://localhost:8080)')
    .option('--json', 'print each event as one JSON object a line')
    .requiredOption('--subscription <id>', 'the subscription (whsub_…) whose deliveries this receiver accepts', subscriptionId)
    .option('--endpoint <id>', "the endpoint (whep_…) registered at this receiver's URL: only its challenge is answered", endpointId)
    .option('--port <n>', `port to listen on (0: any free port; default: the port --url names, else ${DEFAULT_PORT})`, portNumber)
    .option('--listen-host <address>', 'address to listen on (put a tunnel or reverse proxy in front for a public URL)', '127.0.0.1')
    .option('--url <url>', 'the public URL of this receiver as registered; only its path is answered')
    .option('--issuer <url>', 'how the host names itself in deliveries (default: the Atrium host)')
    .option('--state <file>', 'where acknowledged deliveries and the checkpoint are kept (default: under the config directory)')
    .option('--since <cursor>', "with no state yet: read from after this cursor (default: the first delivery's range)", cursorNumber)
    .action(async (opts: ListenOptions) => {
      await new Listener(resolveTarget(opts.host), opts).run();
    });
}

class Listener {
  private readonly issuer: string;
  private readonly statePath: string;
  private readonly path: string | undefined;
  private readonly verifier: WebhookVerifier;
  private state: ListenState;
  private server: Server | undefined;
  private readonly stopped = new AbortController();
  private readonly handling = new Set<Promise<void>>();
  private reading: Promise<void> | undefined;
  private readAgain = false;
  private retry: NodeJS.Timeout | undefined;
  private failures = 0;

  constructor(
    private readonly target: Target,
    private readonly opts: ListenOptions,
  ) {
    this.issuer = opts.issuer ? normaliseHost(opts.issuer) : target.host;
    this.statePath = opts.state ?? defaultStatePath(target.host, opts.subscription);
    this.path = opts.url ? registeredPath(opts.url) : undefined;
    this.verifier = new WebhookVerifier({
      issuer: this.issuer,
      subscriptionId: opts.subscription,
      ...(opts.endpoint ? { endpointId: opts.endpoint } : {}),
      fetchKeys: async () => (await send(target, (api) => api.GET('/v0/webhook-signing-keys'))).body.keys as WebhookJwk[],
    });
    this.state = readState(this.statePath, target.host, opts.subscription);
  }

  async run(): Promise<void> {
    const release = stopOnSignals(this.stopped);
    try {
      this.server = createServer((req, res) => {
        const handled = this.handle(req, res).catch((err: unknown) => {
          note(`could not answer a request: ${err instanceof Error ? err.message : String(err)}`);
          if (!res.headersSent) answer(res, 500, { detail: 'the receiver failed' });
        });
        this.handling.add(handled);
        void handled.finally(() => this.handling.delete(handled));
      });
      await listenOn(this.server, listenPort(this.opts), this.opts.listenHost);
      const address = this.server.address() as AddressInfo;
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      note(`Listening on http://${host}:${address.port}${this.path ?? '/'} for deliveries of ${this.opts.subscription} from ${this.issuer}`);
      if (this.opts.url) note(`Registered as ${this.opts.url}`);
      note(this.opts.endpoint ? `Answering challenges for ${this.opts.endpoint} only` : 'Answering no challenges: name the endpoint to verify with --endpoint');
      note(`State: ${this.statePath}`);
      // Acknowledged before an earlier run could read them: read them now.
      if (this.pending()) this.read();
      if (!this.stopped.signal.aborted) await new Promise((resolve) => this.stopped.signal.addEventListener('abort', resolve, { once: true }));
      await this.close();
      note('Stopped.');
    } finally {
      release();
    }
  }

  private async close(): Promise<void> {
    clearTimeout(this.retry);
    const server = this.server!;
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeIdleConnections();
    const grace = setTimeout(() => server.closeAllConnections(), STOP_GRACE_MS);
    await Promise.allSettled([...this.handling]);
    server.closeAllConnections();
    await closed;
    clearTimeout(grace);
    await this.reading;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://receiver').pathname;
    if (this.path !== undefined && path !== this.path) return answer(res, 404, { detail: `this receiver answers at ${this.path} only` });
    if (req.method !== 'POST') return answer(res, 405, { detail: 'webhooks are POSTed' }, { allow: 'POST' });
    const rawBody = await readBody(req);
    if (rawBody === undefined) return answer(res, 413, { detail: `a webhook body is at most ${MAX_BODY_BYTES} bytes` });

    let envelope;
    try {
      ({ envelope } = await this.verifier.verify({ headers: req.headers, rawBody }));
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
      const status = err.retryable ? 503 : UNAUTHENTIC.has(err.reason) ? 401 : 400;
      note(`Refused a request (${err.reason}): ${err.message}`);
      return answer(res, status, { detail: err.message, reason: err.reason });
    }
    if (envelope.type === CHALLENGE) {
      // Echoing any challenge would let another member register this receiver's URL as their endpoint and verify it.
      if (!this.opts.endpoint) {
        const named = challengeEndpointId(envelope.challenge);
        note(`Refused the challenge ${envelope.id} for ${named ?? 'an unnamed endpoint'}: no --endpoint given, so no challenge is answered.`);
        return answer(res, 400, { detail: 'this receiver answers the challenge of the endpoint it was started for only', reason: 'wrong_endpoint' });
      }
      note(`Answered the challenge ${envelope.id} for ${this.opts.endpoint}.`);
      return answer(res, 200, { challenge: envelope.challenge });
    }
    if (this.state.seen.includes(envelope.id)) {
      note(`Delivery ${envelope.id} again: already acknowledged.`);
      return answer(res, 202, {});
    }
    try {
      this.save(this.acknowledged(envelope));
    } catch (err) {
      // Not stored, so not acknowledged: the host sends it again later.
      note(`Could not store delivery ${envelope.id}: ${(err as Error).message}`);
      return answer(res, 503, { detail: 'the receiver could not store the delivery; try again' });
    }
    note(`Delivery ${envelope.id}: events after ${envelope.event_range.after} through ${envelope.event_range.through}${'space' in envelope ? ` in ${envelope.space}` : ' in the inbox'}.`);
    answer(res, 202, {});
    this.read();
  }

  /** The state once `envelope` is acknowledged: its id seen, its `through` the watermark if higher. */
  private acknowledged(envelope: DeliveryEnvelope): ListenState {
    const { after, through } = envelope.event_range;
    return {
      ...this.state,
      feed: envelope.type === INBOX_DELIVERY ? { inbox: true } : { space: envelope.space },
      // A first delivery starts the reading where its range starts, unless told otherwise.
      cursor: this.state.cursor ?? this.opts.since ?? after,
      watermark: Math.max(this.state.watermark ?? 0, through),
      seen: [...this.state.seen, envelope.id].slice(-SEEN_KEPT),
    };
  }

  private pending(): boolean {
    const { feed, cursor, watermark } = this.state;
    return feed !== null && cursor !== null && watermark !== null && watermark > cursor;
  }

  /** Starts reading, or asks the reading in progress to go round once more (a delivery came in during it). */
  private read(): void {
    if (this.stopped.signal.aborted) return;
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    clearTimeout(this.retry);
    this.reading = (async () => {
      do {
        this.readAgain = false;
        await this.readFeed();
      } while (this.readAgain && !this.stopped.signal.aborted);
    })().finally(() => {
      this.reading = undefined;
    });
  }

  /**
   * Reads the feed from the checkpoint until a page is not full, printing
   * each event and then moving the checkpoint past it. An empty page leaves
   * the checkpoint where it is: the events of a range may be unreadable to
   * this member, or not yet followed by the node that answers, and reading
   * them again costs less than skipping one.
   */
  private async readFeed(): Promise<void> {
    const { feed } = this.state;
    if (feed === null || this.state.cursor === null) return;
    const signal = this.stopped.signal;
    try {
      for (;;) {
        const query: FeedQuery = { since: this.state.cursor, limit: PAGE_LIMIT };
        const { body: page } = await send(this.target, (api) =>
          'space' in feed
            ? api.GET('/v0/spaces/{slug}/events', { params: { path: { slug: feed.space }, query }, signal })
            : api.GET('/v0/me/inbox-events', { params: { query }, signal }),
        );
        this.failures = 0;
        if (page.events.length === 0) return;
        for (const event of page.events) process.stdout.write(this.opts.json ? `${JSON.stringify(event)}\n` : `${eventLine(event)}\n`);
        this.save({ ...this.state, cursor: page.cursor });
        if (page.events.length < PAGE_LIMIT) return;
      }
    } catch (err) {
      if (this.stopped.signal.aborted) return;
      const transient = err instanceof ConnectionError || (err instanceof ApiError && (err.status >= 500 || err.status === 429));
      if (!transient) {
        note(`Could not read the feed: ${(err as Error).message}; trying again at the next delivery.`);
        return;
      }
      this.failures += 1;
      const wait = Math.min(MAX_BACKOFF_SECONDS, 2 ** this.failures);
      note(`Could not read the feed: ${(err as Error).message}; retrying in ${wait} s.`);
      this.retry = setTimeout(() => this.read(), wait * 1000);
    }
  }

  private save(next: ListenState): void {
    writeStateFile(this.statePath, next);
    this.state = next;
  }
}

/** One line per event: cursor, time, Space, type, actor, and a message's text. */
function eventLine(e: FeedEvent): string {
  const payload = payloadOf(e);
  const body = typeof payload.body === 'string' ? oneLine(payload.body) : '';
  const text = body.length > 100 ? `${body.slice(0, 99)}…` : body;
  return [String(e.cursor).padEnd(7), time(e.created_ts).padEnd(20), (e.space ?? '-').padEnd(16), e.type.padEnd(26), (e.actor ?? '-').padEnd(16), text]
    .join('  ')
    .trimEnd();
}

/** Status lines go to stderr, so stdout holds only events (one JSON object a line with --json). */
function note(line: string): void {
  process.stderr.write(`${line}\n`);
}

function answer(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/** The body's bytes, or undefined once it passes MAX_BODY_BYTES (the rest is not read). */
function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function listenOn(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(new ClientError(err.code === 'EADDRINUSE' ? `port ${port} on ${host} is in use; choose another with --port` : `cannot listen on ${host}:${port}: ${err.message}`)),
    );
    server.listen(port, host, () => resolve());
  });
}

function defaultStatePath(host: string, subscription: string): string {
  return join(configDir(), 'webhook-listen', `${host.replace(/[^A-Za-z0-9.-]+/g, '_')}--${subscription}.json`);
}

function registeredPath(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    throw usageError(`--url is not a URL: ${url}`);
  }
}

function readState(path: string, host: string, subscription: string): ListenState {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { host, subscription, feed: null, cursor: null, watermark: null, seen: [] };
    throw new ClientError(`cannot read ${path}: ${(err as Error).message}`);
  }
  let state: Partial<ListenState>;
  try {
    state = JSON.parse(text) as Partial<ListenState>;
  } catch {
    throw new ClientError(`${path} is not JSON; move it away to start afresh`);
  }
  if (state.host !== host || state.subscription !== subscription) {
    throw new ClientError(`${path} is the state of ${String(state.subscription)} on ${String(state.host)}, not of ${subscription} on ${host}`);
  }
  const cursorOrNull = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : null);
  const feed = state.feed && typeof state.feed === 'object' ? ('space' in state.feed && typeof state.feed.space === 'string' ? { space: state.feed.space } : { inbox: true as const }) : null;
  return {
    host,
    subscription,
    feed,
    cursor: cursorOrNull(state.cursor),
    watermark: cursorOrNull(state.watermark),
    seen: Array.isArray(state.seen) ? state.seen.filter((id): id is string => typeof id === 'string') : [],
  };
}

/**
 * Replaces the state file atomically: written and flushed under a temporary
 * name, then renamed over it, and the directory flushed, so a crash leaves
 * either the old state or the new one, and an acknowledged delivery is on disk.
 */
function writeStateFile(path: string, state: ListenState): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(temp, 'wx', 0o600);
  try {
    try {
      writeSync(fd, `${JSON.stringify(state, null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  if (process.platform !== 'win32') {
    const dirFd = openSync(dir, 'r');
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
  }
}

function subscriptionId(value: string): string {
  if (!/^whsub_[a-z2-7]{26}$/.test(value)) throw new InvalidArgumentError('expected a subscription id like whsub_ followed by 26 letters and digits');
  return value;
}

function endpointId(value: string): string {
  if (!/^whep_[a-z2-7]{26}$/.test(value)) throw new InvalidArgumentError('expected an endpoint id like whep_ followed by 26 letters and digits');
  return value;
}

/**
 * `--port`, else the port the registered URL names (a receiver at
 * `http://127.0.0.1:18487/hooks` listens on 18487), else the default. A URL
 * without a port is usually a tunnel or proxy's public address, whose port
 * says nothing about this machine.
 */
export function listenPort(opts: Pick<ListenOptions, 'port' | 'url'>): number {
  if (opts.port !== undefined) return opts.port;
  const named = opts.url ? new URL(opts.url).port : '';
  return named === '' ? DEFAULT_PORT : Number(named);
}

function portNumber(value: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError('expected a port number from 0 to 65535');
  return Number(value);
}

function cursorNumber(value: string): number {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw new InvalidArgumentError('expected a cursor (a whole number, 0 or more)');
  return Number(value);
}
