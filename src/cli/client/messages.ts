import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { client, positiveInteger, type CommonOptions } from './command-kit.js';
import { resolveTarget, send, type Schemas } from './api.js';
import { usageError } from './errors.js';
import { feedOptions, followFeed, pagingHint, payloadOf, readPage, type EventsOptions, type FeedEvent, type FeedSource } from './events.js';
import { printable, printJson, printTable, say, time } from './output.js';
import { reactionLine } from './reactions.js';

type Message = Schemas['Message'];

/** Channels, messages, direct messages and the inbox (docs/messages.md). */
export function registerMessageCommands(program: Command): void {
  client(program, 'channels <space>', "list a Space's channels").action(async (space: string, opts: CommonOptions) => {
    const { body } = await send(resolveTarget(opts.host), (api) => api.GET('/v0/spaces/{slug}/channels', { params: { path: { slug: space } } }));
    if (opts.json) return printJson(body);
    // A member sees what is unread; an anonymous reader has no read marks.
    const counted = body.channels.some((c) => c.unread !== undefined);
    printTable(
      ['CHANNEL', ...(counted ? ['UNREAD'] : []), 'TOPIC', 'CREATED BY', 'CREATED'],
      body.channels.map((c) => [c.name, ...(counted ? [String(c.unread ?? '')] : []), printable(c.topic), c.created_by, time(c.created_ts)]),
      `No channels in ${space}.`,
    );
  });

  client(program, 'create-channel <space> <name>', 'create a channel (1-64 lowercase letters, digits, hyphens)')
    .option('--topic <text>', 'what the channel is for, at most 280 characters')
    .action(async (space: string, name: string, opts: CommonOptions & { topic?: string }) => {
      const { body } = await send(resolveTarget(opts.host), (api) =>
        api.POST('/v0/spaces/{slug}/channels', { params: { path: { slug: space } }, body: { name, ...(opts.topic !== undefined ? { topic: opts.topic } : {}) } }),
      );
      if (opts.json) return printJson(body);
      say(`Created #${body.name} in ${body.space}.`);
    });

  client(program, 'post <space> <channel> <body>', 'post a Markdown message to a channel; BODY "-" reads it from stdin')
    .option('--thread <id>', 'reply in the thread of this top-level message', positiveInteger)
    .action(async (space: string, channel: string, text: string, opts: CommonOptions & ThreadOption) => {
      const { body } = await send(resolveTarget(opts.host), (api) =>
        api.POST('/v0/spaces/{slug}/channels/{channel}/messages', {
          params: { path: { slug: space, channel } },
          body: { body: messageText(text), thread_root: opts.thread },
        }),
      );
      if (opts.json) return printJson(body);
      say(`Posted message ${body.id} to #${body.channel}${inThread(body)} in ${body.space}${mentioned(body)}.`);
    });

  client(program, 'dm <space> <handle> <body>', 'send a direct message to one member of a Space; BODY "-" reads it from stdin')
    .option('--thread <id>', 'reply in the thread of this top-level message', positiveInteger)
    .action(async (space: string, handle: string, text: string, opts: CommonOptions & ThreadOption) => {
      const { body } = await send(resolveTarget(opts.host), (api) =>
        api.POST('/v0/spaces/{slug}/direct-messages', { params: { path: { slug: space } }, body: { to: handle, body: messageText(text), thread_root: opts.thread } }),
      );
      if (opts.json) return printJson(body);
      say(`Sent direct message ${body.id} to ${handle}${inThread(body)} in ${body.space}.`);
    });

  client(program, 'thread <space> <id>', 'print the thread a message belongs to: its root, then its replies, oldest of the page first')
    .option('--before <id>', 'only replies older than this id (to page back)', positiveInteger)
    .option('--limit <n>', 'replies per page (1-200, default 50)', positiveInteger)
    .action(async (space: string, id: string, opts: CommonOptions & { before?: number; limit?: number }) => {
      const { body } = await send(resolveTarget(opts.host), (api) =>
        api.GET('/v0/spaces/{slug}/messages/{id}/thread', {
          params: { path: { slug: space, id: positiveInteger(id) }, query: { before: opts.before, limit: opts.limit } },
        }),
      );
      if (opts.json) return printJson(body);
      printMessages([body.root]);
      if (body.replies.length === 0) return say('No replies.');
      printMessages(body.replies, '  ');
      if (body.replies.length === (opts.limit ?? 50)) process.stderr.write(`Older replies may exist: add --before ${body.replies.at(-1)!.id}\n`);
    });

  client(program, 'edit-message <space> <id> <body>', 'replace the body of your message; BODY "-" reads it from stdin')
    .requiredOption('--expected-version <n>', 'the version you are editing (see `atrium message-versions`)', positiveInteger)
    .action(async (space: string, id: string, text: string, opts: CommonOptions & { expectedVersion: number }) => {
      const { body } = await send(resolveTarget(opts.host), (api) =>
        api.PATCH('/v0/spaces/{slug}/messages/{id}', {
          params: { path: { slug: space, id: positiveInteger(id) } },
          body: { body: messageText(text), expected_version: opts.expectedVersion },
        }),
      );
      if (opts.json) return printJson(body);
      say(`Edited message ${body.id} in ${body.space}: now version ${body.version}${mentioned(body)}.`);
    });

  client(program, 'delete-message <space> <id>', 'delete a message (yours, or any as an Owner/Host): a tombstone stays in its place').action(
    async (space: string, id: string, opts: CommonOptions) => {
      const { body } = await send(resolveTarget(opts.host), (api) =>
        api.DELETE('/v0/spaces/{slug}/messages/{id}', { params: { path: { slug: space, id: positiveInteger(id) } } }),
      );
      if (opts.json) return printJson(body);
      say(`Deleted message ${body.id} in ${body.space}.`);
    },
  );

  client(program, 'message-versions <space> <id>', 'print every body a message has had, oldest first').action(
    async (space: string, id: string, opts: CommonOptions) => {
      const { body } = await send(resolveTarget(opts.host), (api) =>
        api.GET('/v0/spaces/{slug}/messages/{id}/versions', { params: { path: { slug: space, id: positiveInteger(id) } } }),
      );
      if (opts.json) return printJson(body);
      if (body.versions.length === 0) return say(`Message ${body.message_id} was deleted: no versions remain.`);
      for (const v of body.versions) {
        say(`version ${v.version}  ${time(v.created_ts)}`);
        for (const line of printable(v.body).split('\n')) say(`  ${line}`.trimEnd());
        say('');
      }
    },
  );

  client(program, 'conversations <space>', 'list your direct conversations in a Space, the most recently active first')
    .option('--before <id>', 'only conversations whose newest message is older than this id (to page back)', positiveInteger)
    .option('--limit <n>', 'conversations per page (1-200, default 50)', positiveInteger)
    .action(async (space: string, opts: CommonOptions & { before?: number; limit?: number }) => {
      const { body } = await send(resolveTarget(opts.host), (api) =>
        api.GET('/v0/spaces/{slug}/direct-messages', { params: { path: { slug: space }, query: { before: opts.before, limit: opts.limit } } }),
      );
      if (opts.json) return printJson(body);
      printTable(
        ['WITH', 'LAST', 'FROM', 'AT', 'MESSAGE'],
        body.conversations.map((c) => [c.with, `#${c.last_message.id}`, c.last_message.author, time(c.last_message.created_ts), excerpt(c.last_message.body)]),
        'No direct conversations.',
      );
      if (body.conversations.length > 0) say(`Read one with: atrium messages ${space} --with HANDLE`);
    });

  client(program, 'messages <space> [channel]', "print a channel's messages (or, with --with, your direct conversation), oldest of the page first")
    .option('--with <handle>', 'your direct conversation with this member instead of a channel')
    .option('--before <id>', 'only messages older than this id (to page back)', positiveInteger)
    .option('--limit <n>', 'messages per page (1-200, default 50)', positiveInteger)
    .option('--thread <id>', 'this thread (its root and replies) instead of the top-level messages', positiveInteger)
    .action(async (space: string, channel: string | undefined, opts: CommonOptions & ThreadOption & { with?: string; before?: number; limit?: number }) => {
      if (channel === undefined && opts.with === undefined) throw usageError('name a channel, or a member with --with');
      if (channel !== undefined && opts.with !== undefined) throw usageError('name a channel or a member with --with, not both');
      const query = { before: opts.before, limit: opts.limit, thread_root: opts.thread };
      const { body } =
        opts.with !== undefined
          ? await send(resolveTarget(opts.host), (api) =>
              api.GET('/v0/spaces/{slug}/direct-messages/{handle}', { params: { path: { slug: space, handle: opts.with! }, query } }),
            )
          : await send(resolveTarget(opts.host), (api) =>
              api.GET('/v0/spaces/{slug}/channels/{channel}/messages', { params: { path: { slug: space, channel: channel! }, query } }),
            );
      if (opts.json) return printJson(body);
      if (body.messages.length === 0) return say('No messages.');
      printMessages(body.messages);
      if (body.messages.length === (opts.limit ?? 50)) process.stderr.write(`Older messages may exist: add --before ${body.messages.at(-1)!.id}\n`);
    });

  feedOptions(client(program, 'inbox', 'print your inbox: direct messages to you and mentions of you')).action(
    async (opts: CommonOptions & EventsOptions) => {
      const target = resolveTarget(opts.host);
      const source: FeedSource = { label: 'your inbox', read: (api, query, signal) => api.GET('/v0/me/inbox-events', { params: { query }, signal }) };
      if (opts.follow) return followFeed(target, source, opts, (e) => inboxRow(e).join('  '));
      const body = await readPage(target, source, opts);
      if (opts.json) return printJson(body);
      printTable(['CURSOR', 'TIME', 'SPACE', 'FROM', 'WHERE', 'MESSAGE'], body.events.map(inboxRow), 'Nothing new.');
      pagingHint(body, opts);
    },
  );
}

interface ThreadOption {
  thread?: number;
}

function inThread(m: Pick<Message, 'thread_root'>): string {
  return m.thread_root === null ? '' : ` (in the thread of ${m.thread_root})`;
}

/** Pages come newest first; a conversation reads top to bottom. */
function printMessages(page: Message[], indent = ''): void {
  for (const m of [...page].reverse()) {
    say(`${indent}#${m.id}  ${m.author}  ${time(m.created_ts)}${m.edited_ts === null ? '' : '  (edited)'}${replies(m)}`);
    const text = m.deleted_ts === null ? printable(m.body) : `(deleted by ${m.deleted_by ?? 'an Owner/Host'})`;
    for (const line of text.split('\n')) say(`${indent}  ${line}`.trimEnd());
    if (m.reactions.length > 0) say(`${indent}  ${reactionLine(m)}`);
    say('');
  }
}

function replies(m: Message): string {
  if (!m.reply_count) return '';
  return `  (${m.reply_count} ${m.reply_count === 1 ? 'reply' : 'replies'}: atrium thread ${m.space} ${m.id})`;
}

function inboxRow(e: FeedEvent): string[] {
  const p = payloadOf(e);
  const place = typeof p.channel === 'string' ? `#${p.channel}` : typeof p.task === 'number' ? `task ${p.task}` : Array.isArray(p.direct_members) ? 'direct' : e.type;
  const where = typeof p.thread_root === 'number' ? `${place} thread ${p.thread_root}` : place;
  const text = typeof p.body === 'string' ? printable(p.body).replace(/\s+/g, ' ').trim() : '';
  return [String(e.cursor), time(e.created_ts), e.space ?? '-', e.actor ?? '-', where, text.length > 100 ? `${text.slice(0, 99)}…` : text || '-'];
}

export function mentioned(m: Pick<Message, 'mentioned_members'>): string {
  return m.mentioned_members.length > 0 ? ` (mentioned: ${m.mentioned_members.join(', ')})` : '';
}

/**
 * The body argument, or stdin for `-`. One trailing newline from stdin is
 * dropped (`echo … | atrium post …` adds it); everything else is sent verbatim.
 */
function messageText(arg: string): string {
  if (arg !== '-') return arg;
  try {
    return readFileSync(0, 'utf8').replace(/\r?\n$/, '');
  } catch (err) {
    throw usageError(`cannot read stdin: ${(err as Error).message}`);
  }
}

/** The first line of a body, short enough for a table cell. */
function excerpt(body: string): string {
  const line = printable(body).split('\n')[0] ?? '';
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}

