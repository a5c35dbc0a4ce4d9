import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { assertRefusal, CliRunner, type CliResult } from './support/cli.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';

const BIN = fileURLToPath(new URL('../bin/atrium.js', import.meta.url));

/** `atrium resources …` run as a child process against a real server (docs/resources.md, CLI). */
for (const backend of backends()) {
  describe(`atrium resources (${backend})`, () => {
    let server: TestServer;
    let cli: CliRunner;
    let ada: { handle: string; session: string };

    /** The CliRunner's child has no stdin; `-` needs one. */
    const withStdin = (args: string[], input: Buffer | string, extra: Record<string, string>) =>
      new Promise<CliResult>((resolve, reject) => {
        const child = spawn(process.execPath, [BIN, ...args], { env: cli.env(extra), stdio: ['pipe', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
        child.once('error', reject);
        child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
        child.stdin.end(input);
      });

    before(async () => {
      server = await startServer(backend);
      ada = await server.human('ada');
      const owner = await server.human('olga', { role: 'owner' });
      assert.equal((await server.request('POST', '/v0/spaces', { token: owner.session, body: { slug: 'forge', name: 'Forge' } })).status, 201);
      assert.equal((await server.request('POST', '/v0/spaces/forge/approve', { token: STEWARD_KEY })).status, 200);
      cli = new CliRunner(server.url);
    });
    after(async () => {
      await cli.cleanup();
      await server.stop();
    });

    it('creates from a file, updates from stdin with --expected-version, lists, shows versions and prints raw Markdown', async () => {
      const asAda = { ATRIUM_TOKEN: ada.session };
      const file = join(cli.configDir, '..', 'plan.md');
      const text = '# Plan\n\nShip it — ünïcode ✓\n';
      writeFileSync(file, text);

      const created = await cli.run(['resources', 'create', 'forge', 'Launch \x1b[31mplan\x1b[0m', file, '--kind', 'runbook'], asAda);
      assert.equal(created.code, 0, created.stderr);
      const match = /^Created Resource (res_[a-z2-7]+) \("Launch �\[31mplan�\[0m"\) in forge: version 1, (\d+) bytes\.$/m.exec(created.stdout);
      assert.ok(match, created.stdout);
      const id = match[1]!;
      assert.equal(Number(match[2]), Buffer.byteLength(text));

      const updated = await withStdin(['resources', 'update', 'forge', id, '-', '--expected-version', '1', '--name', 'Plan v2'], '# Plan\n\nShipped.\n', asAda);
      assert.equal(updated.code, 0, updated.stderr);
      assert.equal(updated.stdout, `Resource ${id} ("Plan v2") is now at version 2, 17 bytes.\n`);

      const stale = await withStdin(['resources', 'update', 'forge', id, '-', '--expected-version', '1'], 'late', asAda);
      assertRefusal(stale, 409);
      const notUtf8 = await withStdin(['resources', 'update', 'forge', id, '-'], Buffer.from([0x63, 0x61, 0x66, 0xe9]), asAda);
      assert.equal(notUtf8.code, 2);
      assert.match(notUtf8.stderr, /stdin is not UTF-8 text/);

      const [listed, versions, raw, old, json] = await Promise.all([
        cli.run(['resources', 'list', 'forge']),
        cli.run(['resources', 'versions', 'forge', id]),
        cli.run(['resources', 'get', 'forge', id, '--raw']),
        cli.run(['resources', 'get', 'forge', id, '--version', '1']),
        cli.run(['resources', 'get', 'forge', id, '--json']),
      ]);
      for (const r of [listed, versions, raw, old, json]) assert.equal(r.code, 0, r.stderr);
      assert.match(listed.stdout, /^ID\s+VERSION\s+KIND\s+BYTES\s+UPDATED\s+BY\s+NAME$/m);
      assert.match(listed.stdout, new RegExp(`^${id}\\s+2\\s+runbook\\s+17\\s+\\S+\\s+ada\\s+Plan v2$`, 'm'));
      assert.match(versions.stdout, /^VERSION\s+BYTES\s+DIGEST\s+CREATED\s+BY\s+NAME$/m);
      assert.match(versions.stdout, /^2\s+17\s+sha256:[0-9a-f]{12}\s+\S+\s+ada\s+Plan v2\n1\s+\d+\s+sha256:[0-9a-f]{12}\s+\S+\s+ada\s+Launch �\[31mplan�\[0m$/m);
      assert.equal(raw.stdout, '# Plan\n\nShipped.\n');
      assert.match(old.stdout, /^version:\s+1$/m);
      assert.match(old.stdout, /^content:\n {2}# Plan\n\n {2}Ship it — ünïcode ✓$/m);
      assert.ok(!listed.stdout.includes('\x1b') && !versions.stdout.includes('\x1b') && !old.stdout.includes('\x1b'));
      assert.deepEqual([JSON.parse(json.stdout).current_version, JSON.parse(json.stdout).content], [2, '# Plan\n\nShipped.\n']);

      const [missingFile, anonymous, badVersion] = await Promise.all([
        cli.run(['resources', 'create', 'forge', 'Nope', join(cli.configDir, 'missing.md')], asAda),
        cli.run(['resources', 'create', 'forge', 'Nope', file]),
        cli.run(['resources', 'get', 'forge', id, '--version', '0']),
      ]);
      assert.equal(missingFile.code, 2);
      assert.match(missingFile.stderr, /cannot read .*missing\.md/);
      assert.equal(anonymous.code, 3);
      assert.match(anonymous.stderr, /^atrium: not logged in/);
      assert.equal(badVersion.code, 2);
    });
  });
}
