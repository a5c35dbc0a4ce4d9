import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { AppContext } from './app-context.js';
import type { Config } from './config.js';
import { loadCredentialConnections } from './credentials/connections.js';
import { buildHttpServer } from './http/server.js';
import { createLogger } from './logger.js';
import { addressPolicy } from './egress/address-policy.js';
import { WebhookSigningKeys } from './webhooks/signing-keys.js';
import { WebhookWorker } from './webhooks/worker.js';
import { registerMcpEndpoint } from './mcp/endpoint.js';
import { registerOAuthEndpoints } from './oauth/routes.js';
import { createMailer, type Mailer } from './mail/mailer.js';
import { createMentionParser } from './messages/mention-parser.js';
import { addressDigester, loadAddressSecret, type AddressDigest } from './shared/client-address.js';
import { allOperations, sharedSchemas } from './operations/index.js';
import { systemClock, type Clock } from './shared/clock.js';
import { Database } from './storage/database.js';
import { startEventLog, type EventLog } from './events/log.js';
import { countedCredentialChanges } from './identity/credential-change-count.js';
import { heardCredentialChanges } from './identity/credential-notices.js';
import { keyResolutionWatcher } from './identity/key-resolution-writes.js';
import { MemberKeyCache } from './identity/member-key-cache.js';
import { createMetrics } from './observability/metrics.js';
import { KnownSpaces } from './spaces/known-spaces.js';
import { KeptResources } from './resources/kept-documents.js';
import { registerObservability, type Readiness } from './observability/routes.js';
import { StorageFileWatch } from './storage/file-watch.js';
import { Janitor } from './janitor/janitor.js';
import { ERROR_CODE_HEADER } from './shared/error-catalogue.js';
import { OperatorSampler } from './operator/sampler.js';
import { registerDocs } from './web/docs.js';
import { registerWebApp } from './web/static.js';
import { CredentialCallLimits } from './credentials/call-limits.js';
import { SearchBackfill } from './search/backfill.js';
import { setWritesIndexed } from './search/index-writes.js';
import { PendingDocumentMover } from './search/pending.js';

export interface AppOptions {
  clock?: Clock;
  log?: Logger;
  mailer?: Mailer;
  /** PostgreSQL schema to live in (tests isolate themselves this way). */
  databaseSchema?: string;
  /** Where the guides served at /docs/<name> are read from; docs/ of the package unless a test says otherwise. */
  docsDir?: string;
}

export interface App {
  http: FastifyInstance;
  ctx: AppContext;
  /** False from the moment the node starts closing: `/readyz` answers 503. */
  readiness: Readiness;
  /** Indexes what existed before the search index, in the background (docs/search-index.md). */
  searchBackfill: SearchBackfill;
  /** SQLite: moves new records' search documents into the index in the background (src/search/pending.ts). */
  pendingDocuments: PendingDocumentMover;
  /** Removes expired bookkeeping rows on the leading node (docs/operations.md, "Growth"). */
  janitor: Janitor;
  /** Writes this node's readings for the operator's page every ten seconds. */
  sampler: OperatorSampler;
  close(): Promise<void>;
}

/**
 * Opens the database (running migrations, docs/configuration.md) and builds the services
 * every entry point shares: the HTTP server and the admin CLI alike.
 */
export async function createContext(config: Config, options: AppOptions = {}): Promise<AppContext & { webhooks: WebhookWorker; close(): Promise<void> }> {
  const log = options.log ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  // Read before the database opens: a malformed file stops the start with nothing else begun.
  const credentialConnections = loadCredentialConnections(config.credentialConnectionsPath);
  setWritesIndexed(config.searchIndex);
  const db = Database.open(config.databaseUrl, { clock, busyTimeoutMs: config.sqliteBusyTimeoutMs, ...(options.databaseSchema ? { schema: options.databaseSchema } : {}) });
  let addressDigest: AddressDigest;
  let events: EventLog;
  let webhookKeys: WebhookSigningKeys;
  const metrics = createMetrics(config.metrics.enabled);
  // PostgreSQL: changes to members and member keys, heard on the event log's listener connection.
  const heardCredentials = heardCredentialChanges();
  try {
    await db.migrate();
    addressDigest = addressDigester(await loadAddressSecret(db.kysely));
    webhookKeys = await WebhookSigningKeys.open(db.kysely, { dataDir: config.dataDir, sealingKey: config.webhookSealingKey, clock });
    events = await startEventLog(db, { log, metrics, topics: { credentials: heardCredentials } });
  } catch (err) {
    await db.destroy();
    throw err;
  }
  const mailer =
    options.mailer ??
    createMailer({ ...(config.smtpUrl ? { smtpUrl: config.smtpUrl } : {}), from: config.mailFrom, dataDir: config.dataDir, log });
  const mentions = createMentionParser({
    timeoutMs: config.mentionParseTimeoutMs,
    workers: config.mentionParseWorkers,
    queueLimit: config.mentionParseQueueLimit,
    perMember: config.mentionParsePerMember,
  });
  const memberKeys = new MemberKeyCache(
    db.dialect === 'sqlite' ? countedCredentialChanges(db.kysely) : heardCredentials,
    () => clock.now().getTime(),
  );
  db.watchWrites(keyResolutionWatcher(() => memberKeys.forget()));
  const ctx = {
    config,
    db,
    events,
    spaces: new KnownSpaces(db.kysely, events.tail),
    resources: new KeptResources(events.tail),
    memberKeys,
    metrics,
    clock,
    mailer,
    mentions,
    addressDigest,
    log,
    egress: addressPolicy(config.egressAllowCidrs),
    webhookKeys,
    credentialConnections,
    credentialCalls: new CredentialCallLimits(config.credentialCalls),
  };
  // Built here so every context can tell it of new work; only serving nodes start it (createApp).
  const webhooks = new WebhookWorker(ctx);
  return {
    ...ctx,
    webhooks,
    async close() {
      await webhooks.stop();
      mailer.close();
      await mentions.close();
      await events.stop();
      await db.destroy();
    },
  };
}

/** The composition root: the one place where configuration becomes running parts. */
export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const ctx = await createContext(config, options);
  // The database file and data directory this node started with (docs/operations.md, "Lost storage").
  const storage = new StorageFileWatch({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }, (reason) => {
    ctx.db.refuseWrites(reason);
    ctx.log.error({ reason }, `${reason}: this node now refuses writes and reports not ready; restore it from a backup and restart the node (restarting as it is starts empty)`);
  });
  storage.start();
  const readiness: Readiness = { draining: false, storageLost: () => storage.check() };
  const janitor = new Janitor({ db: ctx.db, clock: ctx.clock, log: ctx.log, metrics: ctx.metrics, config, leading: () => ctx.events.leading });
  // This node's readings for the operator's page (docs/operations.md, "The operator's page").
  const sampler = new OperatorSampler({
    db: ctx.db,
    clock: ctx.clock,
    log: ctx.log,
    events: ctx.events,
    ready: () => !readiness.draining && ctx.db.writesRefused === undefined,
    janitor: () => janitor.last,
  });
  // The contract operation serves the document generated from the routes built here.
  const contract = { document: (): unknown => undefined };
  const operations = allOperations(() => contract.document());
  const http = await buildHttpServer(ctx, {
    operations,
    sharedSchemas,
    extraRoutes: async (app, waits) => {
      // Liveness, readiness and metrics (docs/operations.md).
      registerObservability(app, ctx, ctx.metrics, readiness);
      app.addHook('onResponse', async (request, reply) => {
        if ((request.routeOptions.config as { operation?: string } | undefined)?.operation === undefined) return;
        const code = reply.getHeader(ERROR_CODE_HEADER);
        sampler.noteAnswer(reply.statusCode, typeof code === 'string' ? code : undefined);
      });
      // The same operations as tools, at /v0/mcp (docs/mcp.md).
      registerMcpEndpoint(app, ctx, { operations, sharedSchemas, waits });
      // The OAuth 2.1 authorization server that lets MCP clients connect by URL (docs/oauth.md).
      await registerOAuthEndpoints(app, ctx);
      // The API reference and the guides (docs/web.md), at /docs.
      await registerDocs(app, options.docsDir ? { docsDir: options.docsDir } : {});
      // The web app (docs/web.md): at `/`, never shadowing the API or /docs.
      await registerWebApp(app);
    },
  });
  contract.document = () => http.swagger();
  await http.ready();
  ctx.webhooks.start();
  // Only serving nodes walk, never the admin CLI; the node serves meanwhile. With the index
  // off nothing is written to it: a later start with it on walks what was written meanwhile.
  const searchBackfill = new SearchBackfill(ctx);
  // SQLite: new records' documents wait to be moved into the index together (docs/search-index.md).
  const pendingDocuments = new PendingDocumentMover(ctx.db, ctx.log);
  if (config.searchIndex) {
    searchBackfill.start();
    pendingDocuments.start();
  }
  janitor.start();
  sampler.start();
  return {
    http,
    ctx,
    readiness,
    searchBackfill,
    pendingDocuments,
    janitor,
    sampler,
    async close() {
      readiness.draining = true;
      storage.stop();
      sampler.stop();
      await janitor.stop();
      await searchBackfill.stop();
      await pendingDocuments.stop();
      // Before the tail stops: a stopped tail no longer makes anyone wait.
      await ctx.webhooks.stop();
      // Long polls answer now with what they have; otherwise closing would wait out every one.
      ctx.events.tail.stop();
      await http.close();
      await ctx.close();
    },
  };
}
