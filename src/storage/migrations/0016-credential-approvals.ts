import { sql, type Kysely } from 'kysely';

/**
 * The service's side of the credential gateway (docs/gateway.md): approvals for
 * one exact request, and the run ids that have been used for a ticket. Nothing
 * here holds a ticket, a provider credential, a header value or a body.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('credential_approvals')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('space', 'text', (c) => c.notNull())
    .addColumn('connection_id', 'text', (c) => c.notNull())
    .addColumn('member_handle', 'text', (c) => c.notNull())
    .addColumn('task_id', 'integer')
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('header_names', 'text', (c) => c.notNull())
    .addColumn('headers_sha256', 'text', (c) => c.notNull())
    .addColumn('body_sha256', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_ts', 'text', (c) => c.notNull())
    .addColumn('expires_ts', 'text', (c) => c.notNull())
    .addColumn('consumed_ts', 'text')
    .execute();
  await db.schema
    .createTable('credential_runs')
    .addColumn('member_handle', 'text', (c) => c.notNull())
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('space', 'text', (c) => c.notNull())
    .addColumn('connection_id', 'text', (c) => c.notNull())
    .addColumn('approval_id', 'text')
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('reserved', 'issued')`))
    .addColumn('reserved_ts', 'text', (c) => c.notNull())
    .addColumn('issued_ts', 'text')
    .addPrimaryKeyConstraint('credential_runs_pk', ['member_handle', 'run_id'])
    .execute();
}
