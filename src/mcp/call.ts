import type { TSchema } from '@sinclair/typebox';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../app-context.js';
import { actorFor } from '../http/authenticate.js';
import type { MemberActor } from '../identity/actor.js';
import type { ResponseControl } from '../operations/operation.js';
import type { WaitAllowance } from '../operations/waits.js';
import { AtriumError } from '../shared/errors.js';
import type { ErrorCode } from '../shared/error-catalogue.js';
import { envelope } from './envelope.js';
import { narrowToGrantSpaces, withinGrant } from '../oauth/narrowing.js';
import type { BoundTool } from './tools.js';

/** `_meta` keys of a tool result: the status REST would have answered, and its detail on errors. */
export const STATUS_META = 'atrium/status';
export const DETAIL_META = 'atrium/detail';

export interface ToolCaller {
  /** The member the request's bearer credential resolved to. */
  member: MemberActor;
  clientAddress: string;
  /** What a tool call may hold open while it waits (a feed read with `wait`): the same share as REST's. */
  waits: WaitAllowance;
  log: FastifyBaseLogger;
  /** The JSON REST would send for a value under a response schema: only the declared fields. */
  serialize(schema: TSchema, value: unknown): unknown;
}

/**
 * Calls one operation as a tool, through the same steps as a REST request:
 * the declaration's credential rules, validation, the handler (which opens
 * the unit of work and emits the events), serialisation through the response
 * schema; then the untrusted-content envelope. A refusal is a tool error with
 * the code, status and detail REST would answer.
 */
export async function callTool(bound: BoundTool, args: Record<string, unknown>, caller: ToolCaller, ctx: AppContext): Promise<CallToolResult> {
  const { op } = bound;
  try {
    bound.checkUrlText(args);
    // Who may call is settled before the arguments are looked at, as on REST.
    const actor = narrowToGrantSpaces(op, actorFor(op, caller.member, ctx, 'mcp'), args);
    const input = bound.parse(args);
    let status: number = op.success.status;
    const response: ResponseControl = {
      // No declaration with a tool sets cookies or headers (docs/mcp.md); a body is all MCP carries.
      setSessionCookie() {},
      clearSessionCookie() {},
      setHeader() {},
      sendJson() {},
      sendTagged() {},
      setStatus(s) {
        status = s;
      },
    };
    const result = await withinGrant(actor, () =>
      op.handler({
        params: input.params as never,
        query: input.query as never,
        body: input.body as never,
        actor,
        ctx,
        response,
        clientAddress: caller.clientAddress,
        waits: caller.waits,
      }),
    );
    caller.log.info({ tool: op.name, member: caller.member.member.handle, status }, 'mcp tool call');
    const meta = { [STATUS_META]: status };
    const schema = op.success.schema;
    if (!schema) return { content: [{ type: 'text', text: `Done (${status}).` }], _meta: meta };
    const json = caller.serialize(schema, result);
    // Credential paths name the Space `space`, as the protocol's credential tools do.
    const slug = input.params.slug ?? input.params.space;
    const wrapped = envelope(json, schema, bound.sharedSchemas, { operation: op.name, space: typeof slug === 'string' ? slug : null });
    return { content: [{ type: 'text', text: wrapped.text }], structuredContent: wrapped.structuredContent, _meta: meta };
  } catch (err) {
    if (err instanceof AtriumError) {
      caller.log.info({ tool: op.name, member: caller.member.member.handle, status: err.status }, 'mcp tool call refused');
      return toolError(err.code, err.status, err.detail);
    }
    caller.log.error({ err, tool: op.name }, 'unhandled error in an MCP tool call');
    return toolError('internal_error', 500, 'internal server error');
  }
}

/**
 * A refusal, as the model sees it (`<status> <detail>`) and as a program reads
 * it: `structuredContent` is `{code, detail}` (every tool's outputSchema admits
 * it beside the success shape, since clients check what they get against it),
 * and `_meta` the status and detail. Programs branch on the code.
 */
export function toolError(code: ErrorCode, status: number, detail: string): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `${status} ${detail}` }],
    structuredContent: { code, detail },
    _meta: { [STATUS_META]: status, [DETAIL_META]: detail },
  };
}
