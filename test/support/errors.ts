import assert from 'node:assert/strict';
import { errorStatus, type ErrorCode } from '../../src/shared/error-catalogue.js';
import type { TestResponse } from './server.js';

/** What a call through the typed client (`server.as(token)`) answers: a refusal's body is its `error`. */
type TypedAnswer = { response: Response; error?: unknown };

/**
 * Asserts that an answer is the error `code` (docs/errors.md): its status,
 * `Atrium-Error`, and a `{detail}` body. Tests branch on codes as clients do,
 * never on the words of `detail` (nor on the words the CLI prints for a
 * refusal: `assertRefusal` answers its code; nor on an MCP tool error's:
 * `structuredContent.code`). Returns the detail, for the tests whose point is
 * the wording, which assert on it besides. These are they, by reason; a file
 * asserting on a detail or on stderr that is named nowhere here fails
 * wording-exceptions.test.ts.
 *
 * - The words tell a person what to do next, and that instruction is the
 *   behaviour under test: cli.test.ts (`atrium sign-in` for what a key may not
 *   do, `atrium login` again), tasks-provenance.test.ts (who could complete the
 *   task, and the command that changes the review policy), resources.test.ts
 *   (read a stale Resource again and reapply the change), repository.test.ts
 *   (who may read an unpinned file; the setting a host without a repository
 *   lacks), mcp-transport.test.ts (the header to send),
 *   webhooks-subscriptions-cli.test.ts (the command that activates a
 *   subscription once its endpoint is verified), admission.test.ts (who must
 *   invite a member to an invite-only Space).
 * - The words name the field or argument at fault: channels.test.ts,
 *   errors.test.ts, front-page.test.ts, http-input.test.ts (URL integers),
 *   identity.test.ts, idempotency-keys.test.ts (the header), mailbox.test.ts,
 *   messages.test.ts, pin-proposals.test.ts, pins.test.ts, repository.test.ts,
 *   resources.test.ts, roles.test.ts, spaces.test.ts, tasks.test.ts,
 *   webhook-subscriptions.test.ts, credentials-service.test.ts and
 *   gateway-tickets.test.ts (`purpose` and the character refused),
 *   display-names.test.ts (the code point), mcp-transport.test.ts (a tool's
 *   arguments, in the tool's words), mcp-resources.test.ts (a URI that is not
 *   Atrium's).
 * - The words name the limit or rule broken, where one code covers several:
 *   errors.test.ts and resources.test.ts (sizes), http-input.test.ts (nesting
 *   depth), rate-limits.test.ts (activation polls), mentions-fairness.test.ts
 *   (messages awaiting a mention check), credentials-gateway.test.ts (the
 *   member's calls in flight, or the connection's), webhook-subscriptions.test.ts
 *   (which quota), webhook-endpoints.test.ts (which challenge limit),
 *   mcp-transport.test.ts (JSON-RPC batches), repository.test.ts and
 *   gateway-tickets.test.ts (the path rules), search-query-language.test.ts
 *   (which operator, value or limit made a search query unsearchable).
 * - The words name the state, party or address at fault, which the code does
 *   not carry: tasks.test.ts (the task's state, and who holds it),
 *   tasks-provenance.test.ts and operators.test.ts (the rule that refused a
 *   completion, and the accountable principals), webhook-endpoints.test.ts,
 *   webhooks-cli.test.ts and gateway-calls.test.ts (why a URL or address is
 *   refused, why a challenge failed), webhook-verifier.test.ts (the endpoint a
 *   challenge is for).
 * - The words are shown to leak nothing (SQL, stack frames, internals,
 *   secrets): errors.test.ts, mcp-transport.test.ts, gateway-process.test.ts.
 * - The words are the same whichever way they travel: mcp.test.ts,
 *   mcp-transport.test.ts and mcp-resources.test.ts compare REST's and MCP's
 *   details whole; cli.test.ts finds the host's detail in the CLI's line;
 *   web-conversations.test.ts, web-spaces.test.ts, web-tasks.test.ts and
 *   web-webhooks.test.ts find it on the page a person reads.
 * - The credential gateway's `<code>: ` prefix, which its refusals keep when
 *   the service passes them on: credentials-service.test.ts,
 *   credentials-gateway.test.ts.
 * - There is no code to assert, as no host answered: the CLI's own refusals
 *   (usage, not logged in, nothing answering at a URL, unreadable input) in
 *   cli.test.ts, credentials-cli.test.ts, mcp-cli.test.ts,
 *   messages-cli.test.ts, pins-cli.test.ts, resources-cli.test.ts,
 *   tasks-cli.test.ts, webhooks-listen.test.ts and
 *   webhooks-subscriptions-cli.test.ts, and where the CLI takes its host from,
 *   in cli-host.test.ts; a second `atrium serve` on a database another one
 *   serves, which names the first, in first-day.test.ts; configuration a process will not start
 *   with, naming the setting, in serve.test.ts, gateway-process.test.ts,
 *   credentials-service.test.ts, webhook-signing-keys.test.ts and
 *   egress.test.ts (with the reasons an outgoing request failed, which become
 *   a challenge's detail); the record `atrium gateway verify-ledger` finds
 *   broken, in gateway-ledger.test.ts; what `atrium admin backup`, `restore`
 *   and `verify` refuse or find, in backup.test.ts, and what `atrium doctor`
 *   finds in a configuration, in doctor.test.ts; an operation declaration or a schema
 *   the server or the MCP envelope cannot work with, a mistake in the code
 *   rather than a request, in idempotency-keys.test.ts, mcp-envelope.test.ts
 *   and mcp-schema-set.test.ts.
 */
export function assertError(answer: Pick<TestResponse, 'status' | 'headers' | 'body'> | TypedAnswer, code: ErrorCode, label = ''): string {
  const res = 'response' in answer ? { status: answer.response.status, headers: answer.response.headers, body: answer.error } : answer;
  const where = `${label ? `${label}: ` : ''}${JSON.stringify(res.body)}`;
  assert.equal(res.headers.get('atrium-error'), code, where);
  assert.equal(res.status, errorStatus(code), where);
  const detail = (res.body as { detail?: unknown } | undefined)?.detail;
  assert.equal(typeof detail, 'string', where);
  return detail as string;
}
