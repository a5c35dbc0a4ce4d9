import { join, resolve } from 'node:path';
import { addressPolicy, type AddressPolicy } from '../egress/address-policy.js';
import { credentialValues, loadDestinations, type Destination } from './destinations.js';
import { GatewayConfigError } from './errors.js';
import { callHoldBytes, defaultBufferBytes, type CallBounds } from './limits.js';

/** What the gateway process runs with; read from its own environment only. */
export interface GatewayConfig {
  host: string;
  /** 0 picks a free port; the address actually bound is announced when ready. */
  port: number;
  /** The service presents it to `/v1/tickets`. */
  issuerKey: string;
  /** The audit reader presents it to `/v1/events`; unset: ledger reads are refused. */
  auditKey: string | undefined;
  databaseUrl: string;
  dataDir: string;
  destinations: Destination[];
  /** Destination id → its provider secret. Held in memory only: never logged, stored or sent anywhere but upstream. */
  credentials: Map<string, string>;
  egress: AddressPolicy;
  /** What may run at once (limits.ts). */
  calls: CallBounds;
  logLevel: string;
}

export const MIN_KEY_LENGTH = 32;


/**
 * Where a gateway keeps its store and ledger: ATRIUM_GATEWAY_DATABASE_URL, else
 * `gateway.db` in its data directory (the embedded gateway is given the
 * service's). Also what `atrium gateway verify-ledger` and the service's
 * backup, restore and verify read.
 */
export function gatewayStoreUrl(dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.ATRIUM_GATEWAY_DATABASE_URL || `sqlite:${join(resolve(dataDir), 'gateway.db')}`;
}

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const host = env.ATRIUM_GATEWAY_HOST || '127.0.0.1';
  const port = parsePort(env.ATRIUM_GATEWAY_PORT ?? '8081');
  const issuerKey = env.ATRIUM_GATEWAY_ISSUER_KEY ?? '';
  if (issuerKey.length < MIN_KEY_LENGTH) throw new GatewayConfigError(`ATRIUM_GATEWAY_ISSUER_KEY must be set to at least ${MIN_KEY_LENGTH} characters`);
  const auditKey = env.ATRIUM_GATEWAY_AUDIT_KEY || undefined;
  if (auditKey !== undefined && auditKey.length < MIN_KEY_LENGTH) throw new GatewayConfigError(`ATRIUM_GATEWAY_AUDIT_KEY must be at least ${MIN_KEY_LENGTH} characters`);
  // The issuer and the audit reader are different parties; one key for both would let the service read the ledger.
  if (auditKey === issuerKey) throw new GatewayConfigError('ATRIUM_GATEWAY_AUDIT_KEY must differ from ATRIUM_GATEWAY_ISSUER_KEY');
  const dataDir = resolve(env.ATRIUM_DATA_DIR || './data');
  const databaseUrl = gatewayStoreUrl(dataDir, env);
  if (!/^(sqlite:|postgres:\/\/|postgresql:\/\/)/.test(databaseUrl)) throw new GatewayConfigError('ATRIUM_GATEWAY_DATABASE_URL must start with sqlite: or postgres://');
  const destinations = env.ATRIUM_GATEWAY_DESTINATIONS ? loadDestinations(env.ATRIUM_GATEWAY_DESTINATIONS) : [];
  const calls: CallBounds = {
    perMember: parsePositiveInt('ATRIUM_CREDENTIAL_CALLS_PER_MEMBER', env.ATRIUM_CREDENTIAL_CALLS_PER_MEMBER ?? '2'),
    perConnection: parsePositiveInt('ATRIUM_CREDENTIAL_CALLS_PER_CONNECTION', env.ATRIUM_CREDENTIAL_CALLS_PER_CONNECTION ?? '4'),
    bufferBytes: env.ATRIUM_GATEWAY_BUFFER_BYTES
      ? parsePositiveInt('ATRIUM_GATEWAY_BUFFER_BYTES', env.ATRIUM_GATEWAY_BUFFER_BYTES)
      : defaultBufferBytes(destinations.map((d) => d.maxResponseBytes)),
  };
  // A destination whose answers could never fit would refuse every call as busy.
  const largest = destinations.reduce<Destination | undefined>((a, d) => (a && a.maxResponseBytes >= d.maxResponseBytes ? a : d), undefined);
  if (largest && callHoldBytes(largest.maxResponseBytes) > calls.bufferBytes) {
    throw new GatewayConfigError(
      `ATRIUM_GATEWAY_BUFFER_BYTES (${calls.bufferBytes}) must be at least what one call to destination ${JSON.stringify(largest.id)} may hold: ${callHoldBytes(largest.maxResponseBytes)} bytes (twice its maxResponseBytes, ${largest.maxResponseBytes}, and 256 KiB)`,
    );
  }
  let egress: AddressPolicy;
  try {
    egress = addressPolicy((env.ATRIUM_EGRESS_ALLOW_CIDRS ?? '').split(',').map((s) => s.trim()).filter(Boolean));
  } catch (err) {
    throw new GatewayConfigError((err as Error).message);
  }
  return {
    host,
    port,
    issuerKey,
    auditKey,
    databaseUrl,
    dataDir,
    destinations,
    credentials: credentialValues(destinations, env),
    egress,
    calls,
    logLevel: env.ATRIUM_LOG_LEVEL || 'info',
  };
}

function parsePositiveInt(name: string, raw: string): number {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isSafeInteger(value) || value < 1) throw new GatewayConfigError(`${name} must be a positive integer, got ${raw}`);
  return value;
}

function parsePort(raw: string): number {
  const port = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(port) || port < 0 || port > 65535) throw new GatewayConfigError(`ATRIUM_GATEWAY_PORT must be an integer 0-65535, got ${raw}`);
  return port;
}
