// Preloaded into the bench's Atrium servers (`node --import`): records every
// statement the server sends to its database, through the drivers themselves
// (better-sqlite3's statements, pg's Client.query), so that bench/replay.ts can
// send exactly the same statements again with no service in between. Patching
// the drivers rather than hooking the service lets a checkout that knows
// nothing of this be measured too (ATRIUM_BENCH_COMPARE's "before").
//
// Off until the process receives SIGUSR2; the next SIGUSR2 writes what was
// recorded to ATRIUM_BENCH_TRACE (JSON lines) and turns recording off. Each
// switch is acknowledged on stdout, so the bench knows where the trace starts
// and that the file is complete.
//
// On SQLite (ATRIUM_BENCH_TRACE_SQLITE names the service's database file),
// switching on first copies the database to ATRIUM_BENCH_TRACE_COPY on the
// server's own connection, between two transactions: the replay needs the
// database exactly as the first recorded statement found it (a copy taken from
// outside would miss requests still finishing, and every recorded id after
// them would be off by as many).
//
// A line: { c: connection, q: SQL, p: parameters, r?: true when it returns rows }.
// Buffers are written as { $b: base64 }. The trace holds parameters, secrets'
// hashes among them: it is for a bench database, never a real one.
import { Buffer } from 'node:buffer';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const file = process.env.ATRIUM_BENCH_TRACE;
if (file) {
  // The server's own copies of the drivers: a compared checkout may have node_modules of its own.
  const require = createRequire(join(process.cwd(), 'package.json'));
  let recording = false;
  let lines = [];
  const ids = new WeakMap();
  let next = 0;
  const idOf = (connection) => {
    let id = ids.get(connection);
    if (id === undefined) ids.set(connection, (id = `c${(next += 1)}`));
    return id;
  };
  const encode = (value) => (Buffer.isBuffer(value) || value instanceof Uint8Array ? { $b: Buffer.from(value).toString('base64') } : value instanceof Date ? value.toISOString() : value);
  const record = (connection, sql, params, reader) => {
    lines.push(JSON.stringify({ c: idOf(connection), q: sql, p: (params ?? []).map(encode), ...(reader ? { r: true } : {}) }));
  };

  const BetterSqlite3 = require('better-sqlite3');
  const prepare = BetterSqlite3.prototype.prepare;
  let statementPatched = false;
  /** The service's connection, and whether a switch-on waits for its transaction to end. */
  let service;
  let armed = false;
  const start = () => {
    if (service && process.env.ATRIUM_BENCH_TRACE_COPY) prepare.call(service, 'vacuum into ?').run(process.env.ATRIUM_BENCH_TRACE_COPY);
    armed = false;
    lines = [];
    recording = true;
    process.stdout.write('statement trace on\n');
  };
  BetterSqlite3.prototype.prepare = function (source, ...rest) {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the connection itself is what is kept
    if (this.name === process.env.ATRIUM_BENCH_TRACE_SQLITE) service = this;
    const statement = prepare.call(this, source, ...rest);
    if (!statementPatched) {
      statementPatched = true;
      const proto = Object.getPrototypeOf(statement);
      for (const method of ['run', 'all', 'get', 'iterate']) {
        const original = proto[method];
        proto[method] = function (...args) {
          // Only the service's database: the embedded gateway's ledger is another file.
          if (recording && this.database === service) {
            const params = args.length === 1 && Array.isArray(args[0]) ? args[0] : args;
            record(this.database, this.source, params, this.reader);
          }
          const result = original.apply(this, args);
          if (armed && this.database === service && !service.inTransaction) start();
          return result;
        };
      }
    }
    return statement;
  };

  const pg = require('pg');
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (config, values, callback) {
    if (recording) {
      const text = typeof config === 'string' ? config : config?.text;
      const params = typeof config === 'string' ? values : (config?.values ?? values);
      if (typeof text === 'string') record(this, text, Array.isArray(params) ? params : [], false);
    }
    return query.call(this, config, values, callback);
  };

  process.on('SIGUSR2', () => {
    if (!recording) {
      if (service?.inTransaction) armed = true;
      else start();
      return;
    }
    recording = false;
    writeFileSync(file, lines.length > 0 ? `${lines.join('\n')}\n` : '');
    process.stdout.write(`statement trace off: ${lines.length} statements\n`);
    lines = [];
  });
}
