import { mintMemberKey } from '../../src/identity/member-keys.js';
import type { MemberStatus } from '../../src/members/tables.js';
import type { TestServer } from './server.js';

/**
 * Direct database seeding for states the HTTP API reaches only through other
 * capabilities (agents, suspensions, client-activation keys). Everything runs
 * through `ctx.db.transaction` and the real domain functions or plain rows.
 */

/**
 * An agent member with a member key, in the given status (registration makes it
 * `pending`). Its operator has confirmed it unless `confirmed: false`, as for
 * every agent approved through the API.
 */
export async function seedAgent(
  server: TestServer,
  handle: string,
  operator: string,
  status: MemberStatus = 'pending',
  opts: { confirmed?: boolean } = {},
): Promise<{ handle: string; key: string }> {
  return server.app.ctx.db.transaction(async (tx) => {
    const ts = tx.now.toISOString();
    await tx.db
      .insertInto('members')
      .values({
        handle,
        type: 'agent',
        display_name: handle,
        operator,
        operator_confirmed: opts.confirmed === false ? 0 : 1,
        capabilities: '[]',
        status,
        email: null,
        email_verified: 0,
        access_version: 0,
        created_ts: ts,
        updated_ts: ts,
      })
      .execute();
    const minted = await mintMemberKey(tx, handle, 'agent_registration');
    return { handle, key: minted.key };
  });
}

/** A member API key for an existing member (what a client activation would mint). */
export async function seedMemberKey(server: TestServer, handle: string): Promise<string> {
  return server.app.ctx.db.transaction(async (tx) => (await mintMemberKey(tx, handle, 'client_activation', 'test client')).key);
}

export async function setMemberStatus(server: TestServer, handle: string, status: MemberStatus): Promise<void> {
  await server.app.ctx.db.kysely.updateTable('members').set({ status }).where('handle', '=', handle).execute();
}

export interface RowCounts {
  spaces: number;
  space_memberships: number;
  events: number;
  event_subjects: number;
}

/** Row counts of the tables a Space write touches: "nothing written" means these did not move. */
export async function rowCounts(server: TestServer): Promise<RowCounts> {
  const db = server.app.ctx.db.kysely;
  const count = async (table: keyof RowCounts) =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  return {
    spaces: await count('spaces'),
    space_memberships: await count('space_memberships'),
    events: await count('events'),
    event_subjects: await count('event_subjects'),
  };
}

/** Every event of one Space, oldest first, read straight from the table. */
export async function storedEvents(server: TestServer, space?: string): Promise<Array<{ cursor: number; type: string }>> {
  let query = server.app.ctx.db.kysely.selectFrom('events').select(['cursor', 'type']).orderBy('cursor');
  if (space !== undefined) query = query.where('space', '=', space);
  return (await query.execute()).map((r) => ({ cursor: Number(r.cursor), type: r.type }));
}

/**
 * A well-formed Resource id that no Resource has (ids are `res_` and 26 base32
 * letters): for "no such Resource" cases, which a malformed id would not reach.
 */
export function resourceId(label: string): string {
  if (!/^[a-z2-7]{1,26}$/.test(label)) throw new Error(`resourceId: "${label}" is not 1-26 of a-z, 2-7`);
  return `res_${label.padEnd(26, 'a')}`;
}

/**
 * People admitted to a Space, many at once: a Space larger than a page of its
 * member list, without a join request per member through the API.
 */
export async function seedAdmittedHumans(server: TestServer, space: string, handles: string[]): Promise<void> {
  await server.app.ctx.db.transaction(async (tx) => {
    const ts = tx.now.toISOString();
    const person = { type: 'human' as const, operator: null, operator_confirmed: 0, capabilities: '[]', status: 'active' as const, email: null, email_verified: 0 };
    for (const handle of handles) {
      await tx.db.insertInto('members').values({ handle, display_name: handle, ...person, access_version: 0, created_ts: ts, updated_ts: ts }).execute();
      await tx.db.insertInto('space_memberships').values({ space, member_handle: handle, state: 'admitted', created_ts: ts, updated_ts: ts }).execute();
    }
  });
}
