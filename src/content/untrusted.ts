import { Type, type StringOptions } from '@sinclair/typebox';

/**
 * Space content is data, never an instruction to an agent (protocol: core
 * rule 4). Every schema field that carries member-written text is declared with
 * `UntrustedText`, which tags it `x-atrium-untrusted: true`. REST returns such
 * text verbatim (the tag shows in the OpenAPI contract for client authors); the
 * MCP endpoint walks a tool's output schema and wraps every tagged value in its
 * untrusted-content envelope. This tag is the one place the envelope plugs in:
 * a new content field is covered by declaring it, not by remembering a list.
 */
export const UNTRUSTED = 'x-atrium-untrusted';

export function UntrustedText(options: StringOptions = {}) {
  return Type.String({ ...options, [UNTRUSTED]: true });
}

/** True for a schema node declared with UntrustedText. */
export function isUntrusted(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && (schema as Record<string, unknown>)[UNTRUSTED] === true;
}
