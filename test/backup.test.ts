import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, statSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { entry, LedgerChain } from '../src/gateway/ledger.js';
import { migrateStore, openStore } from '../src/gateway/store.js';
import { CliRunner } from './support/cli.js';
import { backends, freePort, startServer, withPg, withSearchPath, type TestServer } from './support/server.js';
import { activeSpace } from './support/spaces.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

/**
 * `atrium admin backup`, `restore` and `verify` (docs/operations.md, "Backup
 * and restore"), as an operator runs them: real child processes on a host
 * that keeps taking writes meanwhile. Every kind of record is seeded (a
 * webhook endpoint and subscription, and the embedded gateway's ledger
 * included); the restored host's feeds, Resources, blobs and ledger are
 * compared byte for byte with the original's up to the backup's cursor, then
 * it is started and verified. On PostgreSQL the database goes through
 * pg_dump and pg_restore, as the guide says, and the archive carries the
 * files beside it.
 */
for (const backend of backends()) {
  describe(`backup and restore (${backend})`, () => {
    let server: TestServer;
    let receiver: WebhookReceiver;
    let cli: CliRunner;
    let ada: { handle: string; session: string };
    let work: string;
    /** The service's database as a child process is given it. */
    let databaseUrl: string;

    before(async () => {
      server = await startServer(backend, { env: { ATRIUM_EGRESS_ALLOW_CIDRS: '127.0.0.0/8' } });
      cli = new CliRunner(server.url);
      work = mkdtempSync(join(tmpdir(), 'atrium-backup-test-'));
      databaseUrl = server.database.schema ? withSearchPath(server.database.url, server.database.schema) : server.database.url;
      receiver = await WebhookReceiver.start(server.url);
      ada = await server.human('ada');
      const bea = await server.human('bea');
      await activeSpace(server, ada.session, 'plaza');
      for (const who of [ada, bea]) assert.equal((await server.request('POST', '/v0/spaces/plaza/join', { token: who.session })).status, 200);
      const created = await server.request('POST', '/v0/spaces/plaza/resources', { token: ada.session, body: { name: 'Charter', content: '# Charter\n\nFirst.' } });
      assert.equal(created.status, 201, created.body?.detail);
      const versioned = await server.request('POST', `/v0/spaces/plaza/resources/${created.body.id}/versions`, { token: ada.session, body: { content: '# Charter\n\nSecond.' } });
      assert.equal(versioned.status, 201, versioned.body?.detail);
      assert.equal((await server.request('POST', '/v0/spaces/plaza/tasks', { token: ada.session, body: { kind: 'general', title: 'Ship it' } })).status, 201);
      assert.equal((await server.request('POST', '/v0/spaces/plaza/direct-messages', { token: ada.session, body: { to: 'bea', body: 'just us' } })).status, 201);
      const endpoint = await server.request('POST', '/v0/webhook-endpoints', { token: ada.session, body: { url: receiver.url('/backup') } });
      assert.equal(endpoint.status, 201, endpoint.body?.detail);
      assert.equal((await server.request('POST', `/v0/webhook-endpoints/${endpoint.body.id}/verify`, { token: ada.session })).status, 200);
      const subscription = await server.request('POST', '/v0/spaces/plaza/webhook-subscriptions', { token: ada.session, body: { endpoint_id: endpoint.body.id } });
      assert.equal(subscription.status, 201, subscription.body?.detail);
      assert.equal((await server.request('POST', `/v0/spaces/plaza/webhook-subscriptions/${subscription.body.id}/activate`, { token: ada.session })).status, 200);
      for (let i = 0; i < 20; i++) await post(`before the backup ${i}`);
      // The embedded gateway's ledger, where `atrium serve` keeps it: written by the gateway's own ledger code.
      const store = openStore(`sqlite:${join(server.app.ctx.config.dataDir, 'gateway.db')}`);
      await migrateStore(store);
      const ledger = new LedgerChain(store);
      for (let i = 0; i < 3; i++) await ledger.append(entry('issued', { space: 'plaza', member: 'ada', run_id: `run-${i}`, connection_id: 'weather' }), new Date());
      await store.close();
    });
    after(async () => {
      await cli.cleanup();
      await receiver.stop();
      await server.stop();
      rmSync(work, { recursive: true, force: true });
    });

    const post = async (body: string) => {
      const res = await server.request('POST', '/v0/spaces/plaza/channels/general/messages', { token: ada.session, body: { body } });
      assert.equal(res.status, 201, res.body?.detail);
    };
    /** Admin commands on the original host, as run on its machine. */
    const original = () => ({ ATRIUM_DATABASE_URL: databaseUrl, ATRIUM_DATA_DIR: server.app.ctx.config.dataDir, ATRIUM_BASE_URL: server.url, ATRIUM_LOG_LEVEL: 'warn' });

    it('backs up while writers run, restores into a fresh host that matches up to the backup cursor, serves and verifies', async () => {
      const archive = join(work, 'host.atrium-backup');
      let writing = true;
      let written = 0;
      const writer = (async () => {
        while (writing) {
          await post(`during the backup ${written}`);
          written += 1;
        }
      })();
      const backup = await cli.run(['admin', 'backup', '--to', archive], original());
      // The writers went on until the backup ended; a few more after it make the cut visible.
      const during = written;
      writing = false;
      await writer;
      for (let i = 0; i < 5; i++) await post(`after the backup ${i}`);
      assert.equal(backup.code, 0, backup.stderr);
      assert.match(backup.stdout, /^Backup written to \S+: \d+ files, \d+ bytes, up to event \d+\.$/m);
      assert.ok(during > 0, 'writes went on while the backup ran');

      const manifest = JSON.parse(execFileSync('tar', ['-xOf', archive, 'manifest.json'], { encoding: 'utf8' })) as { event_cursor: number; database: string; files: Array<{ path: string }> };
      assert.deepEqual(manifest.files.map((f) => f.path).sort(), [...(backend === 'sqlite' ? ['atrium.db'] : []), 'data/webhook-sealing.key', 'gateway.db'].sort());
      const newest = Number((await server.app.ctx.db.kysely.selectFrom('events').select((eb) => eb.fn.max('cursor').as('c')).executeTakeFirstOrThrow()).c);
      assert.ok(manifest.event_cursor < newest, `the backup's cursor ${manifest.event_cursor} is before the writes that followed it (newest ${newest})`);

      // The fresh host: its own data directory and, on PostgreSQL, its own database restored from pg_dump.
      const dataDir = join(work, 'restored');
      let restoredUrl = `sqlite:${join(dataDir, 'atrium.db')}`;
      let restoredDatabase: string | undefined;
      if (backend === 'postgres') {
        const dump = join(work, 'host.pgdump');
        execFileSync('pg_dump', ['--format=custom', `--schema=${server.database.schema!}`, `--file=${dump}`, server.database.url]);
        restoredDatabase = `atrium_restore_${process.pid}`;
        await withPg(server.database.url, (c) => c.query(`create database ${restoredDatabase}`));
        const url = new URL(server.database.url);
        url.pathname = `/${restoredDatabase}`;
        execFileSync('pg_restore', ['--no-owner', `--dbname=${url.toString()}`, dump]);
        restoredUrl = withSearchPath(url.toString(), server.database.schema!);
      }
      try {
        const port = await freePort();
        const restoredEnv = { ATRIUM_DATABASE_URL: restoredUrl, ATRIUM_DATA_DIR: dataDir, ATRIUM_BASE_URL: server.url, ATRIUM_PORT: String(port), ATRIUM_HOST: '127.0.0.1', ATRIUM_LOG_LEVEL: 'warn' };
        const restored = await cli.run(['admin', 'restore', '--from', archive], restoredEnv);
        assert.equal(restored.code, 0, restored.stderr);
        assert.match(restored.stdout, new RegExp(`^Restored ${manifest.files.length} files from the backup of \\S+, up to event ${manifest.event_cursor}:`, 'm'));
        assert.doesNotMatch(restored.stderr, /Warning/, 'the same base URL: nothing to warn of');

        await compareUpTo(manifest.event_cursor, databaseUrl, restoredUrl);
        assert.deepEqual(ledgerRows(join(dataDir, 'gateway.db')), ledgerRows(join(server.app.ctx.config.dataDir, 'gateway.db')));
        assert.equal(readFileSync(join(dataDir, 'webhook-sealing.key'), 'utf8'), readFileSync(join(server.app.ctx.config.dataDir, 'webhook-sealing.key'), 'utf8'));

        const verified = await cli.run(['admin', 'verify'], restoredEnv);
        assert.equal(verified.code, 0, verified.stdout + verified.stderr);
        assert.match(verified.stdout, /^ok {4}event log: \d+ events, cursors 1 to \d+, each once$/m);
        assert.match(verified.stdout, /^ok {4}blobs: 2 blobs, 2 match their digest$/m);
        assert.match(verified.stdout, /^ok {4}Resource versions: 2 versions, 2 with their blob$/m);
        assert.match(verified.stdout, /^ok {4}webhook signing keys: 1 open with the sealing key$/m);
        assert.match(verified.stdout, /^ok {4}gateway's ledger: 3 records, chain intact$/m);
        assert.match(verified.stdout, /^All checks passed\.$/m);

        const serving = cli.spawn(['serve'], restoredEnv);
        await serving.waitForStdout(/Atrium is listening/);
        const base = `http://127.0.0.1:${port}`;
        assert.equal((await fetch(`${base}/readyz`)).status, 200);
        const page = await fetch(`${base}/v0/spaces/plaza/events?newest=1&limit=1`, { headers: { authorization: `Bearer ${ada.session}` } });
        assert.equal(page.status, 200, 'the session made before the backup still signs in');
        const events = ((await page.json()) as { events: Array<{ cursor: number }> }).events;
        // SQLite: the copy itself; PostgreSQL: pg_dump, taken after the archive, holds at least as much.
        if (backend === 'sqlite') assert.ok(events[0]!.cursor <= manifest.event_cursor, 'nothing after the backup');
        else assert.ok(events[0]!.cursor >= manifest.event_cursor, 'the dump holds every event the archive names');
        const wrote = await fetch(`${base}/v0/spaces/plaza/channels/general/messages`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ada.session}`, 'content-type': 'application/json' },
          body: JSON.stringify({ body: 'after the restore' }),
        });
        assert.equal(wrote.status, 201, 'the restored host takes writes');
        serving.child.kill('SIGTERM');
        assert.equal((await serving.exited).code, 0);
      } finally {
        if (restoredDatabase) await withPg(server.database.url, (c) => c.query(`drop database ${restoredDatabase} with (force)`));
      }
    });

    it('refuses a damaged or cut-short archive, and a target that holds data, leaving nothing behind', async () => {
      const archive = join(work, 'refusals.atrium-backup');
      assert.equal((await cli.run(['admin', 'backup', '--to', archive], original())).code, 0);
      const again = await cli.run(['admin', 'backup', '--to', archive], original());
      assert.equal(again.code, 1);
      assert.match(again.stderr, /exists already; a backup never overwrites a file/);

      const target = (name: string) => ({ ATRIUM_DATABASE_URL: `sqlite:${join(work, name, 'atrium.db')}`, ATRIUM_DATA_DIR: join(work, name), ATRIUM_LOG_LEVEL: 'warn' });
      const pgTarget = (name: string) => ({ ...target(name), ATRIUM_DATABASE_URL: databaseUrl });
      const into = (name: string) => (backend === 'sqlite' ? target(name) : pgTarget(name));

      const cut = join(work, 'cut.atrium-backup');
      copyFileSync(archive, cut);
      truncateSync(cut, Math.floor(statSync(cut).size / 2));
      const refusedCut = await cli.run(['admin', 'restore', '--from', cut], into('from-cut'));
      assert.equal(refusedCut.code, 1);
      assert.match(refusedCut.stderr, /^atrium: \S+cut\.atrium-backup is incomplete/m);
      assert.ok(!existsSync(join(work, 'from-cut', 'webhook-sealing.key')), 'nothing of it was put in place');

      const damaged = join(work, 'damaged.atrium-backup');
      const bytes = readFileSync(archive);
      // The sealing key's bytes sit after its 512-byte tar header; flip one of them.
      const at = bytes.indexOf(readFileSync(join(server.app.ctx.config.dataDir, 'webhook-sealing.key')));
      assert.ok(at > 0);
      bytes[at] = bytes[at] === 0x41 ? 0x42 : 0x41;
      writeFileSync(damaged, bytes);
      const refusedDamaged = await cli.run(['admin', 'restore', '--from', damaged], into('from-damaged'));
      assert.equal(refusedDamaged.code, 1);
      assert.match(refusedDamaged.stderr, /^atrium: \S+damaged\.atrium-backup is damaged: data\/webhook-sealing\.key has \d+ bytes with SHA-256 [0-9a-f]{64}, its manifest says/m);

      const occupied = await cli.run(['admin', 'restore', '--from', archive], { ...original() });
      assert.equal(occupied.code, 1);
      assert.match(occupied.stderr, /^atrium: refusing to restore: the (database \S+ exists already|data directory \S+ is not empty)/m);

      const elsewhere = await cli.run(['admin', 'restore', '--from', archive], { ...into('moved'), ATRIUM_BASE_URL: 'https://atrium.example.org' });
      assert.equal(elsewhere.code, 0, elsewhere.stderr);
      assert.match(elsewhere.stderr, new RegExp(`^Warning: This backup was taken with ATRIUM_BASE_URL ${server.url.replace(/[.]/g, '\\.')}; this host is configured with https://atrium\\.example\\.org\\. Member ids`, 'm'));
    });

    if (backend === 'sqlite') {
      it('verify reports each fault it finds and exits non-zero', async () => {
        const archive = join(work, 'to-break.atrium-backup');
        assert.equal((await cli.run(['admin', 'backup', '--to', archive], original())).code, 0);
        const env = { ATRIUM_DATA_DIR: join(work, 'broken'), ATRIUM_LOG_LEVEL: 'warn' };
        assert.equal((await cli.run(['admin', 'restore', '--from', archive], env)).code, 0);
        const db = new BetterSqlite3(join(work, 'broken', 'atrium.db'));
        // Damage as a disk or a careless hand would do it, past the schema's own checks.
        db.pragma('foreign_keys = off');
        const [first, second] = db.prepare('select digest from resource_versions order by version').all() as Array<{ digest: string }>;
        db.prepare('update blobs set bytes = ? where digest = ?').run(Buffer.from('not what it was'), first!.digest);
        db.prepare('delete from blobs where digest = ?').run(second!.digest);
        db.close();
        rmSync(join(work, 'broken', 'webhook-sealing.key'));

        const verified = await cli.run(['admin', 'verify'], env);
        assert.equal(verified.code, 1);
        assert.match(verified.stdout, /^ok {4}event log: /m);
        assert.match(verified.stdout, new RegExp(`^FAULT blobs: 1 blobs, 0 match their digest\n {8}blob ${first!.digest} holds 15 bytes with digest sha256:[0-9a-f]{64}$`, 'm'));
        assert.match(verified.stdout, new RegExp(`^FAULT Resource versions: 2 versions, 1 with their blob\n {8}version 2 of Resource \\S+ has no blob ${second!.digest}$`, 'm'));
        assert.match(verified.stdout, /^FAULT webhook signing keys: .*\n {8}no sealing key: neither ATRIUM_WEBHOOK_SEALING_KEY nor \S+webhook-sealing\.key is there, and 1 signing keys are sealed under one$/m);
        assert.match(verified.stderr, /^atrium: verify found 3 faults$/m);
      });

      it('leaves no file under the name asked for when killed mid-backup, and what it left is refused', async () => {
        // Enough bytes that the archive takes a while to write.
        await server.app.ctx.db.transaction(async (tx) => {
          for (let i = 0; i < 48; i++) {
            const bytes = Buffer.alloc(1024 * 1024, i);
            await tx.db.insertInto('blobs').values({ digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`, bytes, byte_length: bytes.length, created_ts: new Date().toISOString() }).execute();
          }
        });
        const archive = join(work, 'killed.atrium-backup');
        const backup = cli.spawn(['admin', 'backup', '--to', archive], original());
        await backup.waitForStderr(/^Writing atrium\.db \(\d+ bytes\) to \S+\.partial…$/m);
        backup.child.kill('SIGKILL');
        const ended = await backup.exited;
        assert.equal(ended.signal, 'SIGKILL');
        // The kill lands while the archive is written (51 MB of it), so it almost never finishes first; if it did, it said so.
        if (/^Backup written/m.test(ended.stdout)) return;
        assert.ok(!existsSync(archive), 'a killed backup leaves nothing under the name asked for');
        assert.ok(existsSync(`${archive}.partial`), 'what it was writing is left as .partial');
        const refused = await cli.run(['admin', 'restore', '--from', `${archive}.partial`], { ATRIUM_DATA_DIR: join(work, 'from-partial'), ATRIUM_LOG_LEVEL: 'warn' });
        assert.equal(refused.code, 1);
        assert.match(refused.stderr, /^atrium: \S+killed\.atrium-backup\.partial is incomplete/m);
        assert.ok(!existsSync(join(work, 'from-partial', 'atrium.db')), 'nothing of it was put in place');
      });
    }
  });
}

/** Feeds (events and their index rows), Resources and blobs, byte for byte, up to `cursor`. */
async function compareUpTo(cursor: number, originalUrl: string, restoredUrl: string): Promise<void> {
  const queries: Array<[string, string]> = [
    ['events', `select * from events where cursor <= ${cursor} order by cursor`],
    ['event_subjects', `select * from event_subjects where cursor <= ${cursor} order by cursor, subject`],
    ['resources', 'select * from resources order by id'],
    ['resource_versions', 'select * from resource_versions order by resource_id, version'],
    ['blobs', 'select digest, bytes from blobs order by digest'],
    ['messages', `select m.* from messages m where exists (select 1 from event_subjects s where s.subject = 'message:' || m.id and s.cursor <= ${cursor}) order by m.id`],
  ];
  for (const [what, query] of queries) {
    const [a, b] = await Promise.all([rows(originalUrl, query), rows(restoredUrl, query)]);
    assert.ok(a.length > 0, `${what}: the original has some`);
    assert.deepEqual(b, a, `${what} differ`);
  }
}

async function rows(url: string, query: string): Promise<string[]> {
  if (url.startsWith('sqlite:')) {
    const db = new BetterSqlite3(url.slice('sqlite:'.length), { readonly: true });
    try {
      return (db.prepare(query).all() as Record<string, unknown>[]).map(canonical);
    } finally {
      db.close();
    }
  }
  return withPg(url, async (c) => (await c.query(query)).rows.map(canonical));
}

function canonical(row: Record<string, unknown>): string {
  return JSON.stringify(Object.entries(row).map(([k, v]) => [k, Buffer.isBuffer(v) ? v.toString('base64') : v instanceof Date ? v.toISOString() : v]));
}

function ledgerRows(path: string): string[] {
  const db = new BetterSqlite3(path, { readonly: true });
  try {
    return (db.prepare('select * from gateway_ledger order by seq').all() as Record<string, unknown>[]).map(canonical);
  } finally {
    db.close();
  }
}
