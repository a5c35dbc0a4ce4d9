import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { TestServer } from './server.js';

/** A PKCE pair (RFC 7636, S256). */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

/** POSTs a form to an OAuth endpoint; answers the status and the JSON body (if any). */
export async function postForm(server: TestServer, path: string, form: Record<string, string>): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(server.url + path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
  const text = await res.text();
  return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>), headers: res.headers };
}

/** Registers a public client by Dynamic Client Registration. */
export async function registerClient(server: TestServer, redirectUris: string[] = [REDIRECT_URI], name = 'Test client'): Promise<string> {
  const res = await fetch(`${server.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: name, redirect_uris: redirectUris, token_endpoint_auth_method: 'none' }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  return ((await res.json()) as { client_id: string }).client_id;
}

/** The authorization endpoint's answer to a query, without following the redirect. */
export async function authorize(server: TestServer, query: Record<string, string>): Promise<{ status: number; location: string | null; body: string }> {
  const res = await fetch(`${server.url}/oauth/authorize?${new URLSearchParams(query).toString()}`, { redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), body: await res.text() };
}

export interface AuthorizationStart {
  requestId: string;
  verifier: string;
  clientId: string;
  state: string;
}

/** Starts a sound authorization request; answers the pending request's id from the consent page URL. */
export async function startAuthorization(
  server: TestServer,
  clientId: string,
  opts: { scope?: string; resource?: string; redirectUri?: string } = {},
): Promise<AuthorizationStart> {
  const { verifier, challenge } = pkce();
  const state = randomBytes(8).toString('hex');
  const res = await authorize(server, {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: opts.redirectUri ?? REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
    scope: opts.scope ?? 'read write',
    resource: opts.resource ?? `${server.url}/v0/mcp`,
  });
  assert.equal(res.status, 302, res.body);
  const consent = new URL(res.location!);
  assert.equal(consent.pathname, '/oauth/consent');
  return { requestId: consent.searchParams.get('request')!, verifier, clientId, state };
}

/** The person approves with their session; answers the code from the redirect. */
export async function approve(
  server: TestServer,
  session: string,
  start: AuthorizationStart,
  choice: { acting_member: string; scope?: string; spaces?: string[] | null },
): Promise<string> {
  const res = await server.request('POST', `/v0/oauth-authorization-requests/${start.requestId}/approve`, {
    token: session,
    body: { acting_member: choice.acting_member, scope: choice.scope ?? 'read write', spaces: choice.spaces ?? null },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const back = new URL(res.body.redirect_to as string);
  assert.equal(back.searchParams.get('state'), start.state);
  assert.equal(back.searchParams.get('iss'), server.url);
  return back.searchParams.get('code')!;
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  scope: string;
  clientId: string;
}

/** A whole consent, end to end over HTTP: registration, authorization, approval, code exchange. */
export async function grantTokens(
  server: TestServer,
  session: string,
  choice: { acting_member: string; scope?: string; spaces?: string[] | null; resource?: 'mcp' | 'rest' },
): Promise<Tokens> {
  const clientId = await registerClient(server);
  const resource = `${server.url}${choice.resource === 'rest' ? '/v0' : '/v0/mcp'}`;
  const start = await startAuthorization(server, clientId, { resource, scope: choice.scope ?? 'read write' });
  const code = await approve(server, session, start, choice);
  const token = await postForm(server, '/oauth/token', {
    grant_type: 'authorization_code',
    code,
    code_verifier: start.verifier,
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    resource,
  });
  assert.equal(token.status, 200, JSON.stringify(token.body));
  return { access_token: token.body.access_token as string, refresh_token: token.body.refresh_token as string, scope: token.body.scope as string, clientId };
}

/** A loopback HTTP server that answers each path as the test says: Client ID Metadata Documents and their faults. */
export class DocumentServer {
  private readonly answers = new Map<string, (req: IncomingMessage, res: ServerResponse) => void>();
  private constructor(
    private readonly server: Server,
    private readonly origin: string,
  ) {}

  /**
   * Plain HTTP on 127.0.0.1; or, with `https`, real TLS at `https://localhost`
   * under the certificate scripts/run-tests.mjs makes for each run and has
   * every test process trust (what the MCP SDK insists a document URL be).
   */
  static async start(opts: { https?: boolean } = {}): Promise<DocumentServer> {
    const holder: { self?: DocumentServer } = {};
    const answer = (req: IncomingMessage, res: ServerResponse) => {
      const found = holder.self!.answers.get(req.url ?? '');
      if (found) found(req, res);
      else res.writeHead(404).end();
    };
    let server: Server;
    if (opts.https) {
      const dir = process.env.ATRIUM_TEST_TLS_DIR;
      if (!dir) throw new Error('ATRIUM_TEST_TLS_DIR is unset: run the tests with scripts/run-tests.mjs, which makes and trusts a certificate for localhost');
      server = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, answer);
    } else {
      server = createServer(answer);
    }
    holder.self = new DocumentServer(server, opts.https ? 'https://localhost' : 'http://127.0.0.1');
    // `localhost` binds the address the name resolves to first, which is where a client connects.
    await new Promise<void>((resolve) => server.listen(0, opts.https ? 'localhost' : '127.0.0.1', resolve));
    return holder.self;
  }

  get url(): string {
    return `${this.origin}:${(this.server.address() as AddressInfo).port}`;
  }

  /** Serves a JSON document at `path`. */
  json(path: string, document: unknown): string {
    return this.raw(path, (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document)));
  }

  raw(path: string, answer: (req: IncomingMessage, res: ServerResponse) => void): string {
    this.answers.set(path, answer);
    return this.url + path;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
