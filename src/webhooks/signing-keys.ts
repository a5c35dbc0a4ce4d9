import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  createPrivateKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type { Clock } from '../shared/clock.js';
import type { DatabaseSchema } from '../storage/schema.js';
import { isUniqueViolation } from '../storage/unique-violation.js';

/** How long a rotated-out key stays in the published set, so receivers holding older deliveries can still verify them. */
export const RETIRING_LISTED_DAYS = 7;

const SEALING_KEY_FILE = 'webhook-sealing.key';
const SEALING_CHECK = 'webhook_sealing_check';

/** A signing key as published in the JWK Set (public members only). */
export interface PublishedKey {
  kid: string;
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  alg: 'EdDSA';
  use: 'sig';
  status: 'active' | 'retiring';
  created_ts: string;
}

/** The key that signs now. */
export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
}

/**
 * The host's webhook signing keys. Every node on one database signs with the
 * same keys, so they live in the database; their private halves are sealed
 * (AES-256-GCM, the key id as associated data) under a sealing key that is
 * not in the database: `ATRIUM_WEBHOOK_SEALING_KEY`, or a file in the data
 * directory created on first start. A copy of the database alone cannot sign.
 */
export class WebhookSigningKeys {
  private readonly unsealed = new Map<string, KeyObject>();

  private constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly sealingKey: Buffer,
    private readonly clock: Clock,
  ) {}

  /**
   * Checks that this node's sealing key is the one the stored keys were sealed
   * with (a node given another one refuses to start, saying so, rather than
   * failing at its first delivery), and creates the first key if none is active.
   */
  static async open(db: Kysely<DatabaseSchema>, opts: { dataDir: string; sealingKey: string | undefined; clock: Clock }): Promise<WebhookSigningKeys> {
    const sealingKey = loadSealingKey(opts.dataDir, opts.sealingKey);
    await checkSealingKey(db, sealingKey, opts.dataDir);
    const keys = new WebhookSigningKeys(db, sealingKey, opts.clock);
    if (!(await keys.findActive())) await keys.insertActive();
    return keys;
  }

  /** The active key and those retired within RETIRING_LISTED_DAYS, newest first. */
  async published(): Promise<PublishedKey[]> {
    const listedSince = new Date(this.clock.now().getTime() - RETIRING_LISTED_DAYS * 86_400_000).toISOString();
    const rows = await this.db
      .selectFrom('webhook_signing_keys')
      .select(['kid', 'public_x', 'status', 'created_ts'])
      .where((eb) => eb.or([eb('status', '=', 'active'), eb('retiring_ts', '>=', listedSince)]))
      .orderBy('created_ts', 'desc')
      .orderBy('kid')
      .execute();
    return rows.map((row) => ({ kid: row.kid, kty: 'OKP', crv: 'Ed25519', x: row.public_x, alg: 'EdDSA', use: 'sig', status: row.status, created_ts: row.created_ts }));
  }

  /** The key that signs now: read at each use, so a rotation on any node takes effect everywhere. */
  async active(): Promise<SigningKey> {
    const row = await this.findActive();
    if (!row) throw new Error('no active webhook signing key');
    let privateKey = this.unsealed.get(row.kid);
    if (!privateKey) {
      privateKey = createPrivateKey({ key: unseal(this.sealingKey, row.kid, row.sealed_private), format: 'der', type: 'pkcs8' });
      this.unsealed.set(row.kid, privateKey);
    }
    return { kid: row.kid, privateKey };
  }

  /** Makes a new key active; the previous one stays published as `retiring`. */
  async rotate(): Promise<{ active: string; retiring: string | undefined }> {
    const now = this.clock.now().toISOString();
    const generated = generateKey(this.sealingKey);
    return this.db.transaction().execute(async (trx) => {
      const previous = await trx.selectFrom('webhook_signing_keys').select('kid').where('status', '=', 'active').executeTakeFirst();
      await trx.updateTable('webhook_signing_keys').set({ status: 'retiring', retiring_ts: now }).where('status', '=', 'active').execute();
      await trx.insertInto('webhook_signing_keys').values({ ...generated, status: 'active', created_ts: now, retiring_ts: null }).execute();
      return { active: generated.kid, retiring: previous?.kid };
    });
  }

  private findActive() {
    return this.db.selectFrom('webhook_signing_keys').select(['kid', 'sealed_private']).where('status', '=', 'active').executeTakeFirst();
  }

  private async insertActive(): Promise<void> {
    try {
      await this.db
        .insertInto('webhook_signing_keys')
        .values({ ...generateKey(this.sealingKey), status: 'active', created_ts: this.clock.now().toISOString(), retiring_ts: null })
        .execute();
    } catch (err) {
      // Another node created the first key at the same moment: keep theirs.
      if (!isUniqueViolation(err)) throw err;
    }
  }
}

/**
 * `Webhook-Signature` for one request: Ed25519 over `<kid>.<timestamp>.<raw body>`
 * (docs/webhooks.md), as `v1=` and the unpadded base64url signature.
 */
export function signatureHeader(key: SigningKey, timestamp: number, body: string | Buffer): string {
  const signed = Buffer.concat([Buffer.from(`${key.kid}.${timestamp}.`, 'utf8'), typeof body === 'string' ? Buffer.from(body, 'utf8') : body]);
  return `v1=${sign(null, signed, key.privateKey).toString('base64url')}`;
}

function generateKey(sealingKey: Buffer): { kid: string; public_x: string; sealed_private: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const x = publicKey.export({ format: 'jwk' }).x!;
  const kid = thumbprint(x);
  return { kid, public_x: x, sealed_private: seal(sealingKey, kid, privateKey.export({ format: 'der', type: 'pkcs8' })) };
}

/** RFC 7638: SHA-256 over the required members in lexicographic order, no spaces. */
function thumbprint(x: string): string {
  return createHash('sha256').update(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x })).digest('base64url');
}

function seal(sealingKey: Buffer, kid: string, plain: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey, iv);
  cipher.setAAD(Buffer.from(kid, 'utf8'));
  const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
}

function unseal(sealingKey: Buffer, kid: string, text: string): Buffer {
  const bytes = Buffer.from(text, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', sealingKey, bytes.subarray(0, 12));
  decipher.setAAD(Buffer.from(kid, 'utf8'));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]);
}

/**
 * For `atrium admin verify`: whether every stored signing key opens with the
 * sealing key this host would use, found as a node finds it but never created.
 * Answers how many opened, and why the others did not.
 */
export async function checkSealedKeys(db: Kysely<DatabaseSchema>, opts: { dataDir: string; sealingKey: string | undefined }): Promise<{ keys: number; faults: string[] }> {
  const rows = await db.selectFrom('webhook_signing_keys').select(['kid', 'sealed_private']).orderBy('created_ts').execute();
  if (rows.length === 0) return { keys: 0, faults: [] };
  let sealingKey: Buffer;
  const path = join(opts.dataDir, SEALING_KEY_FILE);
  try {
    sealingKey = opts.sealingKey !== undefined ? Buffer.from(opts.sealingKey, 'base64url') : decodeKeyFile(readFileSync(path, 'utf8'), path);
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
    return { keys: 0, faults: [missing ? `no sealing key: neither ATRIUM_WEBHOOK_SEALING_KEY nor ${path} is there, and ${rows.length} signing keys are sealed under one` : (err as Error).message] };
  }
  const faults: string[] = [];
  for (const row of rows) {
    try {
      createPrivateKey({ key: unseal(sealingKey, row.kid, row.sealed_private), format: 'der', type: 'pkcs8' });
    } catch {
      faults.push(`signing key ${row.kid} does not open with this sealing key`);
    }
  }
  return { keys: rows.length - faults.length, faults };
}

function loadSealingKey(dataDir: string, fromEnv: string | undefined): Buffer {
  // The variable was checked with the rest of the configuration (config.ts).
  if (fromEnv !== undefined) return Buffer.from(fromEnv, 'base64url');
  const path = join(dataDir, SEALING_KEY_FILE);
  try {
    return decodeKeyFile(readFileSync(path, 'utf8'), path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dataDir, { recursive: true });
  try {
    // Readable by this user only; `wx` so two processes starting at once never overwrite each other's.
    writeFileSync(path, `${randomBytes(32).toString('base64url')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return decodeKeyFile(readFileSync(path, 'utf8'), path);
}

function decodeKeyFile(text: string, path: string): Buffer {
  const key = Buffer.from(text.trim(), 'base64url');
  if (key.length !== 32) throw new Error(`${path} must hold 32 bytes in base64url`);
  return key;
}

/** The database remembers a check value of the sealing key its signing keys were sealed with (never the key). */
async function checkSealingKey(db: Kysely<DatabaseSchema>, sealingKey: Buffer, dataDir: string): Promise<void> {
  const check = createHmac('sha256', sealingKey).update('atrium webhook sealing key check').digest('base64url');
  await db
    .insertInto('host_secrets')
    .values({ name: SEALING_CHECK, value: check })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const stored = await db.selectFrom('host_secrets').select('value').where('name', '=', SEALING_CHECK).executeTakeFirstOrThrow();
  if (stored.value.length !== check.length || !timingSafeEqual(Buffer.from(stored.value), Buffer.from(check))) {
    throw new Error(
      'this node has a different webhook sealing key from the one the stored signing keys were sealed with: ' +
        `give every node the same ATRIUM_WEBHOOK_SEALING_KEY, or the same ${join(dataDir, SEALING_KEY_FILE)} (docs/webhooks.md)`,
    );
  }
}
