import { pattern } from '../shared/schemas.js';

/**
 * Text Atrium stores verbatim must be storable verbatim on both backends: a NUL
 * cannot be stored in PostgreSQL text at all, and a lone surrogate has no UTF-8
 * form (protocol: Records and fields). Every JSON request
 * body is checked once at the edge, so no capability can forget it and no
 * backend ever sees such a string.
 */
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /[\u0000\p{Surrogate}]/u;

/** The path of the first string (value or key) that cannot be stored, e.g. `body.charter`. */
export function findUnstorableText(value: unknown, path = 'body'): string | undefined {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? path : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorableText(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (UNSTORABLE.test(key)) return path;
      const found = findUnstorableText(item, `${path}.${key}`);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * The same rule as a JSON Schema pattern (ECMA-262 with the `u` flag, as the
 * contract's validators read it: in a `u` class, `\uD800-\uDFFF` matches only
 * lone surrogates), so the contract states what the edge enforces.
 */
export const STORABLE_TEXT_PATTERN = pattern('^[^\\u0000\\uD800-\\uDFFF]*$', 'UTF-8 text without NUL characters or unpaired surrogates');

type SchemaNode = Record<string, unknown>;

/**
 * A copy of a request schema in which every free-text string (one without a
 * pattern, format, enum or const of its own) carries STORABLE_TEXT_PATTERN.
 * Applied to every operation's parameters and body when it is declared, so the
 * REST contract and the MCP tool schemas say it alike.
 */
export function withStorableText<S>(schema: S): S {
  return mark(schema) as S;
}

function mark(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(mark);
  if (typeof node !== 'object' || node === null) return node;
  const out: SchemaNode = {};
  for (const [key, value] of Object.entries(node)) {
    // `properties` maps names to schemas; every other object-valued keyword holds schemas or plain values alike.
    out[key] = key === 'default' || key === 'examples' || key === 'const' || key === 'enum' ? value : mark(value);
  }
  const free = out.type === 'string' && !('pattern' in out) && !('format' in out) && !('enum' in out) && !('const' in out);
  return free ? { ...out, pattern: STORABLE_TEXT_PATTERN } : out;
}
