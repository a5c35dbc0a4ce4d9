import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import spectralCore from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { CLI_ROUTES_PATH, CLIENT_TYPES_PATH, cliRoutes, clientTypes } from '../scripts/generate-client.js';
import { proposeApproveAndRead } from './fixtures/typed-client/flow.js';
import { startServer, type TestServer } from './support/server.js';

/**
 * The contract as third-party tools read it: openapi-typescript generates the
 * committed client types from the served document and a flow written against
 * them type-checks and runs; Redocly's recommended rules and Spectral's
 * `spectral:oas` find nothing but what docs/libraries.md justifies. The
 * contract does not depend on the backend, so SQLite serves it.
 */

// Redocly warnings docs/libraries.md explains, by rule and operation: none.
const JUSTIFIED_REDOCLY_WARNINGS: string[] = [];

const { Spectral, Document } = spectralCore;
const typescriptCompiler = createRequire(import.meta.url).resolve('typescript/bin/tsc');

describe('the contract, as generated clients and linters read it', () => {
  let server: TestServer;
  let source: string;
  before(async () => {
    // A host's real address: the contract's `servers` entry is the base URL, and linters rightly flag localhost.
    server = await startServer('sqlite', { env: { ATRIUM_BASE_URL: 'https://spaces.atrium.test' } });
    source = JSON.stringify((await server.request('GET', '/v0/openapi.json')).body);
  });
  after(() => server.stop());

  it('keeps the committed client types equal to what openapi-typescript generates from the served contract', async () => {
    const fresh = await clientTypes(JSON.parse(source));
    assert.ok(readFileSync(CLIENT_TYPES_PATH, 'utf8') === fresh, 'src/client/openapi.ts is stale: run `npm run generate:client`');
  });

  it("keeps the CLI's committed route table equal to the operation declarations", () => {
    assert.ok(readFileSync(CLI_ROUTES_PATH, 'utf8') === cliRoutes(), 'src/cli/client/routes.ts is stale: run `npm run generate:client`');
  });

  it('type-checks a flow written against those types, where narrowing on `type` types each event payload', async () => {
    const project = fileURLToPath(new URL('./fixtures/typed-client', import.meta.url));
    // Not spawnSync: blocking this process for seconds starves the server in it, and a
    // keep-alive connection it then closes late is reset under the next request.
    const tsc = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = execFile(process.execPath, [typescriptCompiler, '-p', project], { encoding: 'utf8' }, (_err, stdout, stderr) =>
        resolve({ code: child.exitCode, output: stdout + stderr }),
      );
    });
    assert.equal(tsc.code, 0, tsc.output);
  });

  it('runs that flow against the server: what the types promise is what comes back', async () => {
    const owner = await server.human('typed-owner', { role: 'owner' });
    const described = await proposeApproveAndRead(server.url, owner.session);
    assert.deepEqual(described, [
      'space_proposed: Typed Space (open)',
      'space_approved: typed',
      'space_member_admitted: typed-owner via open',
      'message_posted: typed-owner in general: Hello from a generated client',
    ]);
  });

  it("passes Redocly's recommended ruleset with no errors and only the justified warnings", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
    assert.deepEqual(
      problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message}`),
      [],
    );
    const warnings = problems.filter((p) => p.severity === 'warn').map((p) => `${p.ruleId} ${p.location[0]?.pointer ?? ''}`);
    assert.deepEqual(warnings.sort(), [...JUSTIFIED_REDOCLY_WARNINGS].sort());
  });

  it("passes Spectral's spectral:oas ruleset with nothing to report", async () => {
    const spectral = new Spectral();
    spectral.setRuleset({ extends: [[oas as never, 'recommended']] });
    const results = await spectral.run(new Document(source, spectralParsers.Json));
    assert.deepEqual(
      results.map((r) => `${r.code} ${r.path.join('.')}: ${r.message}`),
      [],
    );
  });
});
