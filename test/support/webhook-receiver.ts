import { createPublicKey, verify } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the receiver got it: the raw body bytes, and whether its signature held. */
export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: Record<string, unknown>;
  /** Checked with node:crypto and the host's published JWK Set, not with Atrium's own code. */
  signatureValid: boolean;
  /** The sender's port: requests on one kept connection share it. */
  remotePort: number;
}

/** How the receiver answers a request at a path; the default echoes a challenge. */
export type Behaviour = (req: ReceivedRequest, res: ServerResponse) => void;

export const echoChallenge: Behaviour = (req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: req.body.challenge }));
};

/** Echoes challenges; answers wakes with `statuses` in turn, then 202 (or `otherwise`, when given, for ever). */
export function answerInTurn(statuses: number[], otherwise = 202): Behaviour {
  let n = 0;
  return (req, res) => {
    if (req.body.type === 'atrium.webhook.challenge') return echoChallenge(req, res);
    res.writeHead(statuses[n++] ?? otherwise).end();
  };
}

/**
 * A webhook receiver on loopback, as a test's independent witness: it fetches
 * the host's key set itself and verifies each request over the raw bytes.
 */
export class WebhookReceiver {
  readonly received: ReceivedRequest[] = [];
  readonly behaviours = new Map<string, Behaviour>();
  private readonly keys = new Map<string, string>();
  private readonly waiting: Array<{ done: () => boolean; resolve: () => void }> = [];
  private server!: Server;
  private port = 0;

  private constructor(private readonly hostUrl: string) {}

  static async start(hostUrl: string): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(hostUrl);
    receiver.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        void receiver.handle(req.url ?? '/', req.headers, Buffer.concat(chunks), res, req.socket.remotePort ?? 0);
      });
    });
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    receiver.port = (receiver.server.address() as AddressInfo).port;
    return receiver;
  }

  /** Requests received at `path` so far. */
  at(path: string): ReceivedRequest[] {
    return this.received.filter((r) => r.path === path);
  }

  /** Resolves once `count` requests have reached `path` (a test's timeout bounds the wait). */
  async waitFor(path: string, count = 1): Promise<ReceivedRequest[]> {
    await this.until(() => this.at(path).length >= count);
    return this.at(path);
  }

  /** Resolves once `done` holds, checked as each request arrives. */
  until(done: () => boolean): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push({ done, resolve }));
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async handle(path: string, headers: IncomingHttpHeaders, raw: Buffer, res: ServerResponse, remotePort: number): Promise<void> {
    const request: ReceivedRequest = {
      path,
      headers,
      raw,
      body: JSON.parse(raw.toString('utf8') || '{}') as Record<string, unknown>,
      signatureValid: await this.verify(headers, raw),
      remotePort,
    };
    this.received.push(request);
    (this.behaviours.get(path) ?? echoChallenge)(request, res);
    for (const waiter of [...this.waiting]) {
      if (!waiter.done()) continue;
      this.waiting.splice(this.waiting.indexOf(waiter), 1);
      waiter.resolve();
    }
  }

  private async verify(headers: IncomingHttpHeaders, raw: Buffer): Promise<boolean> {
    const kid = headers['webhook-key-id'];
    const timestamp = headers['webhook-timestamp'];
    const signature = headers['webhook-signature'];
    if (typeof kid !== 'string' || typeof timestamp !== 'string' || typeof signature !== 'string' || !signature.startsWith('v1=')) return false;
    // Keys are kept once seen, as a receiver would: a request arriving while the host restarts still verifies.
    if (!this.keys.has(kid)) {
      try {
        const set = (await (await fetch(`${this.hostUrl}/v0/webhook-signing-keys`)).json()) as { keys: Array<{ kid: string; x: string }> };
        for (const k of set.keys) this.keys.set(k.kid, k.x);
      } catch {
        return false;
      }
    }
    const x = this.keys.get(kid);
    if (x === undefined) return false;
    const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
    return verify(null, Buffer.concat([Buffer.from(`${kid}.${timestamp}.`), raw]), key, Buffer.from(signature.slice(3), 'base64url'));
  }
}
