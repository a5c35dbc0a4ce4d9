import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Config } from '../config.js';
import { holdsAtrium } from '../storage/existing.js';
import { ArchiveRefused, readArchive, syncFile, type Manifest } from './archive.js';
import { gatewayStoreUrl } from '../gateway/config.js';

export interface Restored {
  manifest: Manifest;
  /** Where each file went. */
  placed: string[];
  /** What a person should know before starting the host. */
  warnings: string[];
}

/**
 * `atrium admin restore --from FILE` (docs/operations.md, "Backup and
 * restore"): into a fresh data directory (and, on SQLite, no database yet)
 * only. The archive is read whole into a directory beside the target and
 * checked against its manifest before anything is put in place, so a damaged
 * or incomplete archive leaves nothing behind; then each file is moved in.
 */
export async function restoreBackup(config: Config, from: string): Promise<Restored> {
  const source = resolve(from);
  if (!existsSync(source)) throw new ArchiveRefused(`${source} does not exist`);
  const dataDir = resolve(config.dataDir);
  const sqlitePath = config.databaseUrl.startsWith('sqlite:') ? resolve(config.databaseUrl.slice('sqlite:'.length)) : undefined;
  refuseNonEmpty(dataDir, sqlitePath);
  mkdirSync(dirname(dataDir), { recursive: true });
  const staging = mkdtempSync(join(dirname(dataDir), '.atrium-restore-'));
  try {
    const manifest = await readArchive(source, staging);
    const warnings: string[] = [];
    if (manifest.database === 'sqlite' && sqlitePath === undefined) {
      throw new ArchiveRefused(`${source} holds a SQLite database, and this host is configured for PostgreSQL (ATRIUM_DATABASE_URL); restore it with a SQLite configuration`);
    }
    if (manifest.database === 'postgres') {
      if (sqlitePath !== undefined) throw new ArchiveRefused(`${source} was taken on PostgreSQL; restore it with the host's ATRIUM_DATABASE_URL, after pg_restore of the database dump`);
      // Not refused: the files may go first and pg_restore after, as long as both are done before the host starts.
      if (!(await holdsAtrium(config.databaseUrl))) warnings.push('The PostgreSQL database holds no Atrium database yet: restore its dump with pg_restore (docs/operations.md) before starting the host.');
    }
    if (manifest.base_url.replace(/\/+$/, '') !== config.baseUrl.replace(/\/+$/, '')) {
      warnings.push(
        `This backup was taken with ATRIUM_BASE_URL ${manifest.base_url}; this host is configured with ${config.baseUrl}. ` +
          'Member ids (URLs under the base), the webhook issuer and signed webhook keys URL, OAuth issuer and sign-in links are made from it: ' +
          'clients and receivers that stored the old ones will not match. Set ATRIUM_BASE_URL to the old value to keep them.',
      );
    }
    const placed: string[] = [];
    const ledger = gatewayStoreUrl(dataDir);
    for (const file of manifest.files) {
      const at = join(staging, file.path);
      let to: string;
      if (file.path === 'atrium.db') to = sqlitePath!;
      else if (file.path === 'gateway.db') {
        if (!ledger.startsWith('sqlite:')) {
          warnings.push(`The backup holds the gateway's SQLite ledger, and ATRIUM_GATEWAY_DATABASE_URL names PostgreSQL: it was put at ${join(dataDir, 'gateway.db')}, unused.`);
          to = join(dataDir, 'gateway.db');
        } else to = resolve(ledger.slice('sqlite:'.length));
      } else to = join(dataDir, file.path.slice('data/'.length));
      if (existsSync(to)) throw new ArchiveRefused(`${to} exists already; restore only into a fresh data directory`);
      mkdirSync(dirname(to), { recursive: true });
      renameSync(at, to);
      syncFile(to);
      placed.push(to);
    }
    for (const dir of new Set(placed.map((p) => dirname(p)))) syncFile(dir);
    return { manifest, placed, warnings };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** A restore never mixes with a host's data: the data directory must be empty or absent, and the SQLite file absent. */
function refuseNonEmpty(dataDir: string, sqlitePath: string | undefined): void {
  if (sqlitePath !== undefined && existsSync(sqlitePath)) {
    throw new ArchiveRefused(`refusing to restore: the database ${sqlitePath} exists already. Restore into a new data directory (ATRIUM_DATA_DIR), or move this one away first`);
  }
  if (existsSync(dataDir)) {
    const held = readdirSync(dataDir);
    if (held.length > 0) {
      throw new ArchiveRefused(
        `refusing to restore: the data directory ${dataDir} is not empty (${held.slice(0, 5).join(', ')}${held.length > 5 ? ', …' : ''}). ` +
          'Restore into a new data directory (ATRIUM_DATA_DIR), or move this one away first',
      );
    }
  }
}
