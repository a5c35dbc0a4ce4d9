import { isUntrusted, UNTRUSTED } from '../content/untrusted.js';
import { envelopeObject, PROVENANCE_SCHEMA, replaceUntrusted, structuredRoot } from './schema-envelope.js';
import { isNode, mapSubschemas, resolveSchema, type Node, type SharedSchemas } from './schema-set.js';

/**
 * A tool's outputSchema (docs/mcp.md#output-schemas): the exact envelope of
 * the REST response schema (envelopeSchema), reduced to the shape of the
 * result. Clients paste tool schemas into model prompts, and the REST schemas
 * with every description, pattern and event variant made `tools/list` weigh
 * 442 KB. The reduction only ever widens a schema: whatever validates against
 * the exact envelope validates against the reduction, so structuredContent
 * (built from the REST schema, see envelope()) always fits.
 */

/**
 * The keywords an output schema keeps: those that say what shape a result
 * has. Everything else goes: annotations (`description`, `title`, `default`,
 * `examples`, OpenAPI's `discriminator`) because the tool's description
 * explains the result, and value constraints (`pattern`, `format`, lengths,
 * bounds, item counts, closed objects) because they bind what Atrium sends,
 * not what a client may send. Dropping a keyword widens a schema, except
 * inside `not` or `if`, which go whole. `oneOf` is read as `anyOf` (see
 * reduce). The untrusted tag stays until the envelope replaces its node.
 */
const SHAPE_KEYWORDS = new Set(['type', 'properties', 'patternProperties', 'additionalProperties', 'required', 'items', 'prefixItems', 'enum', 'const', 'anyOf', 'allOf', UNTRUSTED]);

/** Where the one envelope definition of a tool lives. */
export const UNTRUSTED_REF = '#/$defs/untrusted';

/**
 * The envelope as an output schema defines it, once per tool: `{untrusted:
 * {text, provenance}}`, every part required. Inlined at every member-written
 * field instead of referred to, it would add about 19 KB to `tools/list`.
 */
export const UNTRUSTED_DEFINITION = reduce(envelopeObject({ type: 'string' }, PROVENANCE_SCHEMA));

/** The outputSchema of a tool whose REST response schema is `responseSchema`: its result, or a refusal's `{code, detail}`. */
export function outputSchema(responseSchema: object, shared: SharedSchemas): Node {
  const resolved = resolveSchema(responseSchema, shared) as Node;
  const reduced = reduce(structuredRoot(resolved, resolved));
  const root = orToolError(singleTypes(replaceUntrusted(reduced, () => ({ $ref: UNTRUSTED_REF }))));
  return JSON.stringify(root).includes(UNTRUSTED_REF) ? { ...root, $defs: { untrusted: structuredClone(UNTRUSTED_DEFINITION) } } : root;
}

/**
 * A tool error's structuredContent (src/mcp/call.ts, toolError): the code of
 * docs/errors.md and the detail, both strings. Only their presence is stated:
 * typed, the alternative would add 5 KB to `tools/list`.
 */
export const TOOL_ERROR_SCHEMA = { required: ['code', 'detail'] };

/**
 * A result object's schema widened to admit a tool error too: what only a
 * result must have (its required fields, its own alternatives) moves into one
 * branch of an `anyOf`, the error into the other. The properties stay at the
 * root, so a client still reads the result's shape there.
 */
export function orToolError(root: Node): Node {
  const { required, anyOf, allOf, ...shared } = root;
  const result: Node = { ...(required !== undefined ? { required } : {}), ...(anyOf !== undefined ? { anyOf } : {}), ...(allOf !== undefined ? { allOf } : {}) };
  return { ...shared, anyOf: [result, structuredClone(TOOL_ERROR_SCHEMA)] };
}

/** The result's schema without the tool error, as orToolError found it. */
export function withoutToolError(root: Node): Node {
  const { anyOf, ...shared } = root;
  const [result] = anyOf as [Node, Node];
  return { ...shared, ...result };
}

/**
 * The node with only its shape keywords, recursively. A `oneOf` becomes an
 * `anyOf`: with constraints gone its branches may overlap, and "exactly one"
 * would then refuse a valid result. A `oneOf` with a discriminator whose
 * branches are objects is collapsed into one object (collapse).
 */
export function reduce(node: unknown): Node {
  if (!isNode(node)) return node === false ? { not: {} } : {};
  const out: Node = {};
  for (const [key, value] of Object.entries(node)) {
    if (!SHAPE_KEYWORDS.has(key)) continue;
    if ((key === 'properties' || key === 'patternProperties') && isNode(value)) out[key] = mapValues(value, reduce);
    else if ((key === 'anyOf' || key === 'allOf' || key === 'prefixItems' || key === 'items') && Array.isArray(value)) out[key] = value.map(reduce);
    else if ((key === 'items' || key === 'additionalProperties') && isNode(value)) out[key] = reduce(value);
    // A closed object (`additionalProperties: false`) constrains what Atrium sends, like a pattern; a schema for extra properties describes them and stays.
    else if (key !== 'additionalProperties') out[key] = structuredClone(value);
  }
  if (!Array.isArray(node.oneOf)) return out;
  const branches = node.oneOf.map(reduce);
  const discriminator = isNode(node.discriminator) ? node.discriminator.propertyName : undefined;
  const discriminated = typeof discriminator === 'string' && branches.every((branch) => isObject(branch) && valuesOf(propertiesOf(branch)[discriminator]) !== undefined);
  const union = discriminated ? collapse(branches, discriminator) : { anyOf: branches };
  return Object.keys(out).length === 0 ? union : { allOf: [out, union] };
}

/**
 * A discriminated union of objects (the events) as one object: the
 * discriminator property is the enum of the branches' values; a property the
 * same in every branch is kept; one that differs (an event's payload) is,
 * when it is an object in every branch, an open object declaring only the
 * member-written fields any branch has, each optional and each any of its
 * branch forms, and otherwise any of its forms. Required are the properties
 * every branch requires.
 */
function collapse(branches: Node[], discriminator: string): Node {
  const names = [...new Set(branches.flatMap((branch) => Object.keys(propertiesOf(branch))))];
  const properties: Node = {};
  for (const name of names) {
    const forms = branches.map((branch) => propertiesOf(branch)[name]).filter((form): form is Node => form !== undefined);
    if (name === discriminator) properties[name] = { type: 'string', enum: [...new Set(forms.flatMap((form) => valuesOf(form)!))] };
    else if (forms.length === branches.length && distinct(forms).length === 1) properties[name] = forms[0];
    else properties[name] = forms.every(isObject) ? memberWritten(forms) : anyOf(forms);
  }
  const required = names.filter((name) => branches.every((branch) => Array.isArray(branch.required) && branch.required.includes(name)));
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}

/** The objects' member-written fields, each any of its forms; everything else left open. */
function memberWritten(objects: Node[]): Node {
  const names = [...new Set(objects.flatMap((object) => Object.keys(propertiesOf(object))))];
  const properties: Node = {};
  for (const name of names) {
    const forms = objects.map((object) => propertiesOf(object)[name]).filter((form): form is Node => form !== undefined);
    if (forms.some(carriesUntrusted)) properties[name] = anyOf(forms);
  }
  return { type: 'object', properties };
}

function anyOf(forms: Node[]): Node {
  const options = distinct(forms.flatMap((form) => (Object.keys(form).length === 1 && Array.isArray(form.anyOf) ? (form.anyOf as Node[]) : [form])));
  return options.length === 1 ? options[0]! : { anyOf: options };
}

/** The values a discriminator property may take in one branch: its `const` or its `enum`. */
function valuesOf(form: Node | undefined): unknown[] | undefined {
  if (form === undefined) return undefined;
  if ('const' in form) return [form.const];
  return Array.isArray(form.enum) ? form.enum : undefined;
}

/** `type: [a, b]` as `anyOf: [{type: a}, {type: b}]`, which every client reads (docs/mcp.md#output-schemas). */
function singleTypes(node: Node): Node {
  const out = mapSubschemas(node, (child) => (isNode(child) ? singleTypes(child) : child));
  if (!Array.isArray(out.type)) return out;
  const { type, anyOf: others, ...rest } = out;
  const types = (type as unknown[]).map((t) => ({ type: t }));
  return others === undefined ? { ...rest, anyOf: types } : { ...rest, allOf: [{ anyOf: types }, { anyOf: others }] };
}

function carriesUntrusted(node: unknown): boolean {
  if (isUntrusted(node)) return true;
  if (Array.isArray(node)) return node.some(carriesUntrusted);
  return isNode(node) && Object.values(node).some(carriesUntrusted);
}

function isObject(node: Node): boolean {
  return node.type === 'object';
}

function propertiesOf(node: Node): Record<string, Node> {
  return isNode(node.properties) ? (node.properties as Record<string, Node>) : {};
}

function distinct(forms: Node[]): Node[] {
  const seen = new Map<string, Node>();
  for (const form of forms) if (!seen.has(JSON.stringify(form))) seen.set(JSON.stringify(form), form);
  return [...seen.values()];
}

function mapValues(map: Node, f: (value: unknown) => unknown): Node {
  return Object.fromEntries(Object.entries(map).map(([key, value]) => [key, f(value)]));
}
