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
