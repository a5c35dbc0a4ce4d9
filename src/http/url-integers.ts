import type { TSchema } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { AnyOperation } from '../operations/operation.js';
import { invalid } from '../shared/errors.js';

const DECIMAL_INTEGER = /^-?[0-9]+$/;

/**
 * Path and query values arrive as text and are coerced to the declared types,
 * and Ajv's coercion reads a number the way JavaScript does: `0x10` is 16,
 * `1e3` is 1000 and a blank is 0. An integer in a URL is written in decimal
 * digits (an optional minus sign, no spaces); anything else is refused before
 * coercion can guess, with the same `part.field` words as a validation error.
 */
export function decimalIntegerCheck(op: AnyOperation): ((request: FastifyRequest) => void) | undefined {
  const fields = [...integerFields('params', op.params), ...integerFields('querystring', op.query)];
  if (fields.length === 0) return undefined;
  return (request) => {
    for (const { part, name } of fields) {
      const source = (part === 'params' ? request.params : request.query) as Record<string, unknown> | undefined;
      const value = source?.[name];
      if (value === undefined) continue;
      const items: unknown[] = Array.isArray(value) ? value : [value];
      if (!items.every((item) => typeof item === 'string' && DECIMAL_INTEGER.test(item))) {
        throw invalid('validation_failed', `${part}.${name} must be an integer written in decimal digits`);
      }
    }
  };
}

function integerFields(part: 'params' | 'querystring', schema: TSchema | undefined): Array<{ part: typeof part; name: string }> {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties ?? {};
  return Object.entries(properties)
    .filter(([, property]) => property.type === 'integer')
    .map(([name]) => ({ part, name }));
}
