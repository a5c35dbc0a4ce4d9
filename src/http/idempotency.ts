import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { Actor } from '../identity/actor.js';
import type { AnyOperation } from '../operations/operation.js';
import { conflict, invalid } from '../shared/errors.js';
import type { IdempotencyKeys } from '../shared/idempotency-keys.js';
import { pattern } from '../shared/schemas.js';

/** 8 to 128 visible ASCII characters: room for a UUID or a longer random token, nothing a header could mangle. */
const IDEMPOTENCY_KEY_PATTERN = pattern('^[\\x21-\\x7E]{8,128}$', '8 to 128 visible ASCII characters (0x21 to 0x7E)');

/**
 * The route's header schema: Fastify validates the header with it (422 naming
 * the header), and the contract declares it as an optional parameter. Lower
 * case, as Node hands headers over: with our own validator compiler Fastify
 * does not fold the schema's names, and `if-none-match` is spelled alike.
 */
export const IDEMPOTENCY_KEY_HEADERS = {
  type: 'object',
  properties: {
    'idempotency-key': {
      type: 'string',
      pattern: IDEMPOTENCY_KEY_PATTERN,
      description:
        'Makes a retry safe: a fresh random value (a UUID will do) per intended change. Within 24 hours, the same key ' +
        'with an equal JSON body (compared in canonical form) gets the first success answer again, same status and body, ' +
        'without running twice. The same key with another body is 422; while the first request with it is still running, 409. ' +
        'Only success answers are kept: after an error the key may be used again. Keys are per caller, method and path.',
    },
  },
};

/** The owner of the steward key's records: parentheses cannot appear in a handle, so it cannot be a member's. */
export const STEWARD_OWNER = '(steward)';

/**
 * An operation declared with `idempotencyKey` must be a write by a known
 * caller: keys are kept per caller, so an anonymous caller's key would be
 * shared with every other anonymous caller, answers included.
 */
function checkDeclaration(op: AnyOperation): void {
  if (op.method === 'GET' || op.conditional) throw new Error(`${op.name}: idempotencyKey is for writes, not reads`);
  if (op.auth.anonymous || op.auth.schemes.length === 0) throw new Error(`${op.name}: idempotencyKey needs an authenticated caller`);
}

/** A success answer exactly as sent: the bytes a replay sends again. */
export interface KeptAnswer {
  status: number;
  /** '' for 204. */
  body: string;
}

/**
 * The route handler of an operation declared with `idempotencyKey`. Without
 * the header the request takes the ordinary handler; with it, the key is
 * claimed before the operation runs, and a success answer is recorded before
 * it is sent, so a retry that arrives after the answer always finds it.
 */
export function withIdempotencyKey(
  keys: IdempotencyKeys,
  op: AnyOperation,
  actorOf: (request: FastifyRequest) => Actor,
  ordinary: RouteHandlerMethod,
  run: (request: FastifyRequest, reply: FastifyReply) => Promise<KeptAnswer>,
): RouteHandlerMethod {
  checkDeclaration(op);
  return async function (request, reply) {
    const key = request.headers['idempotency-key'];
    if (key === undefined) return ordinary.call(this, request, reply);
    const keyed = { owner: ownerOf(actorOf(request)), method: op.method, path: request.url.split('?')[0]!, key: key as string };
    const claim = await keys.claim(keyed, requestHash(request.body));
    if (claim.outcome === 'running') throw conflict('idempotency_key_running', 'a request with this Idempotency-Key is still running; retry once it has answered');
    if (claim.outcome === 'other_body') throw invalid('idempotency_key_reused', 'this Idempotency-Key was already used with a different request body');
    if (claim.outcome === 'replay') return send(reply, { status: claim.status, body: claim.response });
    let answer: KeptAnswer;
    try {
      answer = await run(request, reply);
    } catch (err) {
      await keys.release(claim.reservation).catch((releaseErr: unknown) => {
        // The key stays reserved (409) until it expires; the operation's own error still goes out.
        request.log.error({ err: releaseErr }, 'could not release an idempotency key');
      });
      throw err;
    }
    // Not released if this fails: the operation has taken effect, and running it
    // again under the same key is exactly what the key is there to prevent.
    await keys.complete(claim.reservation, answer.status, answer.body);
    return send(reply, answer);
  };
}

function ownerOf(actor: Actor): string {
  if (actor.kind === 'member') return actor.member.handle;
  if (actor.kind === 'steward') return STEWARD_OWNER;
  throw new Error('an Idempotency-Key needs an authenticated caller');
}

/**
 * Bodies are compared in canonical JSON (RFC 8785: sorted keys, one spelling
 * per number and string), so a client that re-serialises its retry with
 * another key order or spacing is still sending the same request.
 */
export function requestHash(body: unknown): string {
  return createHash('sha256')
    .update(canonicalize(body ?? null) ?? 'null')
    .digest('hex');
}

const passThrough = (payload: unknown): string => payload as string;

function send(reply: FastifyReply, answer: KeptAnswer): FastifyReply {
  reply.code(answer.status);
  if (answer.status === 204) return reply.send();
  return reply.type('application/json; charset=utf-8').serializer(passThrough).send(answer.body);
}
