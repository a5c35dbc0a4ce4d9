import { createHmac, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../storage/schema.js';

/**
 * Turns a client's network address into the only form Atrium keeps: an
 * HMAC-SHA-256 digest under this host's secret. A bare SHA-256 would be no
 * protection: there are only 2^32 IPv4 addresses, so anyone holding the table
 * could reverse every digest in minutes. Without the secret the digests cannot
 * even be tested against a guess.
 */
export type AddressDigest = (address: string) => string;

export function addressDigester(secret: Buffer): AddressDigest {
  return (address) => createHmac('sha256', secret).update(address, 'utf8').digest('hex');
}

const ADDRESS_SECRET = 'client_address_hmac';

/**
 * The host's address secret, created on first start. Several nodes may start
 * at once on one PostgreSQL: each offers a fresh value and keeps whichever was
 * stored first, so all of them digest alike.
 */
export async function loadAddressSecret(db: Kysely<DatabaseSchema>): Promise<Buffer> {
  await db
    .insertInto('host_secrets')
    .values({ name: ADDRESS_SECRET, value: randomBytes(32).toString('base64url') })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('host_secrets').select('value').where('name', '=', ADDRESS_SECRET).executeTakeFirstOrThrow();
  return Buffer.from(row.value, 'base64url');
}
