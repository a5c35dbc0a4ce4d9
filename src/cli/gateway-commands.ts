import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';

/**
 * `atrium gateway`: the credential gateway, a process of its own. These
 * commands are its entry point; they load only src/gateway (and what it may
 * import), never the service.
 */
export function registerGatewayCommands(program: Command): void {
  const gateway = program
    .command('gateway')
    .description('run the credential gateway, the process that alone holds provider credentials (docs/gateway.md)')
    .action(async () => {
      const { loadGatewayConfig } = await import('../gateway/config.js');
      const { createGateway } = await import('../gateway/gateway.js');
      const { createPrivateSqliteFile, describeTightened, keepStoragePrivate } = await import('../storage/file-modes.js');
      const config = loadGatewayConfig();
      // Its store holds the ledger: readable by this user alone, made so before it is opened (docs/operations.md, "Files and their modes").
      const tightened = keepStoragePrivate(config.dataDir, [config.databaseUrl]);
      const storePath = config.databaseUrl.startsWith('sqlite:') ? config.databaseUrl.slice('sqlite:'.length) : undefined;
      if (storePath && storePath !== ':memory:') createPrivateSqliteFile(storePath);
      const running = await createGateway(config);
      for (const t of tightened) running.ctx.log.warn({ path: t.path, was: t.was, now: t.now }, describeTightened(t));
      let url: string;
      try {
        url = await running.listen();
      } catch (err) {
        await running.close();
        throw err;
      }
      const names = config.destinations.map((d) => d.id).join(', ') || 'none';
      console.log(`Atrium gateway is listening on ${url} (destinations: ${names})`);
      recordGatewayAddress(config.dataDir, url);
      let stopping = false;
      const shutdown = (reason: string) => {
        if (stopping) return;
        stopping = true;
        running.ctx.log.info({ reason }, 'shutting down');
        running.close().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGTERM', () => shutdown('SIGTERM'));
      process.once('SIGINT', () => shutdown('SIGINT'));
      if (process.send) {
        // Started by `atrium serve`: tell it where we listen and which variables
        // hold secrets (names only), and stop when it goes away.
        process.send({ type: 'ready', url, credentialVariables: config.destinations.map((d) => d.credential.env) });
        process.once('disconnect', () => shutdown('parent gone'));
      }
    });

  gateway
    .command('verify-ledger')
    .description('recompute the gateway ledger’s hash chain offline and report the first broken record')
    .option('--database-url <url>', 'the gateway’s store (default: ATRIUM_GATEWAY_DATABASE_URL, else sqlite:<data dir>/gateway.db)')
    .action(async (opts: { databaseUrl?: string }) => {
      const { openStore } = await import('../gateway/store.js');
      const { verifyLedger } = await import('../gateway/ledger.js');
      const { gatewayStoreUrl } = await import('../gateway/config.js');
      const url = opts.databaseUrl ?? gatewayStoreUrl(process.env.ATRIUM_DATA_DIR || './data');
      if (url.startsWith('sqlite:') && !existsSync(url.slice('sqlite:'.length))) throw new Error(`no gateway ledger at ${url}`);
      const store = openStore(url);
      try {
        const result = await verifyLedger(store);
        if (!result.ok) throw new Error(`the ledger is broken at seq ${result.seq}: ${result.reason} (${result.count} records before it verify)`);
        console.log(`Ledger OK: ${result.count} records, chain intact.`);
      } finally {
        await store.close();
      }
    });
}

/** Like `serve`'s server.json: where the gateway on this data directory listens, for people and scripts. */
function recordGatewayAddress(dataDir: string, url: string): void {
  try {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'gateway.json'), `${JSON.stringify({ url, pid: process.pid })}\n`);
  } catch {
    // Only a hint; the gateway runs without it.
  }
}
