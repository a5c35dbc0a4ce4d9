import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JITTER, nextAttemptDelayMs, retryAfterMs } from '../src/webhooks/retry.js';
import { matchesFilter } from '../src/webhooks/filter.js';

const now = new Date('2026-11-25T12:00:00.000Z');
const schedule = [5, 300, 1800];

describe('webhook retry waits', () => {
  it('waits the schedule entry for the attempt just made, within the jitter either way', () => {
    assert.equal(nextAttemptDelayMs(schedule, 1, undefined, now, () => 0.5), 5000);
    assert.equal(nextAttemptDelayMs(schedule, 2, undefined, now, () => 0.5), 300_000);
    assert.equal(nextAttemptDelayMs(schedule, 1, undefined, now, () => 0), 5000 * (1 - JITTER));
    assert.equal(nextAttemptDelayMs(schedule, 1, undefined, now, () => 1), 5000 * (1 + JITTER));
  });

  it("honours a longer Retry-After, but never past the next step", () => {
    assert.equal(nextAttemptDelayMs(schedule, 1, '60', now, () => 0.5), 60_000);
    assert.equal(nextAttemptDelayMs(schedule, 1, '100000', now, () => 0.5), 300_000);
    // A shorter one does not hurry the schedule.
    assert.equal(nextAttemptDelayMs(schedule, 2, '1', now, () => 0.5), 300_000);
    // At the last step, the cap is that step.
    assert.equal(nextAttemptDelayMs(schedule, 3, '99999', now, () => 0.5), 1_800_000);
    assert.equal(nextAttemptDelayMs(schedule, 1, 'Wed, 25 Nov 2026 12:02:00 GMT', now, () => 0.5), 120_000);
  });

  it('reads Retry-After as seconds or an HTTP date, and ignores anything else', () => {
    assert.equal(retryAfterMs('120', now), 120_000);
    assert.equal(retryAfterMs('Wed, 25 Nov 2026 11:00:00 GMT', now), 0);
    assert.equal(retryAfterMs('soon', now), undefined);
    assert.equal(retryAfterMs('-5', now), undefined);
    assert.equal(retryAfterMs(undefined, now), undefined);
  });
});

describe('webhook filters', () => {
  const message = { type: 'message_posted', subjects: ['space:plaza', 'channel:general', 'message:1'] };
  const task = { type: 'task_claimed', subjects: ['space:plaza', 'task:7', 'member:ada'] };

  it('matches any clause, and every part of a clause', () => {
    assert.equal(matchesFilter(null, message), true);
    assert.equal(matchesFilter({ any: [{ event_types: [{ prefix: 'task_' }] }] }, task), true);
    assert.equal(matchesFilter({ any: [{ event_types: [{ prefix: 'task_' }] }] }, message), false);
    assert.equal(matchesFilter({ any: [{ event_types: [{ exact: 'message_posted' }], subject: { channel: 'general' } }] }, message), true);
    assert.equal(matchesFilter({ any: [{ event_types: [{ exact: 'message_posted' }], subject: { channel: 'random' } }] }, message), false);
    assert.equal(matchesFilter({ any: [{ subject: { channel: 'random' } }, { subject: { task: 7 } }] }, task), true);
    assert.equal(matchesFilter({ any: [{ subject: { task: 70 } }] }, task), false);
  });
});
