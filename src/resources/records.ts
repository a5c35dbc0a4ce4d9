import type { Static } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import type { ResourceMimeType, ResourceSchema, ResourceVersionSchema } from './schemas.js';
import type { ResourceTable, ResourceVersionTable } from './tables.js';

/** The wire shapes (schemas.ts), as their static types so the two cannot drift. */
export type ResourceRecord = Static<typeof ResourceSchema>;
export type ResourceVersionRecord = Static<typeof ResourceVersionSchema>;
export type ResourceDocument = ResourceRecord & { content: string };
export type ResourceVersionDocument = ResourceVersionRecord & { content: string };

/** A Resource row joined with its current version (service.ts `resourceQuery`): who added that version is `updated_by`. */
export type ResourceRow = Selectable<ResourceTable> &
  Pick<Selectable<ResourceVersionTable>, 'mime_type' | 'digest' | 'byte_length'> & { updated_by: ResourceVersionTable['created_by'] };

export type ResourceVersionRow = Selectable<ResourceVersionTable>;

export function toResourceRecord(row: ResourceRow): ResourceRecord {
  return {
    id: row.id,
    space: row.space,
    kind: row.kind,
    name: row.name,
    current_version: Number(row.current_version),
    // Only allowlisted types are ever written (service.ts prepareContent).
    mime_type: row.mime_type as ResourceMimeType,
    digest: row.digest,
    byte_length: Number(row.byte_length),
    created_by: row.created_by,
    updated_by: row.updated_by,
    created_ts: row.created_ts,
    updated_ts: row.updated_ts,
  };
}

export function toResourceVersionRecord(row: ResourceVersionRow): ResourceVersionRecord {
  return {
    resource_id: row.resource_id,
    version: Number(row.version),
    name: row.name,
    mime_type: row.mime_type as ResourceMimeType,
    digest: row.digest,
    byte_length: Number(row.byte_length),
    created_by: row.created_by,
    created_ts: row.created_ts,
  };
}
