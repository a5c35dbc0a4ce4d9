import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config.js';

const BIN = fileURLToPath(new URL('../../bin/atrium.js', import.meta.url));

export interface EmbeddedGateway {
  url: string;
  stop(): Promise<void>;
}

interface ReadyMessage {
  type: 'ready';
  url: string;
  credentialVariables: string[];
}

/**
 * `atrium serve` with destinations configured and no ATRIUM_GATEWAY_URL runs
 * the gateway as a child process on 127.0.0.1 with a fresh issuer key. The
 * child inherits the environment, provider secrets included, and reports
 * (over its IPC channel, names only) which variables hold them; the service
 * then deletes those from its own environment, so it never reads a secret.
 * Its own settings file is never opened here. Resolves once the child listens;
 * rejects when it exits first. A child that dies later ends the service.
 */
export async function startEmbeddedGateway(config: Config, env: NodeJS.ProcessEnv = process.env): Promise<EmbeddedGateway | undefined> {
  if (config.gateway.explicitUrl || config.gateway.destinationsPath === undefined) return undefined;
  const issuerKey = randomBytes(32).toString('base64url');
  const child = spawn(process.execPath, [BIN, 'gateway'], {
    env: { ...env, ATRIUM_GATEWAY_HOST: '127.0.0.1', ATRIUM_GATEWAY_PORT: String(config.gateway.port), ATRIUM_GATEWAY_ISSUER_KEY: issuerKey, ATRIUM_DATA_DIR: config.dataDir },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // Its own process group: Ctrl-C reaches the service, which stops the
    // gateway in order, rather than both at once (a gateway gone first would
    // look like a crash).
    detached: true,
  });
  const ready = await new Promise<ReadyMessage>((resolve, reject) => {
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      reject(new Error(`the embedded credential gateway did not start (${signal ? `signal ${signal}` : `exit code ${code}`}); see its message above`));
    child.once('exit', onExit);
    child.once('error', reject);
    child.on('message', (message: ReadyMessage) => {
      if (message?.type !== 'ready') return;
      child.off('exit', onExit);
      resolve(message);
    });
  });
  // The service's own server keeps it running; the child alone must not, so a
  // service that fails to start still exits (and the child, its channel closed, with it).
  child.unref();
  child.channel?.unref();
  for (const name of ready.credentialVariables) delete env[name];
  config.gateway.issuerKey = issuerKey;
  config.gateway.url = ready.url;
  let stopping = false;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('exit', (code, signal) => {
    if (stopping) return;
    console.error(`atrium: the embedded credential gateway stopped (${signal ? `signal ${signal}` : `exit code ${code}`}); the service stops with it`);
    process.exit(1);
  });
  return {
    url: ready.url,
    async stop() {
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
