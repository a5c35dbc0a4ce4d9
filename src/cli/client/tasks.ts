import type { Command } from 'commander';
import { client, idArgument, oneLine, positiveInteger, readText, type CommonOptions } from './command-kit.js';
import { resolveTarget, send, type Body, type Query, type Schemas } from './api.js';
import { usageError } from './errors.js';
import { printable, printJson, printRecord, printTable, say, time } from './output.js';
import { mentioned } from './messages.js';

type Options = CommonOptions;
type Task = Schemas['Task'];

const MOVES = {
  claim: ['claim an open task; you become its claimant', '/v0/spaces/{slug}/tasks/{id}/claim'],
  release: ['give up a claim (the claimant, or an Owner/Host)', '/v0/spaces/{slug}/tasks/{id}/release'],
  submit: ['submit the work on a task you claimed', '/v0/spaces/{slug}/tasks/{id}/submit'],
  complete: ["complete a submitted task; the Space's review policy and the task kind decide who may", '/v0/spaces/{slug}/tasks/{id}/complete'],
  reopen: ['reopen a completed or cancelled task (its creator, or an Owner/Host)', '/v0/spaces/{slug}/tasks/{id}/reopen'],
  cancel: ['cancel an open, claimed or submitted task (its creator, or an Owner/Host)', '/v0/spaces/{slug}/tasks/{id}/cancel'],
} as const;

/** `atrium tasks …` (docs/tasks.md): the task operations over the public API. */
export function registerTasks(program: Command): void {
  const tasks = program.command('tasks').description("list, create and move a Space's tasks, and discuss them");

  client(tasks, 'list <slug>', "list a Space's tasks, newest first")
    .option('--status <status>', 'open, claimed, submitted, completed or cancelled')
    .option('--kind <kind>', 'general, evidence, merge, production or pin_proposal')
    .option('--claimant <handle>', 'only tasks this member holds the claim on')
    .option('--before <id>', 'only tasks with a smaller id (the next page)', positiveInteger)
    .option('--limit <n>', 'at most this many (1-500, default 100)', positiveInteger)
    .action(async (slug: string, opts: Options & { status?: string; kind?: string; claimant?: string; before?: number; limit?: number }) => {
      const query = { status: opts.status, kind: opts.kind, claimant: opts.claimant, before: opts.before, limit: opts.limit } as Query<'list_tasks'>;
      const { body } = await send(resolveTarget(opts.host), (api) => api.GET('/v0/spaces/{slug}/tasks', { params: { path: { slug }, query } }));
      if (opts.json) return printJson(body);
      printTable(
        ['ID', 'KIND', 'STATUS', 'CLAIMANT', 'CREATED BY', 'TITLE'],
        body.tasks.map((t) => [t.id, t.kind, t.status, t.claimant, t.created_by, oneLine(t.title)]),
        `No tasks in ${slug}.`,
      );
    });

  client(tasks, 'create <slug>', 'create a task')
    .requiredOption('--kind <kind>', 'general, evidence, merge or production')
    .requiredOption('--title <text>', '1-200 characters')
    .option('--body <markdown>', 'the description, at most 20000 characters')
    .option('--body-file <path>', 'read the description from a file (- for stdin)')
    .action(async (slug: string, opts: Options & { kind: string; title: string; body?: string; bodyFile?: string }) => {
      if (opts.body !== undefined && opts.bodyFile !== undefined) throw usageError('use either --body or --body-file, not both');
      const text = opts.bodyFile !== undefined ? readText(opts.bodyFile) : opts.body;
      const task = { kind: opts.kind, title: opts.title, ...(text !== undefined ? { body: text } : {}) } as Body<'create_task'>;
      const { body } = await send(resolveTarget(opts.host), (api) => api.POST('/v0/spaces/{slug}/tasks', { params: { path: { slug } }, body: task }));
      if (opts.json) return printJson(body);
      say(`Created task ${body.id} (${body.kind}) in ${body.space}.`);
    });

  client(tasks, 'get <slug> <id>', 'show one task, with its completion provenance').action(async (slug: string, id: string, opts: Options) => {
    const { body } = await send(resolveTarget(opts.host), (api) => api.GET('/v0/spaces/{slug}/tasks/{id}', { params: { path: { slug, id: idArgument(id) } } }));
    if (opts.json) return printJson(body);
    printTask(body);
  });

  for (const [verb, [description, path]] of Object.entries(MOVES)) {
    client(tasks, `${verb} <slug> <id>`, description).action(async (slug: string, id: string, opts: Options) => {
      const { body } = await send(resolveTarget(opts.host), (api) => api.POST(path, { params: { path: { slug, id: idArgument(id) } } }));
      if (opts.json) return printJson(body);
      say(summary(body));
    });
  }

  client(tasks, 'discuss <slug> <id> <body>', "post a message to a task's discussion (Markdown; - reads stdin)").action(
    async (slug: string, id: string, text: string, opts: Options) => {
      const { body } = await send(resolveTarget(opts.host), (api) =>
        api.POST('/v0/spaces/{slug}/tasks/{id}/messages', { params: { path: { slug, id: idArgument(id) } }, body: { body: text === '-' ? readText('-') : text } }),
      );
      if (opts.json) return printJson(body);
      say(`Posted message ${body.id} to the discussion of task ${id} in ${slug}${mentioned(body)}.`);
    },
  );

  client(tasks, 'discussion <slug> <id>', "read a task's discussion, newest first")
    .option('--before <id>', 'only messages with a smaller id (the next page)', positiveInteger)
    .option('--limit <n>', 'at most this many (1-200, default 50)', positiveInteger)
    .action(async (slug: string, id: string, opts: Options & { before?: number; limit?: number }) => {
      const { body } = await send(resolveTarget(opts.host), (api) =>
        api.GET('/v0/spaces/{slug}/tasks/{id}/messages', { params: { path: { slug, id: idArgument(id) }, query: { before: opts.before, limit: opts.limit } } }),
      );
      if (opts.json) return printJson(body);
      printTable(
        ['ID', 'AUTHOR', 'POSTED', 'MESSAGE'],
        body.messages.map((m) => [m.id, m.author, time(m.created_ts), oneLine(m.body)]),
        `No messages about task ${id}.`,
      );
    });
}


function summary(t: Task): string {
  const c = t.completion;
  if (t.status === 'completed' && c) {
    return `Task ${t.id} is completed by ${c.completer}: work by ${c.worker}, assurance ${c.assurance} (required ${c.required_assurance}).`;
  }
  return `Task ${t.id} is now ${t.status}${t.claimant ? ` (claimant ${t.claimant})` : ''}.`;
}

function printTask(t: Task): void {
  const c = t.completion;
  const principal = (handle: string, p: string | null) => (p === handle ? handle : `${handle} (principal ${p ?? 'unknown'})`);
  printRecord([
    ['id', t.id],
    ['space', t.space],
    ['kind', t.kind],
    ['status', t.status],
    ['title', printable(t.title)],
    ['created by', t.created_by],
    ['claimant', t.claimant],
    ...(c
      ? ([
          ['worker', principal(c.worker, c.worker_principal)],
          ['completer', principal(c.completer, c.completer_principal)],
          ['assurance', `${c.assurance} (required ${c.required_assurance})`],
          ['completed', time(c.completed_ts)],
        ] as Array<[string, string]>)
      : []),
    ['created', time(t.created_ts)],
    ['updated', time(t.updated_ts)],
    ['body', printable(t.body)],
  ]);
}
