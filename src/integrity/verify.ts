import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { sql } from 'kysely';
import type { Config } from '../config.js';
import { gatewayStoreUrl } from '../gateway/config.js';
import { verifyLedger } from '../gateway/ledger.js';
import { openStore } from '../gateway/store.js';
import { systemClock } from '../shared/clock.js';
import { Database } from '../storage/database.js';
import { checkSealedKeys } from '../webhooks/signing-keys.js';

/** One line of `atrium admin verify`: what was checked, how it went, and the faults found (the first few). */
export interface Finding {
  check: string;
  summary: string;
  faults: string[];
}

/** Faults listed per check; beyond these, only counted. */
const LISTED = 5;
const BLOB_PAGE = 100;

/**
 * `atrium admin verify` (docs/operations.md, "Backup and restore"): reads a
 * live or restored host's storage and reports what does not hold together.
 * It changes nothing (no migration, no key is created), so it is safe on a
 * serving host and on a restore not yet started.
 */
export async function verifyHost(config: Config): Promise<Finding[]> {
  const db = Database.open(config.databaseUrl, { clock: systemClock });
  try {
    return [await eventLog(db), await blobs(db), await versionBlobs(db), await signingKeys(db, config), await gatewayLedger(config)];
  } finally {
    await db.destroy();
  }
}

/** Every cursor once and positive, every subject row naming an event. */
async function eventLog(db: Database): Promise<Finding> {
  const row = await db.kysely
    .selectFrom('events')
    .select((eb) => [eb.fn.countAll<number>().as('n'), sql<number>`count(distinct cursor)`.as('distinct_cursors'), eb.fn.min('cursor').as('first'), eb.fn.max('cursor').as('last')])
    .executeTakeFirstOrThrow();
  const n = Number(row.n);
  const faults: string[] = [];
  if (Number(row.distinct_cursors) !== n) faults.push(`${n - Number(row.distinct_cursors)} events share a cursor with another`);
  if (n > 0 && Number(row.first) < 1) faults.push(`the first cursor is ${row.first}; cursors start at 1`);
  const orphans = await db.kysely
    .selectFrom('event_subjects as es')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where((eb) => eb.not(eb.exists(eb.selectFrom('events as e').select('e.cursor').whereRef('e.cursor', '=', 'es.cursor'))))
    .executeTakeFirstOrThrow();
  if (Number(orphans.n) > 0) faults.push(`${orphans.n} feed index rows name an event that is not in the log`);
  return { check: 'event log', summary: n === 0 ? 'no events' : `${n} events, cursors ${row.first} to ${row.last}, each once`, faults };
}

/** Every blob's bytes have the digest and length it is stored under. */
async function blobs(db: Database): Promise<Finding> {
  const faults: string[] = [];
  let wrong = 0;
  let checked = 0;
  let after = '';
  for (;;) {
    const page = await db.kysely.selectFrom('blobs').select(['digest', 'bytes', 'byte_length']).where('digest', '>', after).orderBy('digest').limit(BLOB_PAGE).execute();
    for (const blob of page) {
      const actual = `sha256:${createHash('sha256').update(blob.bytes).digest('hex')}`;
      if (actual !== blob.digest || blob.bytes.length !== Number(blob.byte_length)) {
        wrong += 1;
        if (faults.length < LISTED) faults.push(`blob ${blob.digest} holds ${blob.bytes.length} bytes with digest ${actual}`);
      }
    }
    checked += page.length;
    if (page.length < BLOB_PAGE) break;
    after = page[page.length - 1]!.digest;
  }
  if (wrong > LISTED) faults.push(`and ${wrong - LISTED} more`);
  return { check: 'blobs', summary: `${checked} blobs, ${checked - wrong} match their digest`, faults };
}

/** Every Resource version's bytes are there. */
async function versionBlobs(db: Database): Promise<Finding> {
  const missing = await db.kysely
    .selectFrom('resource_versions as v')
    .leftJoin('blobs as b', 'b.digest', 'v.digest')
    .select(['v.resource_id', 'v.version', 'v.digest'])
    .where('b.digest', 'is', null)
    .orderBy('v.resource_id')
    .orderBy('v.version')
    .execute();
  const total = await db.kysely.selectFrom('resource_versions').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const faults = missing.slice(0, LISTED).map((v) => `version ${v.version} of Resource ${v.resource_id} has no blob ${v.digest}`);
  if (missing.length > LISTED) faults.push(`and ${missing.length - LISTED} more`);
  return { check: 'Resource versions', summary: `${total.n} versions, ${Number(total.n) - missing.length} with their blob`, faults };
}

async function signingKeys(db: Database, config: Config): Promise<Finding> {
  const { keys, faults } = await checkSealedKeys(db.kysely, { dataDir: config.dataDir, sealingKey: config.webhookSealingKey });
  return { check: 'webhook signing keys', summary: keys === 0 && faults.length === 0 ? 'none yet' : `${keys} open with the sealing key`, faults };
}

async function gatewayLedger(config: Config): Promise<Finding> {
  const url = gatewayStoreUrl(config.dataDir);
  if (url.startsWith('sqlite:') && !existsSync(url.slice('sqlite:'.length))) return { check: "gateway's ledger", summary: 'none here (no embedded gateway has run on this data directory)', faults: [] };
  const store = openStore(url);
  try {
    const result = await verifyLedger(store);
    return result.ok
      ? { check: "gateway's ledger", summary: `${result.count} records, chain intact`, faults: [] }
      : { check: "gateway's ledger", summary: `${result.count} records verify before seq ${result.seq}`, faults: [`broken at seq ${result.seq}: ${result.reason}`] };
  } catch (err) {
    return { check: "gateway's ledger", summary: 'could not be read', faults: [(err as Error).message] };
  } finally {
    await store.close();
  }
}
