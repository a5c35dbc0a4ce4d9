/**
 * How deeply a JSON request body may nest. No Atrium input nests more than a
 * few levels; the limit is far above that and far below what would exhaust
 * the stack of any code that walks a parsed body recursively (about 3,400
 * levels did, before this limit).
 */
export const MAX_JSON_DEPTH = 64;

/** Whether `text` (JSON) nests arrays and objects deeper than `max`; one pass, no parse. */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > max) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return false;
}

/**
 * The charset a JSON content type names, lower-cased, if any. JSON exchanged
 * between systems is UTF-8 (RFC 8259 §8.1); a body declared as anything else
 * would be decoded as something its sender did not mean.
 */
export function declaredCharset(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*("?)([^";\s]*)\1/i.exec(contentType ?? '');
  return match?.[2]?.toLowerCase();
}
