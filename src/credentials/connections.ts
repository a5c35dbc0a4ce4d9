import { readFileSync } from 'node:fs';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ConfigError } from '../config.js';
import type { MemberRecord } from '../members/records.js';
import { HTTP_METHODS } from '../shared/gateway-wire.js';
import { Handle } from '../shared/schemas.js';
import { SpaceSlug } from '../spaces/schemas.js';

/**
 * The host's credential connections (docs/gateway.md, "The service side"): which
 * Space may reach which gateway destination, and who in it may. The file is the
 * host operator's; members never name a destination, they name a connection,
 * and the service maps it. The service never reads the destinations file, nor
 * any provider secret.
 */
const ConnectionSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:-]+$' }),
    // The Space need not exist yet: a host may configure a connection before the Space is approved.
    space: SpaceSlug,
    destinationId: Type.String({ minLength: 1, maxLength: 128 }),
    allowedMemberTypes: Type.Array(Type.Union([Type.Literal('human'), Type.Literal('agent')]), { minItems: 1, uniqueItems: true }),
    allowedActors: Type.Optional(Type.Array(Handle, { uniqueItems: true })),
    requireTask: Type.Optional(Type.Boolean()),
    maxTtlSeconds: Type.Integer({ minimum: 1, maximum: 300 }),
    approvalRequiredMethods: Type.Optional(Type.Array(Type.Union(HTTP_METHODS.map((m) => Type.Literal(m))), { uniqueItems: true })),
  },
  { additionalProperties: false },
);

const ConnectionsFile = Type.Object({ connections: Type.Array(ConnectionSchema) }, { additionalProperties: false });

export interface CredentialConnection {
  id: string;
  space: string;
  destinationId: string;
  allowedMemberTypes: Array<'human' | 'agent'>;
  /** Empty: any member of the allowed types. */
  allowedActors: string[];
  requireTask: boolean;
  maxTtlSeconds: number;
  approvalRequiredMethods: string[];
}

/** The connections of one host, read once at start. */
export class CredentialConnections {
  private readonly byKey: Map<string, CredentialConnection>;

  constructor(readonly all: CredentialConnection[]) {
    this.byKey = new Map(all.map((c) => [`${c.space}\u0000${c.id}`, c]));
  }

  /** A connection of this Space by id; another Space's connection of the same id is not this one. */
  find(space: string, id: string): CredentialConnection | undefined {
    return this.byKey.get(`${space}\u0000${id}`);
  }

  inSpace(space: string): CredentialConnection[] {
    return this.all.filter((c) => c.space === space);
  }
}

/** Whether a member's type and handle are among those the connection admits. */
export function admitsMember(connection: CredentialConnection, member: Pick<MemberRecord, 'handle' | 'type'>): boolean {
  if (!connection.allowedMemberTypes.includes(member.type)) return false;
  return connection.allowedActors.length === 0 || connection.allowedActors.includes(member.handle);
}

/**
 * Reads and checks the file named by ATRIUM_CREDENTIAL_CONNECTIONS. A file that
 * cannot be read or breaks the schema stops the start (ConfigError) with the
 * path and the first offending field: a host half-configured for credentials
 * would otherwise refuse or, worse, allow calls nobody meant.
 */
export function loadCredentialConnections(path: string | undefined): CredentialConnections {
  if (path === undefined) return new CredentialConnections([]);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ConfigError(`ATRIUM_CREDENTIAL_CONNECTIONS: cannot read ${path} as JSON: ${(err as Error).message}`);
  }
  if (!Value.Check(ConnectionsFile, parsed)) {
    const first = Value.Errors(ConnectionsFile, parsed).First();
    const where = first?.path ? first.path : '(the document)';
    throw new ConfigError(`ATRIUM_CREDENTIAL_CONNECTIONS: ${path}: ${where} ${first?.message ?? 'is malformed'}`);
  }
  const file = parsed as Static<typeof ConnectionsFile>;
  const seen = new Set<string>();
  const connections = file.connections.map((c): CredentialConnection => {
    const key = `${c.space}\u0000${c.id}`;
    if (seen.has(key)) throw new ConfigError(`ATRIUM_CREDENTIAL_CONNECTIONS: ${path}: connection ${c.id} appears twice in Space ${c.space}`);
    seen.add(key);
    return {
      id: c.id,
      space: c.space,
      destinationId: c.destinationId,
      allowedMemberTypes: c.allowedMemberTypes,
      allowedActors: c.allowedActors ?? [],
      requireTask: c.requireTask ?? false,
      maxTtlSeconds: c.maxTtlSeconds,
      approvalRequiredMethods: c.approvalRequiredMethods ?? [],
    };
  });
  return new CredentialConnections(connections);
}
