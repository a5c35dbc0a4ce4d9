import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * Webhook subscriptions and their deliveries (docs/webhooks.md).
 *
 * A subscription carries its own projection state (`owed_*`): the range of
 * qualifying events not yet put into a wake. The projector fills it from the
 * event log, past a watermark kept in `webhook_projection`, in the same
 * transaction that moves the watermark, so a crash never loses or repeats a
 * wake: the log is the outbox.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const integer = dialect === 'postgres' ? 'bigint' : 'integer';
  await db.schema
    .createTable('webhook_subscriptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_member', 'text', (c) => c.notNull().references('members.handle'))
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id'))
    .addColumn('scope', 'text', (c) => c.notNull().check(sql`scope in ('space_events', 'inbox_events')`))
    .addColumn('space', 'text', (c) => c.references('spaces.slug'))
    .addColumn('filter', 'text')
    .addColumn('debounce_ms', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('inactive', 'active', 'paused')`))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('activation_cursor', integer)
    .addColumn('owed_after', integer)
    .addColumn('owed_through', integer)
    .addColumn('owed_since_ts', 'text')
    .addColumn('catch_up', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_ts', 'text', (c) => c.notNull())
    .addColumn('updated_ts', 'text', (c) => c.notNull())
    .addColumn('deleted_ts', 'text')
    .addCheckConstraint('webhook_subscriptions_space_scope', sql`(scope = 'space_events') = (space is not null)`)
    .execute();
  await db.schema.createIndex('webhook_subscriptions_owner_idx').on('webhook_subscriptions').columns(['owner_member', 'created_ts']).execute();
  await db.schema.createIndex('webhook_subscriptions_space_idx').on('webhook_subscriptions').columns(['space']).where(sql<boolean>`deleted_ts is null`).execute();
  await db.schema.createIndex('webhook_subscriptions_endpoint_idx').on('webhook_subscriptions').columns(['endpoint_id']).execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('subscription_id', 'text', (c) => c.notNull().references('webhook_subscriptions.id'))
    .addColumn('range_after', integer, (c) => c.notNull())
    .addColumn('range_through', integer, (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'delivered', 'dead', 'cancelled')`))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('run_start', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_ts', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('created_ts', 'text', (c) => c.notNull())
    .addColumn('updated_ts', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_deliveries_subscription_idx').on('webhook_deliveries').columns(['subscription_id', 'created_ts']).execute();
  await db.schema
    .createIndex('webhook_deliveries_due_idx')
    .on('webhook_deliveries')
    .columns(['next_attempt_ts'])
    .where(sql<boolean>`status = 'pending'`)
    .execute();

  // "Has this subscription a wake not yet sent?" is asked for every owed subscription on every projection.
  await db.schema
    .createIndex('webhook_deliveries_unsent_idx')
    .on('webhook_deliveries')
    .columns(['subscription_id'])
    .where(sql<boolean>`status = 'pending' and attempts = 0`)
    .execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id'))
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('started_ts', 'text', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('error', 'text')
    .addPrimaryKeyConstraint('webhook_attempts_pk', ['delivery_id', 'attempt'])
    .execute();

  await db.schema
    .createTable('webhook_projection')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('cursor', integer, (c) => c.notNull())
    .execute();
  // Nothing before now can qualify (no subscription exists yet), so projection starts at the head.
  await sql`insert into webhook_projection (id, cursor) select 1, coalesce(max(cursor), 0) from events`.execute(db);
}
