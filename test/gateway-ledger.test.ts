import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import canonicalize from 'canonicalize';
import pg from 'pg';
import type { LedgerRecord } from '../src/shared/gateway-wire.js';
import { CliProcess } from './support/cli.js';
import { childEnv, destinationFor, gatewayBackends, startGateway, startUpstream, ticketRequest, withPg, type GatewayBackend, type TestGateway, type Upstream } from './support/gateway.js';

const SECRET = 'sk-provider-secret-ledger-0123';

/** The digest as any auditor computes it: SHA-256 of the RFC 8785 form of the record without `digest`. */
function digestOf(record: LedgerRecord): string {
  const { digest: _digest, ...rest } = record;
  return createHash('sha256').update(canonicalize(rest)!).digest('hex');
}

function assertChain(ledger: LedgerRecord[]): void {
  let prev = '0'.repeat(64);
  ledger.forEach((r, i) => {
    assert.equal(r.seq, i + 1);
    assert.equal(r.prev_digest, prev, `prev_digest of ${r.seq}`);
    assert.equal(r.digest, digestOf(r), `digest of ${r.seq}`);
    assert.match(r.ts, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    prev = r.digest;
  });
}

/** Runs `atrium gateway verify-ledger` as an operator would, in its own process. */
function verifyLedger(databaseUrl: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new CliProcess(['gateway', 'verify-ledger', '--database-url', databaseUrl], childEnv({}), process.cwd()).exited;
}

/** Runs SQL against the gateway's own store from outside the gateway (tampering, breaking). */
async function onStore(gw: TestGateway, sqlite: string, postgres: string): Promise<void> {
  if (gw.backend === 'sqlite') {
    const db = new BetterSqlite3(gw.databaseUrl.slice('sqlite:'.length));
    try {
      db.exec(sqlite);
    } finally {
      db.close();
    }
  } else {
    await withPg((c) => c.query(`set search_path to ${gw.schema}; ${postgres}`));
  }
}

for (const backend of gatewayBackends()) {
  describe(`credential gateway ledger (${backend})`, () => {
    let upstream: Upstream;
    let gw: TestGateway;
    before(async () => {
      upstream = await startUpstream();
      gw = await startGateway({ backend, destinations: [destinationFor(upstream)], env: { PROVIDER_KEY: SECRET } });
    });
    after(async () => {
      await gw?.stop();
      await upstream?.stop();
    });

    it('chains every record to the one before, and the chain holds under concurrent appends', async () => {
      // Each its own member and connection, so that all six calls may be in flight at once.
      const requests = Array.from({ length: 12 }, (_, i) => ticketRequest(upstream.url(`/v1/n${i}`), { member: `member-${i}`, connection_id: `connection-${i}` }));
      const issued = await Promise.all(requests.map((r) => gw.issue(r)));
      assert.ok(issued.every((r) => r.status === 201));
      await Promise.all(issued.slice(0, 6).map((r) => gw.call(r.body.ticket)));
      const ledger = await gw.ledger();
      assert.equal(ledger.length, 12 + 6 * 2);
      assertChain(ledger);
      const result = await verifyLedger(gw.databaseUrl);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /Ledger OK: 24 records/);
    });

    it('reads pages after a cursor, filtered by Space, actor and run', async () => {
      const a = ticketRequest(upstream.url('/v1/a'), { space: 'orchard', member: 'wren', run_id: 'run-filter-a' });
      const b = ticketRequest(upstream.url('/v1/b'), { space: 'orchard', member: 'finch', run_id: 'run-filter-b' });
      const c = ticketRequest(upstream.url('/v1/c'), { space: 'meadow', member: 'wren', run_id: 'run-filter-c' });
      for (const r of [a, b, c]) assert.equal((await gw.issue(r)).status, 201);
      await gw.call((await gw.issue({ ...a, run_id: 'run-filter-a2' })).body.ticket);

      const all = await gw.ledger();
      const bySpace = await gw.events({ space: 'orchard' });
      assert.equal(bySpace.status, 200);
      assert.deepEqual(bySpace.body.events.map((r) => r.run_id), ['run-filter-a', 'run-filter-b', 'run-filter-a2', 'run-filter-a2', 'run-filter-a2']);
      assert.equal(bySpace.body.cursor, bySpace.body.events.at(-1)!.seq);
      const byActor = await gw.events({ actor: 'wren', space: 'meadow' });
      assert.deepEqual(byActor.body.events.map((r) => r.run_id), ['run-filter-c']);
      const byRun = await gw.events({ run_id: 'run-filter-a2' });
      assert.deepEqual(byRun.body.events.map((r) => r.decision), ['issued', 'started', 'brokered']);
      assert.deepEqual(byRun.body.events, all.filter((r) => r.run_id === 'run-filter-a2'), 'reads return records exactly as listed and hashed');
      assert.equal((await gw.events({ run_id: 'run-filter' })).body.events.length, 0, 'run_id matches exactly');

      const first = await gw.events({ limit: '2' });
      assert.deepEqual(first.body.events.map((r) => r.seq), [1, 2]);
      assert.equal(first.body.cursor, 2);
      const next = await gw.events({ since: '2', limit: '3' });
      assert.deepEqual(next.body.events.map((r) => r.seq), [3, 4, 5]);
      const head = all.at(-1)!.seq;
      const empty = await gw.events({ since: String(head), space: 'orchard' });
      assert.deepEqual(empty.body, { events: [], cursor: head }, 'an empty page keeps the cursor where it was');
      const defaultLimit = await gw.events({});
      assert.equal(defaultLimit.body.events.length, Math.min(100, all.length));
    });

    it('refuses bad paging with 422 invalid_request and other keys with 401 unauthorized', async () => {
      const queries: Array<Record<string, string>> = [{ limit: '0' }, { limit: '501' }, { limit: 'x' }, { since: '-1' }, { since: '1.5' }];
      for (const query of queries) {
        const res = await gw.events(query);
        assert.equal(res.status, 422, JSON.stringify(query));
        assert.equal(res.body.code, 'invalid_request');
      }
      assert.equal((await gw.events({ limit: '500' })).status, 200);
      for (const key of ['', gw.issuerKey, `${gw.auditKey}x`]) {
        const res = await gw.events({}, key);
        assert.equal(res.status, 401);
        assert.deepEqual(res.body, { code: 'unauthorized', detail: res.body.detail });
      }
    });

    it('finds a tampered record with atrium gateway verify-ledger, naming its seq', async () => {
      const before = await gw.ledger();
      assertChain(before);
      const victim = before[2]!;
      const forged = JSON.stringify({ ...victim, purpose: 'Something else entirely' }).replaceAll("'", "''");
      await onStore(gw, `update gateway_ledger set record = '${forged}' where seq = 3`, `update gateway_ledger set record = '${forged}' where seq = 3`);
      const result = await verifyLedger(gw.databaseUrl);
      assert.notEqual(result.code, 0);
      assert.match(result.stderr, /the ledger is broken at seq 3: digest does not match the record \(2 records before it verify\)/);

      // Recomputing the digest too is caught by the next record's link.
      const rehashed = { ...victim, purpose: 'Something else entirely' };
      rehashed.digest = digestOf(rehashed);
      const text = JSON.stringify(rehashed).replaceAll("'", "''");
      await onStore(gw, `update gateway_ledger set record = '${text}', digest = '${rehashed.digest}' where seq = 3`, `update gateway_ledger set record = '${text}', digest = '${rehashed.digest}' where seq = 3`);
      const again = await verifyLedger(gw.databaseUrl);
      assert.notEqual(again.code, 0);
      assert.match(again.stderr, /broken at seq 4: prev_digest is not the digest of the record before/);

      // A record removed from the middle.
      await onStore(gw, `update gateway_ledger set record = '${JSON.stringify(victim).replaceAll("'", "''")}', digest = '${victim.digest}' where seq = 3`, `update gateway_ledger set record = '${JSON.stringify(victim).replaceAll("'", "''")}', digest = '${victim.digest}' where seq = 3`);
      assert.equal((await verifyLedger(gw.databaseUrl)).code, 0, 'restored');
      await onStore(gw, 'delete from gateway_ledger where seq = 5', 'delete from gateway_ledger where seq = 5');
      const gap = await verifyLedger(gw.databaseUrl);
      assert.notEqual(gap.code, 0);
      assert.match(gap.stderr, /broken at seq 5: record 5 is missing/);
    });
  });

  describe(`credential gateway: a ticket's identity fields against a rewritten store (${backend})`, () => {
    let upstream: Upstream;
    let gw: TestGateway;
    /** Added to the real time on the gateway's clock, so a ticket can expire without waiting. */
    let skewMs = 0;
    before(async () => {
      upstream = await startUpstream();
      gw = await startGateway({ backend, inProcess: true, now: () => new Date(Date.now() + skewMs), destinations: [destinationFor(upstream)], env: { PROVIDER_KEY: SECRET } });
    });
    after(async () => {
      await gw?.stop();
      await upstream?.stop();
    });

    /** Rewrites one field of the request the gateway keeps for `runId`'s ticket, as anyone with write access to its store could. */
    const rewriteKept = (runId: string, field: string, value: string) =>
      onStore(
        gw,
        `update gateway_pending_tickets set bound = json_set(bound, '$.${field}', '${value}') where json_extract(bound, '$.run_id') = '${runId}'`,
        `update gateway_pending_tickets set bound = jsonb_set(bound::jsonb, '{${field}}', '"${value}"')::text where bound::jsonb->>'run_id' = '${runId}'`,
      );

    for (const field of ['purpose', 'request_id']) {
      it(`refuses a ticket whose kept ${field} was rewritten: 401 ticket_invalid, nothing sent, nothing of the rewrite recorded`, async () => {
        const req = ticketRequest(upstream.url(`/v1/kept-${field}`));
        const issued = await gw.issue(req);
        assert.equal(issued.status, 201);
        await rewriteKept(req.run_id, field, 'Rewritten afterwards');
        const before = upstream.received.length;
        const res = await gw.call(issued.body.ticket);
        assert.equal(res.status, 401, JSON.stringify(res.body));
        assert.deepEqual(res.body, { code: 'ticket_invalid', detail: res.body.detail });
        assert.equal(upstream.received.length, before, 'nothing reached the upstream');
        const ledger = await gw.ledger();
        assert.deepEqual(ledger.filter((r) => r.run_id === req.run_id).map((r) => r.decision), ['issued']);
        assert.ok(!JSON.stringify(ledger).includes('Rewritten afterwards'));
        assert.equal((await verifyLedger(gw.databaseUrl)).code, 0);
      });

      it(`records no replay or expiry under a rewritten ${field}`, async () => {
        const used = ticketRequest(upstream.url(`/v1/replayed-${field}`));
        const usedTicket = (await gw.issue(used)).body.ticket;
        assert.equal((await gw.call(usedTicket)).status, 200);
        await rewriteKept(used.run_id, field, 'Rewritten after use');
        const replay = await gw.call(usedTicket);
        assert.equal(replay.status, 401, JSON.stringify(replay.body));
        assert.equal(replay.body.code, 'ticket_invalid');

        const late = ticketRequest(upstream.url(`/v1/late-${field}`), { ttl_seconds: 30 });
        const lateTicket = (await gw.issue(late)).body.ticket;
        await rewriteKept(late.run_id, field, 'Rewritten before expiry');
        skewMs += 31_000;
        const expired = await gw.call(lateTicket);
        assert.equal(expired.status, 401, JSON.stringify(expired.body));
        assert.equal(expired.body.code, 'ticket_invalid');

        const ledger = await gw.ledger();
        assert.deepEqual(ledger.filter((r) => r.run_id === used.run_id).map((r) => r.decision), ['issued', 'started', 'brokered']);
        assert.deepEqual(ledger.filter((r) => r.run_id === late.run_id).map((r) => r.decision), ['issued']);
        assert.ok(!/Rewritten (after use|before expiry)/.test(JSON.stringify(ledger)));
      });

      it(`finds with verify-ledger a ${field} rewritten in a ticket's later records, even rehashed from there on`, async () => {
        const req = ticketRequest(upstream.url(`/v1/rehashed-${field}`));
        const issued = await gw.issue(req);
        assert.equal((await gw.call(issued.body.ticket)).status, 200);
        assert.equal((await gw.issue(ticketRequest(upstream.url('/v1/after')))).status, 201, 'a record after the rewritten ones');
        const ledger = await gw.ledger();
        assert.equal((await verifyLedger(gw.databaseUrl)).code, 0);
        const started = ledger.find((r) => r.run_id === req.run_id && r.decision === 'started')!;
        const issuedSeq = ledger.find((r) => r.run_id === req.run_id && r.decision === 'issued')!.seq;

        // The started and brokered records say something else, and every digest from there on is recomputed: the chain is whole.
        let prev = ledger[started.seq - 2]!.digest;
        const rewrites = ledger.slice(started.seq - 1).map((record) => {
          const forged: LedgerRecord = { ...record, ...(record.run_id === req.run_id ? { [field]: 'Rewritten in the ledger' } : {}), prev_digest: prev };
          forged.digest = digestOf(forged);
          prev = forged.digest;
          return `update gateway_ledger set record = '${JSON.stringify(forged).replaceAll("'", "''")}', digest = '${forged.digest}' where seq = ${record.seq};`;
        });
        await onStore(gw, rewrites.join('\n'), rewrites.join('\n'));
        assertChain(await gw.ledger());
        const result = await verifyLedger(gw.databaseUrl);
        assert.notEqual(result.code, 0);
        assert.match(result.stderr, new RegExp(`the ledger is broken at seq ${started.seq}: ${field} differs from the issued record of its ticket \\(seq ${issuedSeq}\\)`));

        // Put back as the gateway wrote it for the tests that follow.
        const restores = ledger.slice(started.seq - 1).map((record) => `update gateway_ledger set record = '${JSON.stringify(record).replaceAll("'", "''")}', digest = '${record.digest}' where seq = ${record.seq};`);
        await onStore(gw, restores.join('\n'), restores.join('\n'));
        assertChain(await gw.ledger());
      });
    }
  });

  describe(`credential gateway without its ledger (${backend})`, () => {
    let upstream: Upstream;
    before(async () => {
      upstream = await startUpstream();
    });
    after(() => upstream?.stop());

    it('refuses ledger reads with 403 audit_disabled when no audit key is set', async () => {
      const gw = await startGateway({ backend, inProcess: true, noAuditKey: true, destinations: [destinationFor(upstream)], env: { PROVIDER_KEY: SECRET } });
      try {
        for (const key of ['', 'anything-at-all-0123456789abcdefghij']) {
          const res = await gw.events({}, key);
          assert.equal(res.status, 403);
          assert.deepEqual(res.body, { code: 'audit_disabled', detail: res.body.detail });
        }
      } finally {
        await gw.stop();
      }
    });

    it('issues nothing when the ledger store cannot be written: 503 audit_unavailable, no ticket kept', async () => {
      const gw = await startGateway({ backend, inProcess: true, destinations: [destinationFor(upstream)], env: { PROVIDER_KEY: SECRET } });
      try {
        assert.equal((await gw.issue(ticketRequest(upstream.url('/v1/first')))).status, 201);
        const broken = breakStore(gw, backend);
        await broken.ready;
        const res = await gw.issue(ticketRequest(upstream.url('/v1/x'), { run_id: 'run-while-down' }));
        assert.equal(res.status, 503);
        assert.deepEqual(res.body, { code: 'audit_unavailable', detail: res.body.detail });
        const denied = await gw.issue(ticketRequest(upstream.url('/v2/x'), { run_id: 'run-denied-while-down' }));
        assert.equal(denied.status, 503, 'a refusal that cannot be recorded is not answered as a refusal either');
        await broken.release();
        const ledger = await gw.ledger();
        assert.deepEqual(ledger.map((r) => r.decision), ['issued']);
        assertChain(ledger);
        assert.equal(await pendingTickets(gw), 1, 'only the first ticket is kept');
        assert.equal((await gw.issue(ticketRequest(upstream.url('/v1/after')))).status, 201, 'issuance resumes with the store');
      } finally {
        await gw.stop();
      }
    });

    it('refuses ledger reads with 503 audit_unavailable when the store has lost its ledger', async () => {
      const gw = await startGateway({ backend, inProcess: true, destinations: [destinationFor(upstream)], env: { PROVIDER_KEY: SECRET } });
      try {
        assert.equal((await gw.events({})).status, 200);
        await onStore(gw, 'drop table gateway_ledger', 'drop table gateway_ledger');
        const read = await gw.events({});
        assert.equal(read.status, 503);
        assert.deepEqual(read.body, { code: 'audit_unavailable', detail: read.body.detail });
        const issue = await gw.issue(ticketRequest(upstream.url('/v1/x')));
        assert.equal(issue.status, 503);
        assert.equal(issue.body.code, 'audit_unavailable');
        assert.equal(await pendingTickets(gw), 0);
      } finally {
        await gw.stop();
      }
    });
  });
}

async function pendingTickets(gw: TestGateway): Promise<number> {
  if (gw.backend === 'sqlite') {
    const db = new BetterSqlite3(gw.databaseUrl.slice('sqlite:'.length), { readonly: true });
    try {
      return (db.prepare('select count(*) as n from gateway_pending_tickets').get() as { n: number }).n;
    } finally {
      db.close();
    }
  }
  return withPg(async (c) => Number((await c.query(`select count(*) as n from ${gw.schema}.gateway_pending_tickets`)).rows[0].n));
}

/**
 * Makes the gateway's store refuse writes, honestly: on SQLite another
 * connection holds the write lock, and on PostgreSQL another session holds
 * the ledger table locked: the gateway waits its lock timeout and fails.
 */
function breakStore(gw: TestGateway, backend: GatewayBackend): { ready: Promise<void>; release(): Promise<void> } {
  if (backend === 'sqlite') {
    const db = new BetterSqlite3(gw.databaseUrl.slice('sqlite:'.length));
    db.exec('begin exclusive');
    return {
      ready: Promise.resolve(),
      async release() {
        db.exec('rollback');
        db.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: process.env.ATRIUM_TEST_DATABASE_URL });
  const ready = (async () => {
    await client.connect();
    await client.query(`begin; lock table ${gw.schema}.gateway_ledger in access exclusive mode`);
  })();
  return {
    ready,
    async release() {
      await client.query('rollback');
      await client.end();
    },
  };
}
