import { Type } from '@sinclair/typebox';

/** The only error body (protocol: Errors): `{detail}` and nothing else. */
export const ErrorBody = Type.Object(
  { detail: Type.String({ description: 'What went wrong, written for the caller.' }) },
  { $id: 'Error', additionalProperties: false },
);

/** ISO 8601 date-time, UTC, ending in Z. */
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 date-time, UTC, ending in Z' });

/** Slug or handle: lowercase letters, digits and single hyphens. */
export const SLUG_PATTERN = '^[a-z0-9]+(?:-[a-z0-9]+)*$';

/** A string enum rendered as `{type: string, enum: [...]}` (clearer in the contract than anyOf/const). */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

export const Handle = Type.String({ minLength: 3, maxLength: 32, pattern: SLUG_PATTERN, description: 'Member handle' });
