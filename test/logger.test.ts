import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger, requestLogger } from '../src/logger.js';

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
