import AjvModule, { type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { isMailbox } from '../shared/mailbox.js';
import { patternMeaning } from '../shared/schemas.js';

// ajv and ajv-formats are CommonJS with a default export; under NodeNext the
// callable lives on `.default`.
const Ajv = AjvModule.default;
const addFormats = addFormatsModule.default;

/**
 * Two validators: bodies are validated strictly (no type coercion, unknown
 * fields rejected by the schemas' additionalProperties: false, nothing silently
 * removed), while path and query values, which arrive as strings, are coerced
 * to the declared types.
 */
export function createValidatorCompiler(sharedSchemas: TSchema[]): FastifySchemaCompiler<FastifySchema> {
  const strict = createAjv(sharedSchemas, { coerceTypes: false });
  const coercing = createAjv(sharedSchemas, { coerceTypes: true });
  return ({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema as object);
}

/**
 * One Ajv set up as the edge uses it: defaults filled, nothing removed, the
 * shared schemas resolvable. Instances are kept per set of shared schemas and
 * mode: Ajv caches what it compiles by schema object, and operation schemas
 * are module constants, so every server built in a process (tests start many)
 * and the MCP endpoint reuse the same compiled validators. Validators hold no
 * state between calls but `errors`, read at once after each call.
 */
export function createAjv(sharedSchemas: TSchema[], opts: { coerceTypes: boolean }): InstanceType<typeof Ajv> {
  let byMode = instances.get(sharedSchemas);
  if (!byMode) instances.set(sharedSchemas, (byMode = new Map()));
  let ajv = byMode.get(opts.coerceTypes);
  if (!ajv) byMode.set(opts.coerceTypes, (ajv = buildAjv(sharedSchemas, opts)));
  return ajv;
}

const instances = new WeakMap<TSchema[], Map<boolean, InstanceType<typeof Ajv>>>();

function buildAjv(sharedSchemas: TSchema[], opts: { coerceTypes: boolean }): InstanceType<typeof Ajv> {
  const ajv = new Ajv({ coerceTypes: opts.coerceTypes, removeAdditional: false, useDefaults: true, allErrors: false, strict: false });
  addFormats(ajv);
  // Addresses are `idn-email` (RFC 6531): what mail can be sent to, ASCII or not (src/shared/mailbox.ts).
  ajv.addFormat('idn-email', isMailbox);
  for (const schema of sharedSchemas) ajv.addSchema(schema);
  return ajv;
}

/** A one-line, caller-facing description of the first validation failure. */
export function describeValidationError(errors: ErrorObject[] | undefined | null, part: string | undefined): string {
  const err = errors?.[0];
  if (!err) return 'request validation failed';
  const where = [part ?? 'request', ...err.instancePath.split('/').filter(Boolean)].join('.');
  switch (err.keyword) {
    case 'additionalProperties':
      return `${where}: unknown field "${(err.params as { additionalProperty: string }).additionalProperty}"`;
    case 'required':
      return `${where}: missing required field "${(err.params as { missingProperty: string }).missingProperty}"`;
    case 'pattern': {
      const meaning = patternMeaning((err.params as { pattern: string }).pattern);
      return meaning ? `${where} must be ${meaning}` : `${where} ${err.message ?? 'is invalid'}`;
    }
    case 'enum':
      return `${where} must be one of: ${(err.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
    default:
      return `${where} ${err.message ?? 'is invalid'}`;
  }
}
