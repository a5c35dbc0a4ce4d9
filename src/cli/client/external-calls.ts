import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { client, positiveInteger } from './command-kit.js';
import { resolveTarget, send, type Answer, type Body } from './api.js';
import { usageError } from './errors.js';
import { printable, printJson, printRecord, printTable, say, time } from './output.js';

interface Options {
  host?: string;
  json?: boolean;
}

interface RequestOptions extends Options {
  space: string;
  connection: string;
  method: string;
  url: string;
  header: string[];
  body?: string;
  bodyFile?: string;
  purpose?: string;
  task?: number;
  runId?: string;
}

type ExternalRequest = Body<'call_external_service'>['request'];
type CallAnswer = Answer<'call_external_service'>;

const collect = (value: string, previous: string[]) => [...previous, value];

/**
 * `atrium connections list`, `atrium call` and `atrium approvals create`
 * (docs/gateway.md): external calls through the host's credential gateway.
 * The CLI sends the exact request; the host checks it, has the gateway call
 * the provider with the provider's credential, and hands back the answer.
 */
export function registerExternalCallCommands(program: Command): void {
  const connections = program.command('connections').description('the external connections a Space offers you');
  client(connections, 'list', 'list the connections you may call through in a Space')
    .requiredOption('--space <slug>', 'the Space')
    .action(async (opts: Options & { space: string }) => {
      const { body } = await send(resolveTarget(opts.host), (api) => api.GET('/v0/spaces/{space}/external-connections', { params: { path: { space: opts.space } } }));
      if (opts.json) return printJson(body);
      printTable(
        ['ID', 'APPROVAL NEEDED FOR', 'TASK REQUIRED', 'MAX TTL'],
        body.connections.map((c) => [c.id, c.approval_required_methods.join(', ') || '-', c.require_task ? 'yes' : 'no', `${c.max_ttl_seconds}s`]),
        `No connections in ${opts.space} that you may use.`,
      );
    });

  requestOptions(client(program, 'call', 'make one exact external request through the credential gateway and print the answer'))
    .option('--approval <id>', 'the approval an Owner/Host gave for exactly this request')
    .option('--ttl <seconds>', 'ticket lifetime (capped by the connection)', positiveInteger)
    .action(async (opts: RequestOptions & { approval?: string; ttl?: number }) => {
      // The purpose is the caller's own declaration in the audit ledger: the CLI never makes one up.
      if (opts.purpose === undefined) throw usageError('call needs --purpose: why this request, in one line (recorded in the gateway ledger)');
      const body = {
        connection_id: opts.connection,
        purpose: opts.purpose,
        ...(opts.runId !== undefined ? { run_id: opts.runId } : {}),
        ...(opts.task !== undefined ? { task_id: opts.task } : {}),
        ...(opts.approval !== undefined ? { approval_id: opts.approval } : {}),
        ...(opts.ttl !== undefined ? { ttl_seconds: opts.ttl } : {}),
        request: externalRequest(opts),
      };
      const { body: answer } = await send(resolveTarget(opts.host), (api) => api.POST('/v0/spaces/{space}/credential-calls', { params: { path: { space: opts.space } }, body }));
      if (opts.json) return printJson(answer);
      printAnswer(answer);
    });

  const approvals = program.command('approvals').description('approve one exact external request for a member (Owner/Host)');
  requestOptions(client(approvals, 'create', 'approve one exact request for one member; it can be used once'))
    .requiredOption('--member <handle>', 'the member who may make the request')
    .requiredOption('--reason <text>', 'why (3-1000 characters); stays on the host')
    .option('--expires-in <seconds>', 'how long the approval stays usable (1-86400, default 3600)', positiveInteger)
    .action(async (opts: RequestOptions & { member: string; reason: string; expiresIn?: number }) => {
      if (opts.purpose === undefined) throw usageError('approvals create needs --purpose: the member must declare the same purpose');
      if (opts.runId === undefined) throw usageError('approvals create needs --run-id: the member must call with the same run id');
      const body = {
        connection_id: opts.connection,
        member_handle: opts.member,
        run_id: opts.runId,
        purpose: opts.purpose,
        reason: opts.reason,
        ...(opts.task !== undefined ? { task_id: opts.task } : {}),
        ...(opts.expiresIn !== undefined ? { expires_in_seconds: opts.expiresIn } : {}),
        request: externalRequest(opts),
      };
      const { body: approval } = await send(resolveTarget(opts.host), (api) =>
        api.POST('/v0/spaces/{space}/credential-approvals', { params: { path: { space: opts.space } }, body }),
      );
      if (opts.json) return printJson(approval);
      printRecord([
        ['approval', approval.id],
        ['member', approval.member_handle],
        ['request', `${approval.method} ${printable(approval.url)}`],
        ['headers', approval.header_names],
        ['run id', approval.run_id],
        ['expires', time(approval.expires_ts)],
      ]);
      say(`${approval.member_handle} may now call once with --approval ${approval.id} and exactly this request, purpose and run id.`);
    });
}

function requestOptions(command: Command): Command {
  return command
    .requiredOption('--space <slug>', 'the Space')
    .requiredOption('--connection <id>', 'the connection (atrium connections list)')
    .requiredOption('--method <method>', 'GET, HEAD, POST, PUT, PATCH or DELETE')
    .requiredOption('--url <url>', 'the exact URL, query included')
    .option('--header <name:value>', 'a request header (repeatable)', collect, [])
    .option('--body <text>', 'the request body, as text')
    .option('--body-file <path>', 'the request body, the bytes of this file')
    .option('--purpose <text>', 'the declared purpose, one line (required; recorded in the gateway ledger)')
    .option('--task <id>', 'the task you have claimed, for connections that require one', positiveInteger)
    .option('--run-id <id>', 'names this attempt (1-128 of A-Z a-z 0-9 . _ : -); generated when absent');
}

function externalRequest(opts: RequestOptions): ExternalRequest {
  const headers: Record<string, string> = {};
  for (const line of opts.header) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw usageError(`--header must be name:value, got ${JSON.stringify(line)}`);
    const name = line.slice(0, colon).trim();
    if (Object.hasOwn(headers, name)) throw usageError(`--header ${name} is given twice`);
    headers[name] = line.slice(colon + 1).trim();
  }
  if (opts.body !== undefined && opts.bodyFile !== undefined) throw usageError('give --body or --body-file, not both');
  // A file is sent as its exact bytes; base64 keeps bytes that are not UTF-8 intact.
  const body =
    opts.bodyFile !== undefined
      ? { body: readFileSync(opts.bodyFile).toString('base64'), bodyEncoding: 'base64' as const }
      : opts.body !== undefined
        ? { body: opts.body }
        : {};
  // The host judges the method: the CLI passes on what it was given.
  const method = opts.method.toUpperCase() as ExternalRequest['method'];
  return { method, url: opts.url, ...(Object.keys(headers).length > 0 ? { headers } : {}), ...body };
}

/** The provider's answer is untrusted data: text is shown with control characters made harmless, anything else by size. */
function printAnswer(answer: CallAnswer): void {
  printRecord([
    ['status', answer.status],
    ['run id', answer.run_id],
    ['provider request id', answer.provider_request_id],
    ...Object.entries(answer.headers).map(([name, value]): [string, string] => [name, String(value)]),
  ]);
  const bytes = Buffer.from(answer.bodyBase64, 'base64');
  if (bytes.length === 0) return;
  let text: string | undefined;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    text = undefined;
  }
  say('');
  if (text === undefined || text.includes('\u0000')) say(`(${bytes.length} bytes that are not text; --json shows them in base64)`);
  else say(printable(text));
}
