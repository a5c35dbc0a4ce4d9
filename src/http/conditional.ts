import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Sends the answer of a `conditional` operation: the bytes already made (UTF-8
 * JSON, encoded once where it was made, so a kept answer is never encoded again), with
 * their entity tag; a client whose `If-None-Match` names that tag gets 304
 * and no body (RFC 9110 §13.1.2, weak comparison). Pages differ by who reads
 * them, so caches may keep them only privately and must ask again each time.
 */
export function sendTagged(request: FastifyRequest, reply: FastifyReply, body: Buffer, etag: string): FastifyReply {
  reply.header('etag', etag);
  reply.header('cache-control', 'private, no-cache');
  reply.header('vary', 'authorization, cookie');
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined && matchesAny(ifNoneMatch, etag)) return reply.code(304).send();
  return reply.type('application/json; charset=utf-8').send(body);
}

/** Bytes a handler already made, sent as they are. */
export const passThrough = (payload: unknown): string => payload as string;

function matchesAny(ifNoneMatch: string, etag: string): boolean {
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag));
}
