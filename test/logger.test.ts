import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger, RepeatedFailure, requestLogger } from '../src/logger.js';

function capture(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { log: createLogger(level, stream), lines };
}

describe('request logger', () => {
  it('stamps each line with the request id and keeps redaction', async () => {
    const { log, lines } = capture('info');
    const request = requestLogger(log, { reqId: 'req-7' }, {});
    request.info({ req: { method: 'GET', url: '/v0/sign-in?code=secret', ip: '127.0.0.1' } }, 'incoming request');
    request.error({ detail: { token: 'not-for-logs' } }, 'failed');
    request.child({ part: 'inner' }).warn('from a child');
    await new Promise((r) => setImmediate(r));
    assert.equal(lines.length, 3);
    assert.ok(lines.every((line) => line.reqId === 'req-7'));
    assert.deepEqual(lines[0]!.req, { method: 'GET', path: '/v0/sign-in', remoteAddress: '127.0.0.1' });
    assert.deepEqual(lines[1]!.detail, { token: '[redacted]' });
    assert.equal(lines[2]!.part, 'inner');
  });

  it('writes nothing below its level and reports the level it follows', async () => {
    const { log, lines } = capture('warn');
    const request = requestLogger(log, { reqId: 'req-8' }, {});
    request.info('not written');
    request.debug('not written');
    assert.equal(request.level, 'warn');
    assert.equal(request.isLevelEnabled('info'), false);
    request.warn('written');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(
      lines.map((line) => [line.msg, line.reqId]),
      [['written', 'req-8']],
    );
  });

  it('honours a level of its own when one is asked for', async () => {
    const { log, lines } = capture('warn');
    const request = requestLogger(log, { reqId: 'req-9' }, { level: 'info' });
    request.info('written at its own level');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(
      lines.map((line) => line.msg),
      ['written at its own level'],
    );
  });
});

describe('a failure repeated on every pass', () => {
  it('is written once at error, its repeats counted at debug, another failure at error again, and the recovery once at info', async () => {
    const { log, lines } = capture('debug');
    const failure = new RepeatedFailure(log);
    failure.worked('works again');
    const gone = Object.assign(new Error('the data directory /srv/data was removed'), { code: 'node_unavailable' });
    failure.failed(gone, { part: 'cycle' }, 'cycle failed');
    failure.failed(Object.assign(new Error('the data directory /srv/data was removed'), { code: 'node_unavailable' }), { part: 'cycle' }, 'cycle failed');
    failure.failed(gone, { part: 'cycle' }, 'cycle failed');
    failure.failed(new Error('disk I/O error'), { part: 'cycle' }, 'cycle failed');
    failure.worked('works again');
    failure.worked('works again');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(
      lines.map((l) => [l.level, l.msg, l.repeats ?? null, l.err === undefined ? null : (l.err as { message: string }).message]),
      [
        [50, 'cycle failed', null, 'the data directory /srv/data was removed'],
        [20, 'cycle failed (again; logged once until it changes)', 1, null],
        [20, 'cycle failed (again; logged once until it changes)', 2, null],
        [50, 'cycle failed', null, 'disk I/O error'],
        [30, 'works again', 0, null],
      ],
    );
  });
});
