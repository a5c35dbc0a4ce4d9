/**
 * A Resource (protocol: Resources and versions): a named Markdown
 * document in one Space whose content lives in immutable versions.
 */
export interface ResourceTable {
  /** `res_…`, stable across renames: a pin or a link keeps pointing at it. */
  id: string;
  space: string;
  kind: string;
  name: string;
  current_version: number;
  created_by: string;
  created_ts: string;
  updated_ts: string;
}

/** An immutable version: which bytes (by digest), under which name and MIME type. */
export interface ResourceVersionTable {
  resource_id: string;
  version: number;
  name: string;
  mime_type: string;
  /** `sha256:<hex>` of the bytes: the Blob's address. */
  digest: string;
  byte_length: number;
  created_by: string;
  created_ts: string;
}

/** Immutable bytes addressed by their digest; equal bytes are stored once. */
export interface BlobTable {
  digest: string;
  bytes: Buffer;
  byte_length: number;
  created_ts: string;
}

export interface ResourcesTables {
  resources: ResourceTable;
  resource_versions: ResourceVersionTable;
  blobs: BlobTable;
}

