import type { TSchema } from '@sinclair/typebox';
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import fastJsonStringify from 'fast-json-stringify';

/**
 * Fastify builds one fast-json-stringify serializer per route and status, and
 * building one is costly (the schema is checked and compiled to code). Most
 * are the same schema: every route's error answers are `{detail}`, and many
 * routes answer the same record. So serializers are built once per distinct
 * schema, keyed by what serialisation depends on (not descriptions), which
 * takes most of a node's start-up away.
 */
export function createSerializerCompiler(sharedSchemas: TSchema[]): FastifySerializerCompiler<unknown> {
  const external = Object.fromEntries(sharedSchemas.map((schema) => [schema.$id as string, schema]));
  // Kept per set of shared schemas, like the validators (validation.ts): every server of a process shares them.
  let built = serializers.get(sharedSchemas);
  if (!built) serializers.set(sharedSchemas, (built = new Map()));
  const cache = built;
  return ({ schema }) => {
    const key = JSON.stringify(schema, (name, value: unknown) => (ANNOTATIONS.has(name) ? undefined : value));
    let serialize = cache.get(key);
    if (!serialize) {
      const own = schema as { $id?: string };
      const others = own.$id ? Object.fromEntries(Object.entries(external).filter(([id]) => id !== own.$id)) : external;
      serialize = fastJsonStringify(schema as Parameters<typeof fastJsonStringify>[0], { schema: others as never });
      cache.set(key, serialize);
    }
    return serialize;
  };
}

const ANNOTATIONS = new Set(['description', 'title', 'examples']);
const serializers = new WeakMap<TSchema[], Map<string, (data: unknown) => string>>();
