import AjvModule, { type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';
import type { TSchema } from '@sinclair/typebox';

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
  const make = (coerceTypes: boolean) => {
    const ajv = new Ajv({ coerceTypes, removeAdditional: false, useDefaults: true, allErrors: false, strict: false });
    addFormats(ajv);
    for (const schema of sharedSchemas) ajv.addSchema(schema);
    return ajv;
  };
  const strict = make(false);
  const coercing = make(true);
  return ({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema as object);
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
    case 'enum':
      return `${where} must be one of: ${(err.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
    default:
      return `${where} ${err.message ?? 'is invalid'}`;
  }
}
