import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/** Resources, their immutable versions, and content-addressed blobs (protocol: Resources and versions). */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('blobs')
    .addColumn('digest', 'text', (c) => c.primaryKey())
    .addColumn('bytes', dialect === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
    .addColumn('byte_length', 'integer', (c) => c.notNull())
    .addColumn('created_ts', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('resources')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('space', 'text', (c) => c.notNull().references('spaces.slug'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('current_version', 'integer', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull().references('members.handle'))
    .addColumn('created_ts', 'text', (c) => c.notNull())
    .addColumn('updated_ts', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('resources_space_updated_idx').on('resources').columns(['space', 'updated_ts']).execute();

  await db.schema
    .createTable('resource_versions')
    .addColumn('resource_id', 'text', (c) => c.notNull().references('resources.id'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('digest', 'text', (c) => c.notNull().references('blobs.digest'))
    .addColumn('byte_length', 'integer', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull().references('members.handle'))
    .addColumn('created_ts', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('resource_versions_pk', ['resource_id', 'version'])
    .execute();
}
