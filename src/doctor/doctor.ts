import { accessSync, constants, existsSync, statfsSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import ipaddr from 'ipaddr.js';
import nodemailer from 'nodemailer';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { gatewayStoreUrl } from '../gateway/config.js';
import { credentialValues, loadDestinations } from '../gateway/destinations.js';
import { systemClock } from '../shared/clock.js';
import { Database } from '../storage/database.js';
import { describeDatabase, holdsAtrium } from '../storage/existing.js';
import { readableByOthers, sqliteFiles } from '../storage/file-modes.js';

/** `ok`: as it should be; `warn`: works, but a person should know; `fail`: the host will not work as configured. */
export type Verdict = 'ok' | 'warn' | 'fail';

export interface Diagnosis {
  check: string;
  verdict: Verdict;
  /** In plain words: what was found, and for warn and fail what to change. */
  says: string;
}

/** Free space below which the data directory's disk is a warning, and a failure. */
const LOW_DISK_BYTES = 1024 ** 3;
const NO_DISK_BYTES = 100 * 1024 ** 2;
/** How long the SMTP server has to answer. */
const SMTP_TIMEOUT_MS = 5_000;

/**
 * `atrium doctor` (docs/operations.md, "Before the first start"): reads the
 * configuration as `atrium serve` would and checks what a start would meet,
 * changing nothing: the base URL and listen address, the database, disk
 * space, the SMTP server, the egress allow-list, gateway destinations and the
 * embedded gateway's port, and who may read the keys and the databases.
 */
export async function diagnose(env: NodeJS.ProcessEnv = process.env): Promise<Diagnosis[]> {
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return [{ check: 'configuration', verdict: 'fail', says: err.message }];
    throw err;
  }
  return [
    { check: 'configuration', verdict: 'ok', says: 'every ATRIUM_* variable set is well formed' },
    baseUrl(config),
    await listenAddress(config),
    ...(await database(config)),
    diskSpace(config),
    await smtp(config),
    egress(config),
    gatewayDestinations(config, env),
    await gatewayPort(config),
    keyFiles(config),
    storageModes(config, env),
  ];
}

function baseUrl(config: Config): Diagnosis {
  const url = new URL(config.baseUrl);
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol === 'http:' && !loopback) {
    return {
      check: 'base URL',
      verdict: 'warn',
      says: `${config.baseUrl} is plain HTTP on a name others reach: sign-in codes, cookies and keys would cross the network unencrypted. Put HTTPS in front and set ATRIUM_BASE_URL to the https:// address`,
    };
  }
  return { check: 'base URL', verdict: 'ok', says: `${config.baseUrl}${loopback ? ' (this machine only: set ATRIUM_BASE_URL to the address people use)' : ''}` };
}

async function listenAddress(config: Config): Promise<Diagnosis> {
  const taken = await takenBecause(config.host, config.port);
  const at = `${config.host}:${config.port}`;
  if (taken === undefined) return { check: 'listen address', verdict: 'ok', says: `${at} is free` };
  const says =
    taken.code === 'EADDRINUSE'
      ? `something already listens on ${at} (another Atrium?): stop it, or set ATRIUM_PORT`
      : taken.code === 'EACCES'
        ? `this user may not listen on ${at}: set ATRIUM_PORT above 1023`
        : taken.code === 'EADDRNOTAVAIL'
          ? `this machine has no address ${config.host}: set ATRIUM_HOST`
          : `cannot listen on ${at}: ${taken.message}`;
  return { check: 'listen address', verdict: 'fail', says };
}

/**
 * `serve` with gateway destinations and no ATRIUM_GATEWAY_URL starts the
 * credential gateway beside it on 127.0.0.1:ATRIUM_GATEWAY_PORT; a port
 * already taken stops that start as surely as a taken listen address.
 */
async function gatewayPort(config: Config): Promise<Diagnosis> {
  if (config.gateway.explicitUrl) return { check: 'gateway port', verdict: 'ok', says: `ATRIUM_GATEWAY_URL names a gateway run on its own (${config.gateway.url}): serve starts none` };
  if (config.gateway.destinationsPath === undefined) return { check: 'gateway port', verdict: 'ok', says: 'no ATRIUM_GATEWAY_DESTINATIONS: serve starts no embedded gateway' };
  const port = config.gateway.port;
  if (port === 0) return { check: 'gateway port', verdict: 'ok', says: 'ATRIUM_GATEWAY_PORT is 0: the embedded gateway takes a free port' };
  const at = `127.0.0.1:${port}`;
  if (port === config.port && ['127.0.0.1', '0.0.0.0', '::', 'localhost'].includes(config.host)) {
    return { check: 'gateway port', verdict: 'fail', says: `the embedded gateway would listen on ${at}, where the service listens: set ATRIUM_GATEWAY_PORT to another port` };
  }
  const taken = await takenBecause('127.0.0.1', port);
  if (taken === undefined) return { check: 'gateway port', verdict: 'ok', says: `${at} is free for the embedded gateway` };
  const says =
    taken.code === 'EADDRINUSE'
      ? `something already listens on ${at}, where the embedded gateway would (an earlier one?): stop it, or set ATRIUM_GATEWAY_PORT`
      : taken.code === 'EACCES'
        ? `this user may not listen on ${at}: set ATRIUM_GATEWAY_PORT above 1023`
        : `the embedded gateway cannot listen on ${at}: ${taken.message}`;
  return { check: 'gateway port', verdict: 'fail', says };
}

/** Why nothing could listen on host:port now, or undefined when it could; the port is let go at once. */
async function takenBecause(host: string, port: number): Promise<NodeJS.ErrnoException | undefined> {
  const server = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host, port, exclusive: true }, resolve);
    });
    return undefined;
  } catch (err) {
    return err as NodeJS.ErrnoException;
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

async function database(config: Config): Promise<Diagnosis[]> {
  const named = describeDatabase(config.databaseUrl);
  let holds: boolean;
  try {
    holds = await holdsAtrium(config.databaseUrl);
  } catch (err) {
    return [{ check: 'database', verdict: 'fail', says: `cannot reach ${named}: ${(err as Error).message}` }];
  }
  if (!holds) {
    if (config.databaseUrl.startsWith('sqlite:')) {
      const dir = dirname(resolve(config.databaseUrl.slice('sqlite:'.length)));
      const parent = existsSync(dir) ? dir : dirname(dir);
      if (!writable(parent)) return [{ check: 'database', verdict: 'fail', says: `${named} does not exist yet, and this user may not create it in ${parent}` }];
    }
    return [{ check: 'database', verdict: 'ok', says: `${named} holds no Atrium database yet: the first start sets one up` }];
  }
  const db = Database.open(config.databaseUrl, { clock: systemClock });
  try {
    const pending = await db.pendingMigrations();
    const contract = pending.filter((m) => m.contract !== undefined);
    return [
      { check: 'database', verdict: 'ok', says: `${named} answers and holds an Atrium database` },
      pending.length === 0
        ? { check: 'migrations', verdict: 'ok', says: 'none pending' }
        : {
            check: 'migrations',
            verdict: contract.length > 0 ? 'warn' : 'ok',
            says: `${pending.length} pending, run at the next start${contract.length > 0 ? `; ${contract.map((m) => m.name).join(', ')} is not safe while nodes of the previous release serve (atrium migrate --check)` : ''}`,
          },
    ];
  } finally {
    await db.destroy();
  }
}

function diskSpace(config: Config): Diagnosis {
  let dir = resolve(config.dataDir);
  while (!existsSync(dir)) dir = dirname(dir);
  const stats = statfsSync(dir);
  const free = stats.bavail * stats.bsize;
  const said = `${(free / 1024 ** 3).toFixed(1)} GiB free where ${resolve(config.dataDir)} is`;
  if (free < NO_DISK_BYTES) return { check: 'disk space', verdict: 'fail', says: `${said}: too little for the database to grow; free some space` };
  if (free < LOW_DISK_BYTES) return { check: 'disk space', verdict: 'warn', says: `${said}: the database and backups will soon need more` };
  return { check: 'disk space', verdict: 'ok', says: said };
}

async function smtp(config: Config): Promise<Diagnosis> {
  if (config.smtpUrl === undefined) {
    return {
      check: 'mail',
      verdict: 'warn',
      says: `no ATRIUM_SMTP_URL: sign-in codes are written to ${join(resolve(config.dataDir), 'outbox')} and the log, not mailed to anyone. Fine on your own machine; set it for people elsewhere`,
    };
  }
  const transport = nodemailer.createTransport(config.smtpUrl, { connectionTimeout: SMTP_TIMEOUT_MS, greetingTimeout: SMTP_TIMEOUT_MS, socketTimeout: SMTP_TIMEOUT_MS });
  const at = (() => {
    try {
      const u = new URL(config.smtpUrl);
      return `${u.protocol}//${u.host}`;
    } catch {
      return 'the SMTP server';
    }
  })();
  try {
    await transport.verify();
    return { check: 'mail', verdict: 'ok', says: `${at} answers and takes our login` };
  } catch (err) {
    return { check: 'mail', verdict: 'fail', says: `${at} did not accept a connection: ${(err as Error).message}. Check ATRIUM_SMTP_URL` };
  } finally {
    transport.close();
  }
}

function egress(config: Config): Diagnosis {
  if (config.egressAllowCidrs.length === 0) return { check: 'egress allow-list', verdict: 'ok', says: 'empty: webhooks and the gateway reach public addresses only' };
  const everything = config.egressAllowCidrs.filter((cidr) => ipaddr.parseCIDR(cidr)[1] === 0);
  if (everything.length > 0) {
    return {
      check: 'egress allow-list',
      verdict: 'fail',
      says: `ATRIUM_EGRESS_ALLOW_CIDRS holds ${everything.join(', ')}, every address: a webhook URL could then reach this machine's and this network's private services. Name only the ranges receivers need`,
    };
  }
  const loopback = config.egressAllowCidrs.filter((cidr) => {
    const [address] = ipaddr.parseCIDR(cidr);
    return address.range() === 'loopback';
  });
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(new URL(config.baseUrl).hostname);
  if (loopback.length > 0 && !local) {
    return {
      check: 'egress allow-list',
      verdict: 'warn',
      says: `ATRIUM_EGRESS_ALLOW_CIDRS allows ${loopback.join(', ')}: any member's webhook URL may reach services on this machine. Keep it for development`,
    };
  }
  return { check: 'egress allow-list', verdict: 'ok', says: `private ranges allowed: ${config.egressAllowCidrs.join(', ')}` };
}

function gatewayDestinations(config: Config, env: NodeJS.ProcessEnv): Diagnosis {
  const path = config.gateway.destinationsPath;
  if (path === undefined) return { check: 'gateway destinations', verdict: 'ok', says: 'none configured: no external calls through the credential gateway' };
  try {
    const destinations = loadDestinations(path);
    credentialValues(destinations, env);
    return { check: 'gateway destinations', verdict: 'ok', says: `${destinations.length} in ${path}, each with its credential variable set` };
  } catch (err) {
    return { check: 'gateway destinations', verdict: 'fail', says: (err as Error).message };
  }
}

/** The sealing key must be readable by this user alone; the data directory must not be writable by others. */
function keyFiles(config: Config): Diagnosis {
  const dataDir = resolve(config.dataDir);
  const problems: string[] = [];
  const key = join(dataDir, 'webhook-sealing.key');
  if (config.webhookSealingKey === undefined && existsSync(key) && (statSync(key).mode & 0o077) !== 0) {
    problems.push(`${key} may be read by others (mode ${(statSync(key).mode & 0o777).toString(8)}): chmod 600 it`);
  }
  if (existsSync(dataDir) && (statSync(dataDir).mode & 0o002) !== 0) problems.push(`${dataDir} may be written by anyone: chmod o-w it`);
  if (problems.length > 0) return { check: 'key files', verdict: 'fail', says: problems.join('; ') };
  return {
    check: 'key files',
    verdict: 'ok',
    says: config.webhookSealingKey !== undefined ? 'the sealing key comes from ATRIUM_WEBHOOK_SEALING_KEY' : existsSync(key) ? `${key} is readable by this user only` : 'no key file yet: the first start writes one, readable by this user only',
  };
}

/**
 * The data directory and the SQLite databases (the host's and the gateway's
 * store, with their -wal and -shm) readable by this user alone. `serve`
 * tightens them at start, so others' access is a warning here, not a failure.
 */
function storageModes(config: Config, env: NodeJS.ProcessEnv): Diagnosis {
  const databases = [config.databaseUrl, gatewayStoreUrl(config.dataDir, env)].flatMap((url) => (url.startsWith('sqlite:') && !url.endsWith(':memory:') ? sqliteFiles(url.slice('sqlite:'.length)) : []));
  const open = readableByOthers([resolve(config.dataDir), ...databases]);
  if (open.length === 0) return { check: 'database file modes', verdict: 'ok', says: 'the data directory and the databases in it are readable by this user only (or not made yet: a start makes them so)' };
  return {
    check: 'database file modes',
    verdict: 'warn',
    says: `${open.map((o) => `${o.path} (mode ${o.mode})`).join(', ')} may be read by other users of this machine: the next start makes directories 0700 and files 0600, or chmod them now`,
  };
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
