import type { Command } from 'commander';
import { client, idArgument, type CommonOptions } from './command-kit.js';
import { resolveTarget, send } from './api.js';
import { printJson, printTable, say, time } from './output.js';

/** Read marks per conversation (docs/messages.md, "Read marks"). */
export function registerReadMarkCommands(program: Command): void {
  client(program, 'read-marks <space>', 'show how far you have read each channel (#name) and direct conversation (@handle)').action(
    async (space: string, opts: CommonOptions) => {
      const { body } = await send(resolveTarget(opts.host), (api) => api.GET('/v0/spaces/{slug}/read-marks', { params: { path: { slug: space } } }));
      if (opts.json) return printJson(body);
      printTable(
        ['CONVERSATION', 'READ UP TO', 'MARKED'],
        body.read_marks.map((m) => [m.channel !== null ? `#${m.channel}` : `@${m.with}`, String(m.message_id), time(m.updated_ts)]),
        `Nothing marked read in ${space}.`,
      );
    },
  );

  client(program, 'mark-read <space> <conversation> <message-id>', 'mark a channel, or @handle for a direct conversation, read up to a message').action(
    async (space: string, conversation: string, id: string, opts: CommonOptions) => {
      const named = conversation.startsWith('@') ? { with: conversation.slice(1) } : { channel: conversation.replace(/^#/, '') };
      const { body } = await send(resolveTarget(opts.host), (api) =>
        api.POST('/v0/spaces/{slug}/read-marks', { params: { path: { slug: space } }, body: { ...named, message_id: idArgument(id) } }),
      );
      if (opts.json) return printJson(body);
      say(`Read ${body.channel !== null ? `#${body.channel}` : `your conversation with ${body.with}`} up to message ${body.message_id}.`);
    },
  );
}
