import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * `members.access_version`: a number that moves whenever what the member may
 * read could have changed (docs/events.md, "Kept pages"), so a node may keep
 * the member's inbox pages and know, from the member row it already reads to
 * authenticate them, when they stopped being true.
 *
 * Which Spaces a member reads follows three things: the Spaces' join policies
 * (fixed at the proposal), the member's admissions (`space_memberships`) and
 * the member's Owner/Host assignments (`role_assignments`). Triggers move the
 * number on every change to the last two, whoever writes them (any node, an
 * earlier release, the admin CLI), in the writing transaction itself. The
 * update is to the member row, so the changes the credential caches already
 * hear (migrations 0017 and 0018) carry it: a node forgets its kept key
 * resolutions, and with them the number it knew, exactly as when a member is
 * suspended.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema.alterTable('members').addColumn('access_version', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  const bump = (handle: string) => `update members set access_version = access_version + 1 where handle = ${handle};`;
  if (dialect === 'sqlite') {
    for (const table of ['space_memberships', 'role_assignments']) {
      await sql.raw(`create trigger ${table}_access_inserted after insert on ${table} begin ${bump('new.member_handle')} end`).execute(db);
      await sql.raw(`create trigger ${table}_access_updated after update on ${table} begin ${bump('old.member_handle')} ${bump('new.member_handle')} end`).execute(db);
      await sql.raw(`create trigger ${table}_access_deleted after delete on ${table} begin ${bump('old.member_handle')} end`).execute(db);
    }
    return;
  }
  await sql
    .raw(
      `create function atrium_member_access_changed() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    ${bump('new.member_handle')}
  elsif tg_op = 'DELETE' then
    ${bump('old.member_handle')}
  else
    ${bump('old.member_handle')}
    if new.member_handle is distinct from old.member_handle then ${bump('new.member_handle')} end if;
  end if;
  return null;
end $$`,
    )
    .execute(db);
  for (const table of ['space_memberships', 'role_assignments']) {
    await sql.raw(`create trigger ${table}_access_changed after insert or update or delete on ${table} for each row execute function atrium_member_access_changed()`).execute(db);
  }
}
