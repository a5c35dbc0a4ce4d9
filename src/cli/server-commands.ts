import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { loadConfig, type Config } from '../config.js';
import { describeDatabase, holdsAtrium } from '../storage/existing.js';
import { startEmbeddedGateway } from './embedded-gateway.js';

// The server is loaded only by the commands that run it, so client commands start fast.
const loadApp = () => import('../app.js');

/** Commands that run the service or work on its database directly (no HTTP). */
export function registerServerCommands(program: Command): void {
  program
    .command('serve')
    .description('start the Atrium server (migrations run at start)')
    .action(async () => {
      const config = loadConfig();
      const { keepStoragePrivate, describeTightened } = await import('../storage/file-modes.js');
      const { holdSingleNodeLock } = await import('../storage/single-node.js');
      const { gatewayStoreUrl } = await import('../gateway/config.js');
      // Before anything opens them (docs/operations.md, "Files and their modes").
      const tightened = keepStoragePrivate(config.dataDir, [config.databaseUrl, gatewayStoreUrl(config.dataDir)]);
      // Before anything starts: a second node on one SQLite file stops here (docs/operations.md, "One node or several").
      holdSingleNodeLock(config);
      // Before the app: the service must know the gateway's issuer key, and must not hold the provider secrets.
      const gateway = await startEmbeddedGateway(config);
      const server = await (await loadApp()).createApp(config);
      for (const t of tightened) server.ctx.log.warn({ path: t.path, was: t.was, now: t.now }, describeTightened(t));
      try {
        await server.http.listen({ host: config.host, port: config.port });
      } catch (err) {
        // The app's workers are already running and would keep the process alive, silent, with nothing listening.
        await server.close().catch(() => undefined);
        await gateway?.stop();
        throw new Error(listenFailure(err, config));
      }
      // Before the listening line: whoever waits for it may stop the node at once.
      const shutdown = (signal: string) => {
        server.ctx.log.info({ signal }, 'shutting down');
        // Stop accepting connections, let in-flight requests finish, then close the database.
        server
          .close()
          .then(() => gateway?.stop())
          .then(
            () => process.exit(0),
            (err: unknown) => {
              server.ctx.log.error({ err }, 'shutdown failed');
              process.exit(1);
            },
          );
      };
      process.once('SIGTERM', shutdown);
      process.once('SIGINT', shutdown);
      const owners = await server.ctx.db.kysely
        .selectFrom('role_assignments')
        .select('id')
        .where('role', '=', 'owner')
        .where('status', '=', 'active')
        .limit(1)
        .execute();
      console.log(`Atrium is listening on ${config.baseUrl} (database ${describeDatabase(config.databaseUrl)})`);
      recordServerAddress(config.dataDir, config.baseUrl);
      if (owners.length === 0) {
        console.log(
          'No owner yet. Create the first one with:\n' +
            '  npx atrium admin create-owner --handle <handle> --email <address>\n' +
            `then sign in with that address at ${config.baseUrl}.`,
        );
      }
    });

  program
    .command('migrate')
    .description('apply database migrations and exit')
    .option('--check', 'change nothing: say which migrations are pending, and whether they are safe while nodes of the previous release serve')
    .action(async (opts: { check?: boolean }) => {
      const config = loadConfig();
      if (opts.check) {
        process.exitCode = await checkMigrations(config);
        return;
      }
      const ctx = await (await loadApp()).createContext(config, await quietLog());
      await ctx.close();
      console.log(`Database ${describeDatabase(config.databaseUrl)} is up to date.`);
    });

  program
    .command('doctor')
    .description('check the configuration before a start and say in plain words what is wrong; changes nothing')
    .action(async () => {
      const { diagnose } = await import('../doctor/doctor.js');
      const found = await diagnose();
      for (const d of found) console.log(`${d.verdict === 'ok' ? 'ok  ' : d.verdict === 'warn' ? 'WARN' : 'FAIL'} ${d.check}: ${d.says}`);
      const failed = found.filter((d) => d.verdict === 'fail').length;
      if (failed > 0) throw new Error(`${failed === 1 ? 'one check' : `${failed} checks`} failed: fix ${failed === 1 ? 'it' : 'them'} before starting`);
      console.log('Nothing stops a start.');
    });

  const admin = program.command('admin').description('administer the configured database directly');
  admin
    .command('create-owner')
    .description('create a human with a host-wide owner role (or give an existing human the role)')
    .requiredOption('--handle <handle>', 'the new owner’s handle')
    .requiredOption('--email <address>', 'sign-in e-mail address')
    .option('--display-name <name>', 'display name (defaults to the handle)')
    .option('--create', 'set up a new database if the configured one does not exist yet')
    .action(async (opts: { handle: string; email: string; displayName?: string; create?: boolean }) => {
      const { createOwner } = await import('./admin.js');
      const config = await adminDatabase(opts.create === true);
      const ctx = await (await loadApp()).createContext(config, await quietLog());
      try {
        const member = await createOwner(ctx, {
          handle: opts.handle,
          email: opts.email,
          ...(opts.displayName ? { displayName: opts.displayName } : {}),
        });
        console.log(`${member.handle} is an owner. Sign in with ${member.email ?? opts.email} at ${serverAddress(ctx.config)}.`);
      } finally {
        await ctx.close();
      }
    });

  admin
    .command('janitor')
    .description('remove what has expired now, as the leading node does every ten minutes (docs/operations.md, "Growth")')
    .action(async () => {
      const { Janitor } = await import('../janitor/janitor.js');
      const ctx = await (await loadApp()).createContext(await adminDatabase(false), await quietLog());
      try {
        const janitor = new Janitor({ ...ctx, leading: () => true, onBatch: (table, n) => console.log(`removed ${n} from ${table}`) });
        const run = await janitor.run();
        const removed = Object.entries(run?.removed ?? {}).filter(([, n]) => n > 0);
        console.log(removed.length === 0 ? 'Nothing had expired.' : `Removed ${removed.map(([table, n]) => `${n} from ${table}`).join(', ')}.`);
        if (run && run.skipped.length > 0) console.log(`Left to the node sweeping them now: ${run.skipped.join(', ')}.`);
      } finally {
        await ctx.close();
      }
    });
  admin
    .command('backup')
    .description('write a consistent backup of this host to one archive while it serves (docs/operations.md)')
    .requiredOption('--to <file>', 'the archive to write; never overwritten')
    .action(async (opts: { to: string }) => {
      const { takeBackup } = await import('../backup/backup.js');
      const config = await adminDatabase(false);
      const manifest = await takeBackup(config, opts.to, (line) => console.error(line));
      const bytes = manifest.files.reduce((sum, f) => sum + f.bytes, 0);
      console.log(`Backup written to ${resolve(opts.to)}: ${manifest.files.length} files, ${bytes} bytes, up to event ${manifest.event_cursor ?? 'none'}.`);
      if (manifest.database === 'postgres') console.log('The database itself is not in it: keep a pg_dump taken after this point beside it (docs/operations.md).');
    });
  admin
    .command('restore')
    .description('restore a backup into a fresh data directory (and, on SQLite, no database yet)')
    .requiredOption('--from <file>', 'the archive written by atrium admin backup')
    .action(async (opts: { from: string }) => {
      const { restoreBackup } = await import('../backup/restore.js');
      const config = loadConfig();
      console.error(`Database: ${describeDatabase(config.databaseUrl)}`);
      const { manifest, placed, warnings } = await restoreBackup(config, opts.from);
      for (const warning of warnings) console.error(`Warning: ${warning}`);
      console.log(`Restored ${placed.length} files from the backup of ${manifest.created_ts}, up to event ${manifest.event_cursor ?? 'none'}:`);
      for (const path of placed) console.log(`  ${path}`);
      console.log('Check it with: atrium admin verify');
    });
  admin
    .command('verify')
    .description('check a live or restored host: the event log, blobs, Resource versions, signing keys and the gateway ledger')
    .action(async () => {
      const { verifyHost } = await import('../integrity/verify.js');
      const findings = await verifyHost(await adminDatabase(false));
      let faults = 0;
      for (const finding of findings) {
        console.log(`${finding.faults.length === 0 ? 'ok   ' : 'FAULT'} ${finding.check}: ${finding.summary}`);
        for (const fault of finding.faults) console.log(`        ${fault}`);
        faults += finding.faults.length;
      }
      if (faults > 0) throw new Error(`verify found ${faults === 1 ? 'a fault' : `${faults} faults`}`);
      console.log('All checks passed.');
    });

  const webhooks = program.command('webhooks').description('webhook signing keys (on the configured database)');
  webhooks
    .command('rotate-key')
    .description('make a new webhook signing key active; the previous one stays published as retiring for 7 days')
    .action(async () => {
      const ctx = await (await loadApp()).createContext(await adminDatabase(false), await quietLog());
      try {
        const { active, retiring } = await ctx.webhookKeys.rotate();
        console.log(`New active signing key: ${active}`);
        if (retiring) console.log(`Retiring (still published for 7 days): ${retiring}`);
        console.log('Every node signs with the new key from its next request.');
      } finally {
        await ctx.close();
      }
    });
}

/**
 * `atrium migrate --check` (docs/operations.md, "Upgrades"): exit 0 when
 * nothing is pending or every pending migration only expands the schema (safe
 * while old nodes serve), 1 when one is a contract step (stop the old nodes
 * first).
 */
async function checkMigrations(config: Config): Promise<number> {
  const named = describeDatabase(config.databaseUrl);
  if (!(await holdsAtrium(config.databaseUrl))) {
    console.log(`No Atrium database at ${named} yet: the first start (or atrium migrate) sets one up.`);
    return 0;
  }
  const { Database } = await import('../storage/database.js');
  const { systemClock } = await import('../shared/clock.js');
  const db = Database.open(config.databaseUrl, { clock: systemClock });
  try {
    const pending = await db.pendingMigrations();
    if (pending.length === 0) {
      console.log(`Database ${named} is up to date.`);
      return 0;
    }
    console.log(`Database ${named}: ${pending.length} migration${pending.length === 1 ? '' : 's'} pending:`);
    for (const m of pending) console.log(`  ${m.name}  ${m.contract === undefined ? 'expand: safe while nodes of the previous release serve' : `contract: ${m.contract}`}`);
    const unsafe = pending.filter((m) => m.contract !== undefined);
    if (unsafe.length > 0) {
      console.log('Not safe while nodes of the previous release serve: stop them, then migrate and start the new release.');
      return 1;
    }
    console.log('Safe while nodes of the previous release serve: start a node of this release (it migrates), then replace the old nodes one by one.');
    return 0;
  } finally {
    await db.destroy();
  }
}

/**
 * The configured database for a command that works on it directly, named on
 * stderr so that a person sees which one was used. It must already hold an
 * Atrium database unless `create`: run from another directory (or without the
 * server's ATRIUM_DATA_DIR), an admin command once made a new, empty database
 * there, and the owner it created could never sign in to the server.
 */
async function adminDatabase(create: boolean): Promise<Config> {
  const config = loadConfig();
  const named = describeDatabase(config.databaseUrl);
  if (!create && !(await holdsAtrium(config.databaseUrl))) {
    throw new Error(
      `no Atrium database at ${named}. Admin commands work on the server's database: run this in the server's directory, ` +
        'or set ATRIUM_DATA_DIR or ATRIUM_DATABASE_URL as the server has them. To set up a new database there, add --create.',
    );
  }
  console.error(`Database: ${named}`);
  return config;
}

/**
 * One-shot commands talk to a person: their own output says what happened, so
 * the structured log stays quiet unless ATRIUM_LOG_LEVEL asks for more.
 */
async function quietLog() {
  const { createLogger } = await import('../logger.js');
  return { log: createLogger(process.env.ATRIUM_LOG_LEVEL ?? 'warn') };
}

const SERVER_FILE = 'server.json';

/**
 * `serve` notes where it listens in the data directory, so that `admin`
 * commands run from another shell (often without the server's environment)
 * can point people at the right address rather than the default one.
 */
function recordServerAddress(dataDir: string, baseUrl: string): void {
  try {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, SERVER_FILE), `${JSON.stringify({ base_url: baseUrl, pid: process.pid })}\n`);
  } catch {
    // Only a hint for admin commands; the server runs without it.
  }
}

/** ATRIUM_BASE_URL when set here; else where a server on this data directory said it listens; else the configured default. */
function serverAddress(config: Config, env: NodeJS.ProcessEnv = process.env): string {
  if (env.ATRIUM_BASE_URL) return config.baseUrl;
  try {
    const recorded = JSON.parse(readFileSync(join(config.dataDir, SERVER_FILE), 'utf8')) as { base_url?: unknown };
    if (typeof recorded.base_url === 'string') return recorded.base_url;
  } catch {
    // No server has run on this data directory yet.
  }
  return config.baseUrl;
}

/** Why `serve` could not take its address, in words that say what to change. */
function listenFailure(err: unknown, config: Config): string {
  const code = (err as { code?: unknown }).code;
  const at = `${config.host}:${config.port}`;
  if (code === 'EADDRINUSE') return `cannot listen on ${at}: something else is listening there (set ATRIUM_PORT to another port, or stop it)`;
  if (code === 'EACCES') return `cannot listen on ${at}: this user may not take that port (set ATRIUM_PORT above 1023)`;
  if (code === 'EADDRNOTAVAIL') return `cannot listen on ${at}: this machine has no such address (set ATRIUM_HOST)`;
  return `cannot listen on ${at}: ${err instanceof Error ? err.message : String(err)}`;
}
