import { Type } from '@sinclair/typebox';

/** The only error body (protocol: Errors): `{detail}` and nothing else. */
export const ErrorBody = Type.Object(
  { detail: Type.String({ description: 'What went wrong, written for the caller.' }) },
  { $id: 'Error', additionalProperties: false },
);

/** ISO 8601 date-time, UTC, ending in Z. */
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 date-time, UTC, ending in Z' });

const PATTERN_MEANINGS = new Map<string, string>();

/**
 * A schema pattern together with the words a refusal uses for it: "must be
 * lowercase letters and digits…" reads better than the regular expression.
 */
export function pattern(regex: string, meaning: string): string {
  PATTERN_MEANINGS.set(regex, meaning);
  return regex;
}

/** The words registered for a pattern, if any. */
export function patternMeaning(regex: string): string | undefined {
  return PATTERN_MEANINGS.get(regex);
}

/** Slug or handle: lowercase letters, digits and single hyphens. */
export const SLUG_PATTERN = pattern('^[a-z0-9]+(?:-[a-z0-9]+)*$', 'lowercase letters and digits, with single hyphens between them');

/** A string enum rendered as `{type: string, enum: [...]}` (clearer in the contract than anyOf/const). */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** The `limit` of a listing: how many records one page holds. Above `max` is a 422, not a silent cap. */
export function PageLimit(defaultLimit: number, max: number) {
  return Type.Integer({
    minimum: 1,
    maximum: max,
    default: defaultLimit,
    description: `How many records one page holds: ${defaultLimit} unless given, at most ${max} (422 above).`,
  });
}

export const Handle = Type.String({ minLength: 3, maxLength: 32, pattern: SLUG_PATTERN, description: 'Member handle' });
