import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MIN_PARSE_MS, ParseBudgets } from '../src/messages/mention-budget.js';
import { FairQueues } from '../src/messages/mention-queues.js';
import { MentionWorkers, type WorkerReply } from '../src/messages/mention-workers.js';
import { mentionCandidates, plainMentionCandidates } from '../src/messages/mentions.js';
import fc from 'fast-check';

const body = (owner: string, name: string) => ({ owner, name });

/** The units under the mention parser, each on its own (the parser as a whole: mentions-fairness.test.ts). */
describe('mention parsing: the queues', () => {
  it('serves owners round-robin, so one backlog never sits ahead of another owner’s single body', () => {
    const queues = new FairQueues<ReturnType<typeof body>>(10);
    for (const name of ['a1', 'a2', 'a3']) queues.add(body('ada', name));
    queues.add(body('bob', 'b1'));
    assert.equal(queues.size, 4);
    assert.deepEqual([queues.take(), queues.take(), queues.take(), queues.take()].map((b) => b?.name), ['a1', 'b1', 'a2', 'a3']);
    assert.equal(queues.take(), undefined);
    assert.equal(queues.size, 0);
  });

  it('skips an owner who already parses their share, and counts what each holds until its parse ends', () => {
    const queues = new FairQueues<ReturnType<typeof body>>(1);
    const first = body('ada', 'a1');
    queues.add(first);
    queues.add(body('ada', 'a2'));
    assert.equal(queues.take(), first);
    assert.equal(queues.take(), undefined, 'ada already parses one');
    assert.equal(queues.heldBy('ada'), 2);
    queues.finishParse(first);
    assert.equal(queues.heldBy('ada'), 1);
    assert.equal(queues.take()?.name, 'a2');
  });

  it('lets a waiting body leave, and drains what is left', () => {
    const queues = new FairQueues<ReturnType<typeof body>>(1);
    const leaving = body('ada', 'a1');
    queues.add(leaving);
    queues.add(body('bob', 'b1'));
    queues.removeWaiting(leaving);
    assert.equal(queues.heldBy('ada'), 0);
    assert.equal(queues.size, 1);
    assert.deepEqual(queues.drain().map((b) => b.name), ['b1']);
    assert.equal(queues.size, 0);
  });
});

describe('mention parsing: the budgets', () => {
  it('charges waiting to the body, but not the time no worker was ready', () => {
    let now = 0;
    const budgets = new ParseBudgets(1000, () => now);
    budgets.noteReadiness(false);
    const arrival = budgets.arrival();
    now = 400;
    assert.equal(budgets.spent(arrival), 0, 'no worker yet: the host is starting');
    budgets.noteReadiness(true);
    now = 700;
    assert.equal(budgets.spent(arrival), 300);
    assert.equal(budgets.left(arrival), 700);
    now = 1690;
    assert.equal(budgets.forParse(arrival), MIN_PARSE_MS, 'a parse always gets its minimum');
  });
});

describe('mention parsing: the workers', () => {
  it('starts a worker per slot that parses a body, and replaces a retired one', { timeout: 120_000 }, async () => {
    const replies: WorkerReply[] = [];
    let ready!: () => void;
    let answered!: () => void;
    const isReady = new Promise<void>((resolve) => (ready = resolve));
    const isAnswered = new Promise<void>((resolve) => (answered = resolve));
    const workers = new MentionWorkers<never>(1, {
      readiness: () => undefined,
      reply: (_slot, reply) => {
        replies.push(reply);
        if (reply.ready) ready();
        else answered();
      },
      failed: (_slot, err) => assert.fail(err),
    });
    try {
      workers.fill();
      await isReady;
      assert.equal(workers.anyReady, true);
      workers.slots[0]!.worker!.postMessage({ id: 7, markdown: 'hello @ada and `@not`' });
      await isAnswered;
      assert.deepEqual(replies.at(-1), { id: 7, candidates: ['ada'] });

      const retired = workers.slots[0]!.worker;
      workers.retire(workers.slots[0]!);
      assert.equal(workers.anyReady, false);
      workers.fill();
      assert.notEqual(workers.slots[0]!.worker, undefined);
      assert.notEqual(workers.slots[0]!.worker, retired);
    } finally {
      await workers.close();
    }
  });
});

describe('mention parsing: plain prose without the parser', () => {
  it('finds the mentions of plain prose, emphasis away from them included', () => {
    const body = 'Could @bench-a, @bench-b and @bench-c review the **draft** before Friday?';
    assert.deepEqual(plainMentionCandidates(body), ['bench-a', 'bench-b', 'bench-c']);
    assert.deepEqual(plainMentionCandidates('hi @Alice\n\nand @bob-\nnot @al, @x or @carol.'), ['alice', 'bob', 'carol']);
    assert.deepEqual(plainMentionCandidates(''), []);
  });

  it('leaves to the parser every body with something other than paragraphs of prose', () => {
    for (const body of [
      '`@alice`',
      '[@alice](https://x.test)',
      '\\@alice',
      '&#64;alice',
      '**@alice**',
      '_@alice_',
      '~~@alice~~',
      '- @alice',
      '1. @alice',
      '# @alice',
      '> @alice',
      '    @alice',
      '\t@alice',
      '@alice\n===',
      '<span>@alice</span>',
      'see https://x.test/?a=@alice',
      'www.x.test/@alice',
      'mail bob@alice.test',
      '| @alice |',
      'a\r\n@alice',
    ]) {
      assert.equal(plainMentionCandidates(body), undefined, JSON.stringify(body));
    }
  });

  it('answers exactly what the parser answers, whenever it answers', () => {
    const pieces = ['@', '@', 'alice', 'bob-c', 'x', '-', '.', ',', ' ', ' ', '\n', '\n\n', '*', '**', '_', '/', '+', ':', '!', '?', '(', ')', '"', "'", '=', '#', '1', '\u00a0', 'é', '中', 'さん', '😀', '  ', '    ', '\\', '`', '[', ']', '<', '&', '~', 'www.', '://'];
    let answered = 0;
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 40 }), (parts) => {
        const body = parts.join('');
        const plain = plainMentionCandidates(body);
        if (plain === undefined) return;
        answered += 1;
        assert.deepEqual(plain, mentionCandidates(body), JSON.stringify(body));
      }),
      { numRuns: 20_000 },
    );
    assert.ok(answered > 2_000, `only ${answered} bodies were answered without the parser`);
  });
});
