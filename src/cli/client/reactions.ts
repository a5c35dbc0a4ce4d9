import type { Command } from 'commander';
import { client, idArgument, type CommonOptions } from './command-kit.js';
import { resolveTarget, send, type Schemas } from './api.js';
import { printJson, printable, say } from './output.js';

type Message = Schemas['Message'];

/** Reactions to messages (docs/messages.md, "Reactions"). */
export function registerReactionCommands(program: Command): void {
  client(program, 'react <space> <message-id> <emoji>', 'react to a message with one emoji (again changes nothing)').action(
    async (space: string, id: string, emoji: string, opts: CommonOptions) => {
      const path = { slug: space, id: idArgument(id), emoji };
      const { body } = await send(resolveTarget(opts.host), (api) => api.PUT('/v0/spaces/{slug}/messages/{id}/reactions/{emoji}', { params: { path } }));
      if (opts.json) return printJson(body);
      say(`Reacted to message ${body.id}: ${reactionLine(body)}`);
    },
  );

  client(program, 'unreact <space> <message-id> <emoji>', 'take back your reaction to a message').action(
    async (space: string, id: string, emoji: string, opts: CommonOptions) => {
      const path = { slug: space, id: idArgument(id), emoji };
      const { body } = await send(resolveTarget(opts.host), (api) => api.DELETE('/v0/spaces/{slug}/messages/{id}/reactions/{emoji}', { params: { path } }));
      if (opts.json) return printJson(body);
      say(`Message ${body.id}: ${reactionLine(body) || 'no reactions'}`);
    },
  );
}

/** `👍 3  🎉 1`: each emoji with its count, as a message's footer. */
export function reactionLine(message: Pick<Message, 'reactions'>): string {
  return message.reactions.map((r) => `${printable(r.emoji)} ${r.count}`).join('  ');
}
