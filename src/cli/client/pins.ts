import type { Command } from 'commander';
import { client, oneLine, positiveInteger, type CommonOptions } from './command-kit.js';
import { resolveTarget, send, type Query, type Schemas } from './api.js';
import { usageError } from './errors.js';
import { printable, printJson, printTable, say, time } from './output.js';

type Options = CommonOptions;
type FrontPagePin = Schemas['FrontPagePin'];

/** `atrium pins …` and `atrium front-page` (docs/pins.md): pins, pin proposals and the front page over the public API. */
export function registerPins(program: Command): void {
  const pins = program.command('pins').description("show and change a Space's pins; propose, accept and decline pin proposals");

  client(pins, 'list <slug>', "list a Space's pins in order (no bodies; see front-page)").action(async (slug: string, opts: Options) => {
    const { body } = await send(resolveTarget(opts.host), (api) => api.GET('/v0/spaces/{slug}/front-page', { params: { path: { slug } } }));
    if (opts.json) return printJson({ space: body.space, pins: body.pins.map(({ body: _body, ...pin }) => pin) });
    printTable(
      ['#', 'KIND', 'ENTRY', 'NAME', 'SHOWS'],
      body.pins.map((p, i) => [i + 1, p.kind, printable(p.id), oneLine(p.name), shows(p)]),
      `Nothing is pinned in ${slug}.`,
    );
  });

  client(pins, 'set <slug> [entries...]', 'replace the pins, in order: Resource ids and repo:<path>.md files (Owner/Host)')
    .option('--clear', 'unpin everything')
    .option('--reason <text>', 'why (at most 500 characters; recorded in the event)')
    .action(async (slug: string, entries: string[], opts: Options & { clear?: boolean; reason?: string }) => {
      if (opts.clear && entries.length > 0) throw usageError('use either entries or --clear, not both');
      if (!opts.clear && entries.length === 0) throw usageError('name the pins in order, or pass --clear to unpin everything');
      const { body } = await send(resolveTarget(opts.host), (api) =>
        api.POST('/v0/spaces/{slug}/pins', { params: { path: { slug } }, body: { resource_ids: entries, ...(opts.reason !== undefined ? { reason: opts.reason } : {}) } }),
      );
      if (opts.json) return printJson(body);
      say(describePins(body));
    });

  client(pins, 'append <slug> <resource-id>', "append one Resource (the Space's maintainer, or an Owner/Host)")
    .option('--reason <text>', 'why (at most 500 characters; recorded in the event)')
    .action(async (slug: string, resourceId: string, opts: Options & { reason?: string }) => {
      const { body } = await send(resolveTarget(opts.host), (api) =>
        api.POST('/v0/spaces/{slug}/pins/append', { params: { path: { slug } }, body: { resource_id: resourceId, ...(opts.reason !== undefined ? { reason: opts.reason } : {}) } }),
      );
      if (opts.json) return printJson(body);
      say(describePins(body));
    });

  client(pins, 'propose <slug> <resource-id>', 'propose pinning a Resource; an Owner/Host accepts or declines')
    .requiredOption('--rationale <text>', 'why it belongs on the front page (1-2000 characters)')
    .action(async (slug: string, resourceId: string, opts: Options & { rationale: string }) => {
      const { body } = await send(resolveTarget(opts.host), (api) =>
        api.POST('/v0/spaces/{slug}/pin-proposals', { params: { path: { slug } }, body: { resource_id: resourceId, rationale: opts.rationale } }),
      );
      if (opts.json) return printJson(body);
      say(`Proposed pinning ${body.resource_id} in ${body.space}: proposal ${body.id} is pending.`);
    });

  client(pins, 'proposals <slug>', "list a Space's pin proposals, newest first")
    .option('--status <status>', 'pending, accepted or declined')
    .option('--before <id>', 'only proposals with a smaller id (the next page)', positiveInteger)
    .option('--limit <n>', 'at most this many (1-500, default 100)', positiveInteger)
    .action(async (slug: string, opts: Options & { status?: string; before?: number; limit?: number }) => {
      const query = { status: opts.status, before: opts.before, limit: opts.limit } as Query<'list_pin_proposals'>;
      const { body } = await send(resolveTarget(opts.host), (api) => api.GET('/v0/spaces/{slug}/pin-proposals', { params: { path: { slug }, query } }));
      if (opts.json) return printJson(body);
      printTable(
        ['ID', 'RESOURCE', 'STATUS', 'BY', 'DECIDED BY', 'PROPOSED', 'RATIONALE'],
        body.pin_proposals.map((p) => [
          p.id,
          p.resource_id,
          p.status,
          p.proposed_by,
          p.status === 'pending' ? null : (p.decided_by ?? '(steward key)'),
          time(p.created_ts),
          oneLine(p.status === 'declined' ? `${p.rationale} (declined: ${p.decline_reason ?? ''})` : p.rationale),
        ]),
        `No pin proposals in ${slug}.`,
      );
    });

  client(pins, 'accept <slug> <id>', 'accept a pin proposal: the Resource is appended to the pins (Owner/Host)').action(
    async (slug: string, id: string, opts: Options) => {
      const { body } = await send(resolveTarget(opts.host), (api) =>
        api.POST('/v0/spaces/{slug}/pin-proposals/{id}/accept', { params: { path: { slug, id: proposalId(id) } } }),
      );
      if (opts.json) return printJson(body);
      say(`Accepted pin proposal ${body.id}: ${body.resource_id} is pinned in ${body.space}.`);
    },
  );

  client(pins, 'decline <slug> <id>', 'decline a pin proposal (Owner/Host)')
    .requiredOption('--reason <text>', 'why not (1-1000 characters; recorded in the event)')
    .action(async (slug: string, id: string, opts: Options & { reason: string }) => {
      const { body } = await send(resolveTarget(opts.host), (api) =>
        api.POST('/v0/spaces/{slug}/pin-proposals/{id}/decline', { params: { path: { slug, id: proposalId(id) } }, body: { reason: opts.reason } }),
      );
      if (opts.json) return printJson(body);
      say(`Declined pin proposal ${body.id} (${body.resource_id}).`);
    });

  client(program, 'front-page <slug>', "print a Space's front page: its pinned Markdown, in order").action(async (slug: string, opts: Options) => {
    const { body } = await send(resolveTarget(opts.host), (api) => api.GET('/v0/spaces/{slug}/front-page', { params: { path: { slug } } }));
    if (opts.json) return printJson(body);
    if (body.pins.length === 0) return say(`Nothing is pinned in ${slug}.`);
    const parts = body.pins.map((p, i) => {
      const heading = `[${i + 1}] ${oneLine(p.name)}  (${p.kind === 'resource' ? `Resource ${p.id}` : 'repository file'}, ${shows(p)})`;
      return p.body === null ? heading : `${heading}\n\n${printable(p.body).replace(/\n+$/, '')}`;
    });
    say(parts.join('\n\n'));
  });
}


function shows(p: FrontPagePin): string {
  if (p.missing) return p.kind === 'repository' ? 'missing: not a text file on main' : 'missing';
  return p.kind === 'resource' ? `version ${p.version ?? '?'}` : `main@${(p.commit ?? '').slice(0, 12)}`;
}

function describePins(space: Pick<Schemas['Space'], 'slug' | 'pinned_resources'>): string {
  const list = space.pinned_resources;
  return list.length === 0 ? `Nothing is pinned in ${space.slug}.` : `Pins of ${space.slug}: ${list.map((e, i) => `${i + 1}. ${printable(e)}`).join('  ')}`;
}

/** A proposal id as typed; the host refuses one that is not a number, so it is passed on as given. */
function proposalId(id: string): number {
  return (/^\d+$/.test(id) ? Number(id) : id) as number;
}
