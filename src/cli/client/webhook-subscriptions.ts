import { InvalidArgumentError, type Command } from 'commander';
import { MAX_DEBOUNCE_MS } from '../../webhooks/debounce.js';
import { client, oneLine } from './command-kit.js';
import { resolveTarget, send, type Api, type Body, type Outcome, type Schemas } from './api.js';
import { ApiError, ClientError, usageError } from './errors.js';
import { printable, printJson, printTable, say, time } from './output.js';

/** As the contract declares them (src/client/openapi.ts, generated). */
type Subscription = Schemas['WebhookSubscription'];
type Delivery = Schemas['WebhookDelivery'];
type Filter = Schemas['WebhookFilter'];
type TypeMatcher = NonNullable<Filter['any'][number]['event_types']>[number];

interface Options {
  host?: string;
  json?: boolean;
}

interface ScopeOptions extends Options {
  space?: string;
  inbox?: boolean;
}

interface FilterOptions {
  /** The raw JSON; `false` from `--no-filter`. */
  filter?: string | false;
  channel?: string[];
  type?: string[];
  typePrefix?: string[];
}

interface AddOptions extends ScopeOptions, FilterOptions {
  endpoint: string;
  debounceMs?: number;
  activate?: boolean;
}

interface SetOptions extends ScopeOptions, FilterOptions {
  debounceMs?: number;
}

/**
 * Space and inbox subscriptions live in two collections with their own paths,
 * so every command that names a subscription also names its collection.
 */
type Collection = { space: string } | { inbox: true };

/** The same five calls on either collection. */
interface SubscriptionCalls {
  create(api: Api, body: Body<'create_space_webhook_subscription'>): Promise<Outcome<Subscription>>;
  list(api: Api): Promise<Outcome<{ subscriptions: Subscription[] }>>;
  update(api: Api, id: string, body: Body<'update_space_webhook_subscription'>): Promise<Outcome<Subscription>>;
  delete(api: Api, id: string): Promise<Outcome<unknown>>;
  activate(api: Api, id: string): Promise<Outcome<Subscription>>;
}

function calls(collection: Collection): SubscriptionCalls {
  if ('space' in collection) {
    const slug = collection.space;
    return {
      create: (api, body) => api.POST('/v0/spaces/{slug}/webhook-subscriptions', { params: { path: { slug } }, body }),
      list: (api) => api.GET('/v0/spaces/{slug}/webhook-subscriptions', { params: { path: { slug } } }),
      update: (api, id, body) => api.PATCH('/v0/spaces/{slug}/webhook-subscriptions/{id}', { params: { path: { slug, id } }, body }),
      delete: (api, id) => api.DELETE('/v0/spaces/{slug}/webhook-subscriptions/{id}', { params: { path: { slug, id } } }),
      activate: (api, id) => api.POST('/v0/spaces/{slug}/webhook-subscriptions/{id}/activate', { params: { path: { slug, id } } }),
    };
  }
  // The host refuses a filter on an inbox subscription; the CLI passes on what it was given.
  type InboxCreate = Body<'create_inbox_subscription'>;
  type InboxUpdate = Body<'update_inbox_subscription'>;
  return {
    create: (api, body) => api.POST('/v0/me/inbox-subscriptions', { body: body as InboxCreate }),
    list: (api) => api.GET('/v0/me/inbox-subscriptions'),
    update: (api, id, body) => api.PATCH('/v0/me/inbox-subscriptions/{id}', { params: { path: { id } }, body: body as InboxUpdate }),
    delete: (api, id) => api.DELETE('/v0/me/inbox-subscriptions/{id}', { params: { path: { id } } }),
    activate: (api, id) => api.POST('/v0/me/inbox-subscriptions/{id}/activate', { params: { path: { id } } }),
  };
}

const SCOPE_HELP = { space: 'a subscription to this Space (by slug)', inbox: 'a subscription to your inbox (mentions and direct messages)' };

/**
 * `atrium webhooks subscriptions …`, `atrium webhooks deliveries` and
 * `atrium webhooks replay` (docs/webhooks.md, "Command line") over the public API.
 */
export function registerWebhookSubscriptionCommands(webhooks: Command): void {
  const subscriptions = webhooks
    .command('subscriptions')
    .description('subscribe your endpoints to a Space or your inbox; activate, pause, resume, change and delete subscriptions');

  const add = client(subscriptions, 'add', 'create a subscription (inactive until activated; --activate does it at once)').requiredOption(
    '--endpoint <id>',
    'the endpoint (whep_…) that wakes go to',
  );
  withFilterOptions(withScope(add))
    .option('--debounce-ms <n>', `how long a wake waits to gather more events, 0-${MAX_DEBOUNCE_MS} (default 1000)`, debounce)
    .option('--activate', 'activate it right after creating it (the endpoint must be verified)')
    .action(async (opts: AddOptions) => {
      const collection = collectionOf(opts);
      const filter = filterFrom(opts, collection);
      const target = resolveTarget(opts.host);
      const body = { endpoint_id: opts.endpoint, ...(opts.debounceMs !== undefined ? { debounce_ms: opts.debounceMs } : {}), ...(filter !== undefined ? { filter } : {}) };
      let { body: subscription } = await send(target, (api) => calls(collection).create(api, body));
      if (opts.activate) {
        try {
          const id = subscription.id;
          ({ body: subscription } = await send(target, (api) => calls(collection).activate(api, id)));
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          // The subscription exists either way; say so, or a retry would create a second one.
          if (opts.json) printJson(subscription);
          throw new ClientError(
            `created ${subscription.id}, but it could not be activated: ${err.message}. It stays inactive; once that is fixed, run: ${command('subscriptions activate', subscription.id, collection)}`,
            err.exitStatus,
          );
        }
      }
      if (opts.json) return printJson(subscription);
      say(`Created ${subscription.id} (${subscription.status}): ${describe(subscription)}.`);
      say(subscription.status === 'active' ? `${activeFrom(subscription)} Watch its deliveries with: ${command('deliveries', subscription.id)}` : `Activate it with: ${command('subscriptions activate', subscription.id, collection)}`);
    });

  withScope(client(subscriptions, 'list', 'list your subscriptions to a Space, or to your inbox')).action(async (opts: ScopeOptions) => {
    const collection = collectionOf(opts, 'there is no list across Spaces and the inbox: name one with --space <slug>, or --inbox');
    const { body } = await send(resolveTarget(opts.host), (api) => calls(collection).list(api));
    if (opts.json) return printJson(body);
    printTable(
      ['ID', 'SCOPE', 'SPACE', 'STATUS', 'VERSION', 'DEBOUNCE', 'ENDPOINT'],
      body.subscriptions.map((s) => [s.id, s.scope === 'inbox_events' ? 'inbox' : 'space', s.space, s.status, s.version, `${s.debounce_ms} ms`, s.endpoint_id]),
      `No webhook subscriptions ${'space' in collection ? `to ${collection.space}` : 'to your inbox'} yet. Create one with: atrium webhooks subscriptions add --endpoint <whep_id> ${scopeFlag(collection)}`,
    );
  });

  withScope(client(subscriptions, 'activate <id>', 'start sending wakes: events after the newest one now qualify (the endpoint must be verified)')).action(
    async (id: string, opts: ScopeOptions) => {
      const collection = collectionOf(opts);
      const { body } = await send(resolveTarget(opts.host), (api) => calls(collection).activate(api, id));
      if (opts.json) return printJson(body);
      say(`${body.id} is active. ${activeFrom(body)} Watch its deliveries with: ${command('deliveries', body.id)}`);
    },
  );

  withScope(client(subscriptions, 'pause <id>', 'stop sending wakes until resumed; what qualifies meanwhile is kept for one catch-up wake')).action(
    async (id: string, opts: ScopeOptions) => {
      const collection = collectionOf(opts);
      const body = await update(opts, collection, id, { status: 'paused' });
      if (opts.json) return printJson(body);
      say(`${body.id} is paused (version ${body.version}). Resume it with: ${command('subscriptions resume', body.id, collection)}`);
    },
  );

  withScope(client(subscriptions, 'resume <id>', 'send wakes again, starting with one catch-up wake for what qualified while paused')).action(
    async (id: string, opts: ScopeOptions) => {
      const collection = collectionOf(opts);
      const body = await update(opts, collection, id, { status: 'active' });
      if (opts.json) return printJson(body);
      say(`${body.id} is active (version ${body.version}); what qualified while it was paused comes in one catch-up wake.`);
    },
  );

  withFilterOptions(withScope(client(subscriptions, 'set <id>', 'change the debounce or the filter (Space subscriptions); a real change raises the version')))
    .option('--debounce-ms <n>', `how long a wake waits to gather more events, 0-${MAX_DEBOUNCE_MS}`, debounce)
    .option('--no-filter', 'remove the filter: every event you may read in the Space qualifies')
    .action(async (id: string, opts: SetOptions) => {
      const collection = collectionOf(opts);
      const filter = filterFrom(opts, collection);
      if (opts.debounceMs === undefined && filter === undefined) throw usageError('nothing to change: give --debounce-ms, or a filter (--filter, --no-filter, --channel, --type, --type-prefix)');
      const body = await update(opts, collection, id, { ...(opts.debounceMs !== undefined ? { debounce_ms: opts.debounceMs } : {}), ...(filter !== undefined ? { filter } : {}) });
      if (opts.json) return printJson(body);
      say(`${body.id} is ${body.status} (version ${body.version}): ${describe(body)}.`);
    });

  withScope(client(subscriptions, 'delete <id>', 'delete a subscription; anything it has not sent yet is cancelled')).action(async (id: string, opts: ScopeOptions) => {
    const collection = collectionOf(opts);
    await send(resolveTarget(opts.host), (api) => calls(collection).delete(api, id));
    if (opts.json) return printJson({ deleted: id });
    say(`Deleted ${id}; anything it had not sent is cancelled.`);
  });

  client(webhooks, 'deliveries <subscription_id>', "a subscription's deliveries, newest first, with what the receiver answered").action(
    async (id: string, opts: Options) => {
      const { body } = await send(resolveTarget(opts.host), (api) => api.GET('/v0/webhook-subscriptions/{id}/deliveries', { params: { path: { id } } }));
      if (opts.json) return printJson(body);
      printTable(
        ['ID', 'STATUS', 'RANGE', 'ATTEMPTS', 'CREATED', 'NEXT'],
        body.deliveries.map((d) => [d.id, d.status, `${d.event_range.after}→${d.event_range.through}`, attempts(d), time(d.created_ts), time(d.next_attempt_ts)]),
        `No deliveries for ${id} yet: one is made when an event qualifies while it is active.`,
      );
    },
  );

  client(webhooks, 'replay <delivery_id>', 'send a dead delivery again now, with the same id and body').action(async (id: string, opts: Options) => {
    const { body } = await send(resolveTarget(opts.host), (api) => api.POST('/v0/webhook-deliveries/{id}/replay', { params: { path: { id } } }));
    if (opts.json) return printJson(body);
    say(`Replaying ${body.id}: it is pending again and goes out now. Follow it with: ${command('deliveries', body.subscription_id)}`);
  });
}

function withScope(command: Command): Command {
  return command.option('--space <slug>', SCOPE_HELP.space).option('--inbox', SCOPE_HELP.inbox);
}

function withFilterOptions(command: Command): Command {
  return command
    .option('--filter <json>', 'the filter as JSON, e.g. \'{"any":[{"subject":{"channel":"general"}}]}\' (Space subscriptions)')
    .option('--channel <name>', 'only events in this channel (repeat for any of several)', collect)
    .option('--type <type>', 'only this event type, e.g. message_posted (repeat for any of several)', collect)
    .option('--type-prefix <prefix>', 'only event types starting with this, e.g. task_ (repeatable)', collect);
}

function collectionOf(opts: ScopeOptions, missing = 'name the subscription\'s collection: --space <slug>, or --inbox'): Collection {
  if (opts.space !== undefined && opts.inbox) throw usageError('use --space or --inbox, not both');
  if (opts.space !== undefined) return { space: opts.space };
  if (opts.inbox) return { inbox: true };
  throw usageError(missing);
}

function scopeFlag(collection: Collection): string {
  return 'space' in collection ? `--space ${collection.space}` : '--inbox';
}

function command(name: string, id: string, collection?: Collection): string {
  return `atrium webhooks ${name} ${id}${collection ? ` ${scopeFlag(collection)}` : ''}`;
}

async function update(opts: Options, collection: Collection, id: string, body: Body<'update_space_webhook_subscription'>): Promise<Subscription> {
  return (await send(resolveTarget(opts.host), (api) => calls(collection).update(api, id, body))).body;
}

/**
 * The filter to send: `undefined` when none was given, `null` to clear it.
 * `--channel`/`--type`/`--type-prefix` spell the common case without JSON:
 * the types apply to every channel named, so several channels make one clause each.
 */
function filterFrom(opts: FilterOptions, collection: Collection): Filter | null | undefined {
  const channels = opts.channel ?? [];
  const types: TypeMatcher[] = [...(opts.type ?? []).map((exact) => ({ exact })), ...(opts.typePrefix ?? []).map((prefix) => ({ prefix }))];
  const convenience = channels.length > 0 || types.length > 0;
  if (opts.filter === undefined && !convenience) return undefined;
  if ('inbox' in collection) throw usageError('inbox subscriptions take no filter: --filter, --no-filter, --channel, --type and --type-prefix are for Space subscriptions');
  if (opts.filter !== undefined && convenience) throw usageError('use either --filter or --channel/--type/--type-prefix, not both');
  if (opts.filter === false) return null;
  if (opts.filter === undefined) {
    const eventTypes = types.length > 0 ? { event_types: types } : {};
    return { any: channels.length > 0 ? channels.map((channel) => ({ ...eventTypes, subject: { channel } })) : [eventTypes] };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(opts.filter);
  } catch (err) {
    throw usageError(`--filter is not valid JSON: ${(err as Error).message}`);
  }
  if (parsed !== null && (typeof parsed !== 'object' || Array.isArray(parsed))) {
    throw usageError('--filter takes a JSON object such as {"any":[{"subject":{"channel":"general"}}]} (docs/webhooks.md)');
  }
  // The host checks the shape and answers 422 naming what is wrong.
  return parsed as Filter | null;
}

/** Where the subscription points and what wakes it, for one line of output. */
function describe(s: Subscription): string {
  const where = s.scope === 'inbox_events' ? 'your inbox' : `Space ${printable(s.space ?? '-')}, ${describeFilter(s.filter ?? null)}`;
  return `${where}, debounce ${s.debounce_ms} ms, to ${s.endpoint_id}`;
}

function describeFilter(filter: Filter | null): string {
  if (filter === null) return 'every event you may read';
  return filter.any
    .map((clause) => {
      const types = clause.event_types?.map((m) => ('exact' in m ? m.exact : `${m.prefix}*`)).join(' or ');
      const subject = clause.subject && ('channel' in clause.subject ? `in channel ${clause.subject.channel}` : `of task ${clause.subject.task}`);
      return types || subject ? oneLine([types, 'events', subject].filter(Boolean).join(' ')) : 'every event';
    })
    .join('; or ');
}

function activeFrom(s: Subscription): string {
  return `Events after cursor ${s.activation_cursor ?? 0} wake ${s.endpoint_id}.`;
}

/** How many attempts, and how the last one ended: the receiver's status, else why none came. */
function attempts(d: Delivery): string {
  const last = d.attempts.at(-1);
  if (!last) return '0';
  const outcome = last.response_status !== null ? String(last.response_status) : oneLine(last.error ?? 'no answer');
  return `${d.attempts.length} (${outcome})`;
}

function debounce(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > MAX_DEBOUNCE_MS) throw new InvalidArgumentError(`expected whole milliseconds, 0-${MAX_DEBOUNCE_MS}`);
  return Number(value);
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
