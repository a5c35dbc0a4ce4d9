import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { assertRefusal, CliRunner, type CliResult } from './support/cli.js';
import { backends, startServer, STEWARD_KEY, type TestServer, type Person } from './support/server.js';

const BIN = fileURLToPath(new URL('../bin/atrium.js', import.meta.url));

/** The `atrium` messaging commands, run as a child process against a real server. */
for (const backend of backends()) {
  describe(`atrium post, dm, messages, channels, inbox (${backend})`, () => {
    let server: TestServer;
    let cli: CliRunner;
    let alice: Person;
    let bob: Person;
    let cwd: string;

    before(async () => {
      server = await startServer(backend);
      cli = new CliRunner(server.url);
      cwd = mkdtempSync(join(tmpdir(), 'atrium-cli-stdin-'));
      alice = await server.human('alice');
      bob = await server.human('bob');
      assert.equal((await server.request('POST', '/v0/spaces', { token: alice.session, body: { slug: 'plaza', name: 'plaza' } })).status, 201);
      assert.equal((await server.request('POST', '/v0/spaces/plaza/approve', { token: STEWARD_KEY })).status, 200);
    });
    after(async () => {
      await cli.cleanup();
      rmSync(cwd, { recursive: true, force: true });
      await server.stop();
    });

    /** The CLI with stdin attached (CliRunner gives its children none). */
    const withStdin = (args: string[], token: string, input: string): Promise<CliResult> =>
      new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [BIN, ...args], { env: cli.env({ ATRIUM_TOKEN: token }), cwd, stdio: ['pipe', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
        child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
        child.once('error', reject);
        child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
        child.stdin.end(input);
      });

    it('posts to a channel (also from stdin), lists channels and reads messages back', async () => {
      const posted = await cli.run(['post', 'plaza', 'general', 'Hello @bob, see *this*'], { ATRIUM_TOKEN: alice.session });
      assert.equal(posted.code, 0, posted.stderr);
      assert.match(posted.stdout, /^Posted message \d+ to #general in plaza \(mentioned: bob\)\.\n$/);

      const piped = await withStdin(['post', 'plaza', 'general', '-', '--json'], alice.session, 'line one\n\x1b[31mline two\n');
      assert.equal(piped.code, 0, piped.stderr);
      const message = JSON.parse(piped.stdout);
      // One trailing newline from stdin is dropped; the rest is sent verbatim.
      assert.equal(message.body, 'line one\n\x1b[31mline two');

      const channels = await cli.run(['channels', 'plaza']);
      assert.equal(channels.code, 0, channels.stderr);
      assert.match(channels.stdout, /^CHANNEL\s+TOPIC/);
      assert.match(channels.stdout, /^general\s/m);

      const read = await cli.run(['messages', 'plaza', 'general']);
      assert.equal(read.code, 0, read.stderr);
      // Oldest of the page first; other members' text cannot drive the terminal.
      assert.match(read.stdout, /^#\d+ {2}alice {2}\S+Z\n {2}Hello @bob, see \*this\*\n\n#\d+ {2}alice {2}\S+Z\n {2}line one\n {2}\uFFFD\[31mline two\n/);
      assert.ok(!read.stdout.includes('\x1b'), 'no escape character reaches the terminal');

      const unknown = await cli.run(['post', 'plaza', 'no-such-channel', 'hi'], { ATRIUM_TOKEN: alice.session });
      assert.equal(assertRefusal(unknown, 404), 'channel_not_found');
      const anonymous = await cli.run(['post', 'plaza', 'general', 'hi']);
      assert.equal(anonymous.code, 3);
      assert.match(anonymous.stderr, /not logged in/);
    });

    it('sends direct messages and lists the conversations they start', async () => {
      // A member of its own, so the inbox test below sees only what it sent.
      const cora = await server.human('cora');
      const sent = await cli.run(['dm', 'plaza', 'cora', 'psst, cora'], { ATRIUM_TOKEN: alice.session });
      assert.equal(sent.code, 0, sent.stderr);
      const listed = await cli.run(['conversations', 'plaza'], { ATRIUM_TOKEN: cora.session });
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, /^WITH\s+LAST\s+FROM\s+AT\s+MESSAGE\nalice\s+#\d+\s+alice\s+\S+Z\s+psst, cora\n/);
      assert.match(listed.stdout, /Read one with: atrium messages plaza --with HANDLE/);
      const neither = await cli.run(['messages', 'plaza'], { ATRIUM_TOKEN: cora.session });
      assert.equal(neither.code, 2);
      assert.match(neither.stderr, /name a channel, or a member with --with\n/);
      assert.doesNotMatch(neither.stderr, /not both/);
    });

    it('prints the inbox, and follows it until Ctrl-C', async () => {
      const dm = await cli.run(['dm', 'plaza', 'bob', 'just for you'], { ATRIUM_TOKEN: alice.session });
      assert.equal(dm.code, 0, dm.stderr);
      assert.match(dm.stdout, /^Sent direct message \d+ to bob in plaza\.\n$/);

      const inbox = await cli.run(['inbox'], { ATRIUM_TOKEN: bob.session });
      assert.equal(inbox.code, 0, inbox.stderr);
      assert.match(inbox.stdout, /^CURSOR\s+TIME\s+SPACE\s+FROM\s+WHERE\s+MESSAGE\n/);
      assert.match(inbox.stdout, /^\d+\s+\S+Z\s+plaza\s+alice\s+#general\s+Hello @bob, see \*this\*$/m);
      assert.match(inbox.stdout, /^\d+\s+\S+Z\s+plaza\s+alice\s+direct\s+just for you$/m);
      const json = await cli.run(['inbox', '--json'], { ATRIUM_TOKEN: bob.session });
      assert.deepEqual(JSON.parse(json.stdout), (await server.request('GET', '/v0/me/inbox-events', { token: bob.session })).body);
      const empty = await cli.run(['inbox'], { ATRIUM_TOKEN: alice.session });
      assert.equal(empty.stdout, 'Nothing new.\n');

      const newest = await cli.run(['inbox', '--newest', '1'], { ATRIUM_TOKEN: bob.session });
      assert.match(newest.stdout, /^CURSOR.*\n\d+\s+\S+Z\s+plaza\s+alice\s+direct\s+just for you\n$/);

      const follower = cli.spawn(['inbox', '--follow'], { ATRIUM_TOKEN: bob.session });
      await follower.waitForStdout(/just for you/);
      const again = await cli.run(['post', 'plaza', 'general', '@bob are you there?'], { ATRIUM_TOKEN: alice.session });
      assert.equal(again.code, 0, again.stderr);
      await follower.waitForStdout(/#general\s+@bob are you there\?/);
      follower.child.kill('SIGINT');
      const done = await follower.exited;
      assert.equal(done.code, 0, done.stderr);
      assert.equal(done.stdout.match(/just for you/g)?.length, 1, 'each event is printed once');

      const conversation = await cli.run(['messages', 'plaza', '--with', 'alice', '--json'], { ATRIUM_TOKEN: bob.session });
      assert.equal(conversation.code, 0, conversation.stderr);
      assert.deepEqual(
        JSON.parse(conversation.stdout).messages.map((m: { body: string }) => m.body),
        ['just for you'],
      );
      const both = await cli.run(['messages', 'plaza', 'general', '--with', 'alice'], { ATRIUM_TOKEN: bob.session });
      assert.equal(both.code, 2);
    });

    it('replies in a thread and prints it', async () => {
      const root = await cli.run(['post', 'plaza', 'general', 'a thread starts', '--json'], { ATRIUM_TOKEN: alice.session });
      const rootId = JSON.parse(root.stdout).id as number;
      const reply = await cli.run(['post', 'plaza', 'general', 'a reply', '--thread', String(rootId)], { ATRIUM_TOKEN: bob.session });
      assert.equal(reply.code, 0, reply.stderr);
      assert.match(reply.stdout, new RegExp(`^Posted message \\d+ to #general \\(in the thread of ${rootId}\\) in plaza\\.\n$`));

      const top = await cli.run(['messages', 'plaza', 'general']);
      assert.match(top.stdout, new RegExp(`^#${rootId} {2}alice {2}\\S+Z {2}\\(1 reply: atrium thread plaza ${rootId}\\)\n {2}a thread starts\n`, 'm'));
      assert.ok(!top.stdout.includes('a reply'), 'replies stay in their thread');

      const thread = await cli.run(['thread', 'plaza', String(rootId)]);
      assert.equal(thread.code, 0, thread.stderr);
      assert.match(thread.stdout, /^#\d+ {2}alice .*\n {2}a thread starts\n\n {2}#\d+ {2}bob {2}\S+Z\n {4}a reply\n/);
      const json = await cli.run(['thread', 'plaza', String(rootId), '--json']);
      assert.deepEqual(JSON.parse(json.stdout), (await server.request('GET', `/v0/spaces/plaza/messages/${rootId}/thread`)).body);

      const refused = await cli.run(['post', 'plaza', 'general', 'x', '--thread', String(JSON.parse((await cli.run(['messages', 'plaza', 'general', '--thread', String(rootId), '--json'])).stdout).messages[0].id)], {
        ATRIUM_TOKEN: bob.session,
      });
      assert.equal(assertRefusal(refused, 422), 'thread_root_invalid');
    });

    it('edits a message and prints its versions', async () => {
      const posted = JSON.parse((await cli.run(['post', 'plaza', 'general', 'draft one', '--json'], { ATRIUM_TOKEN: alice.session })).stdout) as { id: number };
      const id = String(posted.id);
      const edited = await withStdin(['edit-message', 'plaza', id, '-', '--expected-version', '1'], alice.session, 'draft two, @bob\n');
      assert.equal(edited.code, 0, edited.stderr);
      assert.equal(edited.stdout, `Edited message ${id} in plaza: now version 2 (mentioned: bob).\n`);
      const stale = await cli.run(['edit-message', 'plaza', id, 'draft three', '--expected-version', '1'], { ATRIUM_TOKEN: alice.session });
      assert.equal(assertRefusal(stale, 409), 'message_version_conflict');
      const notYours = await cli.run(['edit-message', 'plaza', id, 'mine now', '--expected-version', '2'], { ATRIUM_TOKEN: bob.session });
      assert.equal(assertRefusal(notYours, 403), 'not_message_author');

      const history = await cli.run(['message-versions', 'plaza', id]);
      assert.equal(history.code, 0, history.stderr);
      assert.match(history.stdout, /^version 1 {2}\S+Z\n {2}draft one\n\nversion 2 {2}\S+Z\n {2}draft two, @bob\n\n$/);
      const listed = await cli.run(['messages', 'plaza', 'general', '--limit', '1']);
      assert.match(listed.stdout, new RegExp(`^#${id} {2}alice {2}\\S+Z {2}\\(edited\\)\n {2}draft two, @bob\n`));
    });

    it('deletes a message, leaving a tombstone', async () => {
      const posted = JSON.parse((await cli.run(['post', 'plaza', 'general', 'soon gone', '--json'], { ATRIUM_TOKEN: alice.session })).stdout) as { id: number };
      const id = String(posted.id);
      const notYours = await cli.run(['delete-message', 'plaza', id], { ATRIUM_TOKEN: bob.session });
      assert.equal(assertRefusal(notYours, 403), 'not_message_author');
      const deleted = await cli.run(['delete-message', 'plaza', id], { ATRIUM_TOKEN: alice.session });
      assert.equal(deleted.code, 0, deleted.stderr);
      assert.equal(deleted.stdout, `Deleted message ${id} in plaza.\n`);
      const again = await cli.run(['delete-message', 'plaza', id], { ATRIUM_TOKEN: alice.session });
      assert.equal(assertRefusal(again, 409), 'message_deleted');
      const listed = await cli.run(['messages', 'plaza', 'general', '--limit', '1']);
      assert.match(listed.stdout, new RegExp(`^#${id} {2}alice {2}\\S+Z\n {2}\\(deleted by alice\\)\n`));
      const versions = await cli.run(['message-versions', 'plaza', id]);
      assert.equal(versions.stdout, `Message ${id} was deleted: no versions remain.\n`);
    });
  });
}
