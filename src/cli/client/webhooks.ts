import type { Command } from 'commander';
import { client } from './command-kit.js';
import { resolveTarget, send } from './api.js';
import { printable, printJson, printTable, say, time } from './output.js';
import { registerWebhookSubscriptionCommands } from './webhook-subscriptions.js';
import { registerWebhookListen } from './webhooks-listen.js';

interface Options {
  host?: string;
  json?: boolean;
}

/** As the contract declares it (src/client/openapi.ts, generated). */

/**
 * `atrium webhooks endpoints …` (docs/webhooks.md) over the public API. The
 * `webhooks` group also holds `rotate-key`, which works on the host's database
 * (server-commands.ts), so this attaches to the group if it exists.
 */
export function registerWebhookCommands(program: Command): void {
  const webhooks = program.commands.find((c) => c.name() === 'webhooks') ?? program.command('webhooks');
  // The group was made before the client's exit override, so usage errors under it would exit 1, not 2.
  webhooks.copyInheritedSettings(program);
  webhooks.description('webhook endpoints, subscriptions and deliveries (over the API) and the host signing keys (on the host)');
  registerWebhookListen(webhooks);
  const endpoints = webhooks.command('endpoints').description('register, list, verify and delete your webhook endpoints');

  client(endpoints, 'add <url>', 'register a receiver URL (https, public addresses); nothing is sent until you verify it').action(
    async (url: string, opts: Options) => {
      const { body } = await send(resolveTarget(opts.host), (api) => api.POST('/v0/webhook-endpoints', { body: { url } }));
      if (opts.json) return printJson(body);
      say(`Registered ${body.id} for ${printable(body.url)} (unverified). Verify it with: atrium webhooks endpoints verify ${body.id}`);
    },
  );

  client(endpoints, 'list', 'list your endpoints').action(async (opts: Options) => {
    const { body } = await send(resolveTarget(opts.host), (api) => api.GET('/v0/webhook-endpoints'));
    if (opts.json) return printJson(body);
    printTable(
      ['ID', 'STATUS', 'URL', 'VERIFIED'],
      body.endpoints.map((e) => [e.id, e.status, printable(e.url), e.verified_ts ? time(e.verified_ts) : '-']),
      'No webhook endpoints yet. Register one with: atrium webhooks endpoints add <url>',
    );
  });

  client(endpoints, 'verify <id>', 'send a signed challenge; the receiver must echo it').action(async (id: string, opts: Options) => {
    const { body } = await send(resolveTarget(opts.host), (api) => api.POST('/v0/webhook-endpoints/{id}/verify', { params: { path: { id } } }));
    if (opts.json) return printJson(body);
    say(`${body.id} is active: ${printable(body.url)} answered the challenge.`);
  });

  client(endpoints, 'delete <id>', 'delete an endpoint (its subscriptions go with it)').action(async (id: string, opts: Options) => {
    await send(resolveTarget(opts.host), (api) => api.DELETE('/v0/webhook-endpoints/{id}', { params: { path: { id } } }));
    if (opts.json) return printJson({ deleted: id });
    say(`Deleted ${id}.`);
  });

  registerWebhookSubscriptionCommands(webhooks);
}
