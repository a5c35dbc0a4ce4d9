import type { TSchema } from '@sinclair/typebox';
import { isUntrusted } from '../content/untrusted.js';

/**
 * The schema engine under the untrusted-content envelope (envelope.ts): JSON
 * Schemas as plain nodes, `$ref`s followed or inlined against the shared
 * schemas, and the few questions the envelope asks of a schema (is this node
 * untrusted text, which properties does this object declare, could this value
 * be an instance of it).
 */

export type Node = Record<string, unknown>;
export type SharedSchemas = ReadonlyArray<{ $id?: string }>;

/** Keywords whose value is one subschema, a map of them, or a list of them (JSON Schema 2020-12 and draft-07). */
const SUBSCHEMA = ['additionalProperties', 'items', 'additionalItems', 'unevaluatedProperties', 'unevaluatedItems', 'contains', 'propertyNames', 'not', 'if', 'then', 'else'];
const SUBSCHEMA_MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SUBSCHEMA_LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems', 'items'];

export function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refName(ref: string): string {
  return ref.endsWith('#') ? ref.slice(0, -1) : ref;
}

export class SchemaSet {
  private readonly byId = new Map<string, Node>();

  constructor(shared: SharedSchemas) {
    for (const schema of shared) {
      if (typeof schema.$id === 'string') this.byId.set(refName(schema.$id), schema as Node);
    }
  }

  /**
   * The node with its `$ref` (if any) replaced by the named schema; keywords
   * beside the `$ref` (a description, say) win over the target's. `names`
   * collects the schemas followed, for cycle detection and titles.
   */
  deref(node: unknown, names: string[] = []): Node {
    let current: unknown = node;
    for (;;) {
      if (!isNode(current)) return current === false ? { not: {} } : {};
      const ref = current.$ref;
      if (typeof ref !== 'string') return current;
      const name = refName(ref);
      const target = this.byId.get(name);
      if (!target) throw new Error(`Schema $ref "${ref}" names no shared schema`);
      if (names.includes(name)) throw new Error(`Schema $ref "${ref}" is recursive and cannot be inlined`);
      names.push(name);
      const { $ref: _ref, ...siblings } = current;
      current = { ...target, ...siblings };
    }
  }

  /** Every `$ref` inlined, every `$id` dropped (an inlined copy must not claim the shared schema's id). */
  resolve(node: unknown, ancestors: readonly string[] = []): Node {
    const names: string[] = [];
    const resolved = this.deref(node, names);
    for (const name of names) {
      if (ancestors.includes(name)) throw new Error(`Schema "${name}" refers to itself and cannot be inlined`);
    }
    const inside = [...ancestors, ...names];
    const { $id, ...rest } = resolved;
    const copy = mapSubschemas(rest, (child) => (isNode(child) ? this.resolve(child, inside) : child));
    const title = names[0] ?? (typeof $id === 'string' ? refName($id) : undefined);
    return title !== undefined && copy.title === undefined ? { title, ...copy } : copy;
  }

  /** True for a tagged node, or one whose `allOf` parts include a tagged node. */
  untrusted(node: unknown): boolean {
    const n = this.deref(node);
    if (isUntrusted(n)) return true;
    return Array.isArray(n.allOf) && n.allOf.some((part) => this.untrusted(part));
  }

  /** Properties, pattern properties and extra-property rule of an object schema, `allOf` parts merged in. */
  objectView(node: unknown): ObjectView {
    const view: ObjectView = { properties: new Map(), patterns: [], additional: true };
    const visit = (raw: unknown) => {
      const n = this.deref(raw);
      if (isNode(n.properties)) for (const [key, schema] of Object.entries(n.properties)) view.properties.set(key, schema);
      if (isNode(n.patternProperties)) {
        for (const [pattern, schema] of Object.entries(n.patternProperties)) view.patterns.push([new RegExp(pattern, 'u'), schema]);
      }
      if (n.additionalProperties === false) view.additional = false;
      else if (isNode(n.additionalProperties) && view.additional !== false) view.additional = n.additionalProperties;
      if (Array.isArray(n.allOf)) n.allOf.forEach(visit);
    };
    visit(node);
    return view;
  }

  /**
   * Whether a value could be an instance of a schema, judged on the shape
   * only (types, constants, required and declared properties, items): enough
   * to tell the branches of a response union apart.
   */
  fits(value: unknown, node: unknown, depth = 0): boolean {
    const n = this.deref(node);
    if (depth > 64) return true;
    if (!typeMatches(value, n.type)) return false;
    if ('const' in n && !sameJson(n.const, value)) return false;
    if (Array.isArray(n.enum) && !n.enum.some((option) => sameJson(option, value))) return false;
    if (Array.isArray(n.allOf) && !n.allOf.every((part) => this.fits(value, part, depth + 1))) return false;
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      const branches = n[keyword];
      if (Array.isArray(branches) && !branches.some((branch) => this.fits(value, branch, depth + 1))) return false;
    }
    if (isNode(value)) {
      if (Array.isArray(n.required) && !n.required.every((key) => typeof key === 'string' && value[key] !== undefined)) return false;
      if (isNode(n.properties)) {
        for (const [key, schema] of Object.entries(n.properties)) {
          if (value[key] !== undefined && !this.fits(value[key], schema, depth + 1)) return false;
        }
      }
    }
    if (Array.isArray(value) && (isNode(n.items) || typeof n.items === 'boolean')) {
      if (!value.every((item) => this.fits(item, n.items, depth + 1))) return false;
    }
    return true;
  }
}

export interface ObjectView {
  properties: Map<string, unknown>;
  patterns: Array<[RegExp, unknown]>;
  /** true: anything, kept as it is; false: undeclared properties are not part of the response; a schema: walked. */
  additional: boolean | Node;
}

export function mapSubschemas(node: Node, map: (child: unknown) => unknown): Node {
  const out: Node = {};
  for (const [key, value] of Object.entries(node)) {
    if (SUBSCHEMA_LIST.includes(key) && Array.isArray(value)) out[key] = value.map(map);
    else if (SUBSCHEMA.includes(key) && isNode(value)) out[key] = map(value);
    else if (SUBSCHEMA_MAP.includes(key) && isNode(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, map(child)]));
    } else out[key] = structuredClone(value);
  }
  return out;
}

export function typeMatches(value: unknown, type: unknown): boolean {
  if (type === undefined) return true;
  const types = Array.isArray(type) ? type : [type];
  return types.some((t) => {
    switch (t) {
      case 'null':
        return value === null;
      case 'string':
        return typeof value === 'string';
      case 'boolean':
        return typeof value === 'boolean';
      case 'number':
        return typeof value === 'number';
      case 'integer':
        return Number.isInteger(value);
      case 'array':
        return Array.isArray(value);
      case 'object':
        return isNode(value);
      default:
        return false;
    }
  });
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Resolves `$ref`s against the shared schemas (by $id) so callers can walk a schema. */
export function resolveSchema(schema: TSchema | object, shared: SharedSchemas): object {
  return new SchemaSet(shared).resolve(schema);
}
