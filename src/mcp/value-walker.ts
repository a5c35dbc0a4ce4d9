import { isNode, typeMatches, type Node, type ObjectView, type SchemaSet } from './schema-set.js';

/*
 * The envelope's value walker (envelope.ts): a result walked along its response
 * schema, every untrusted string rendered with its provenance, read from the
 * records around it.
 */

export interface Provenance {
  /** Slug of the Space the text belongs to; null when it belongs to none known. */
  space: string | null;
  /** Handle of the member the record attributes the text to; null when unknown. */
  author: string | null;
  /** Id of the record holding the text (message id, task id, Resource id, event cursor…). */
  record: string | number | null;
  /** JSON path of the value in the structured result, e.g. `$.events[0].payload.body`. */
  field: string;
}

export interface UntrustedValue {
  untrusted: { text: string; provenance: Provenance };
}

export interface EnvelopeCall {
  /** The operation (and MCP tool) name. */
  operation: string;
  /** The Space the call addressed, when it addressed one: provenance of last resort. */
  space?: string | null;
}

// Provenance keys, most specific first. An author key is read from the nearest
// enclosing object that has a usable one. `author` and `actor` name who wrote
// a message or caused an event; `updated_by` precedes `created_by` because a
// Resource's name and content are those of its current version, added by
// `updated_by`; `handle` is a Member writing its own display name. Keys that
// name someone other than the writer (`proposed_by` on a decline, `member` in
// admission events) are deliberately absent.
const SPACE_KEYS = ['space', 'slug'] as const;
const AUTHOR_KEYS = ['author', 'actor', 'updated_by', 'created_by', 'handle'] as const;
const RECORD_KEYS = ['id', 'message_id', 'resource_id', 'cursor', 'slug'] as const;
/** Text whose writer a sibling field names, overriding the generic order (pin proposals). */
const FIELD_AUTHOR: Readonly<Record<string, string>> = { rationale: 'proposed_by', decline_reason: 'decided_by' };

/** Provenance is shown outside the markers, so it only ever carries identifier-like values. */
const IDENTIFIER = /^[^\s\p{C}\p{Default_Ignorable_Code_Point}\u27E6\u27E7]{1,256}$/u;

interface Frame {
  value: Node;
  view: ObjectView;
}

/** How one walk renders strings, keys and untrusted values: once for data, once for the model. */
export interface Rendering {
  string(text: string): string;
  untrusted(text: string, provenance: Provenance): unknown;
}

export class Walker {
  count = 0;

  constructor(
    private readonly schemas: SchemaSet,
    private readonly call: EnvelopeCall,
    private readonly rendering: Rendering,
  ) {}

  walk(value: unknown, node: unknown, path: string, frames: readonly Frame[]): unknown {
    const n = this.schemas.deref(node);
    if (typeof value === 'string' && this.schemas.untrusted(n)) return this.wrap(value, path, frames);

    const branches = [...(Array.isArray(n.anyOf) ? n.anyOf : []), ...(Array.isArray(n.oneOf) ? n.oneOf : [])];
    if (branches.length > 0) {
      const candidates = branches.filter((branch) => typeMatches(value, this.schemas.deref(branch).type));
      // A string any matching branch calls untrusted is wrapped: labelling too much is safe, too little is not.
      if (typeof value === 'string' && candidates.some((branch) => this.schemas.untrusted(branch))) return this.wrap(value, path, frames);
      const chosen = this.byDiscriminator(value, n, candidates) ?? candidates.find((branch) => this.schemas.fits(value, branch)) ?? candidates[0];
      if (chosen !== undefined) return this.walk(value, chosen, path, frames);
    }

    if (Array.isArray(value)) return this.walkArray(value, n, path, frames);
    if (isNode(value)) return this.walkObject(value, n, path, frames);
    return typeof value === 'string' ? this.rendering.string(value) : value;
  }

  /**
   * The branch a discriminated union names for this value (events: by `type`).
   * Chosen by name rather than by shape, so an event whose stored payload has
   * drifted from its schema is still read with its own type's schema, never
   * another type's that happens to fit.
   */
  private byDiscriminator(value: unknown, n: Node, candidates: unknown[]): unknown {
    const property = isNode(n.discriminator) ? n.discriminator.propertyName : undefined;
    if (typeof property !== 'string' || !isNode(value) || typeof value[property] !== 'string') return undefined;
    return candidates.find((branch) => {
      const own = this.schemas.deref(this.schemas.objectView(branch).properties.get(property));
      return own.const === value[property] || (Array.isArray(own.enum) && own.enum.length === 1 && own.enum[0] === value[property]);
    });
  }

  private walkArray(value: unknown[], n: Node, path: string, frames: readonly Frame[]): unknown[] {
    const prefix = Array.isArray(n.prefixItems) ? n.prefixItems : Array.isArray(n.items) ? n.items : [];
    const rest = Array.isArray(n.items) ? n.additionalItems : n.items;
    return value.map((item, index) => {
      const schema = index < prefix.length ? prefix[index] : rest;
      const itemPath = `${path}[${index}]`;
      // Like JSON, an array keeps its slots: an undefined item serialises as null.
      if (item === undefined) return null;
      return isNode(schema) ? this.walk(item, schema, itemPath, frames) : this.plain(item);
    });
  }

  private walkObject(value: Node, n: Node, path: string, frames: readonly Frame[]): Node {
    const view = this.schemas.objectView(n);
    const inside = [...frames, { value, view }];
    const out: Node = {};
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined) continue;
      const itemPath = `${path}${pathSegment(key)}`;
      const schema = view.properties.get(key) ?? view.patterns.find(([pattern]) => pattern.test(key))?.[1];
      let rendered: unknown;
      if (schema !== undefined) rendered = this.walk(item, schema, itemPath, inside);
      else if (isNode(view.additional)) rendered = this.walk(item, view.additional, itemPath, inside);
      // REST serialises through the same schema and leaves undeclared properties out; so does MCP.
      else if (view.additional === false) continue;
      else rendered = this.plain(item);
      out[this.rendering.string(key)] = rendered;
    }
    return out;
  }

  /** A value no schema describes further: copied as JSON would carry it. */
  private plain(value: unknown): unknown {
    if (typeof value === 'string') return this.rendering.string(value);
    if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : this.plain(item)));
    if (isNode(value)) {
      const out: Node = {};
      for (const [key, item] of Object.entries(value)) if (item !== undefined) out[this.rendering.string(key)] = this.plain(item);
      return out;
    }
    return value;
  }

  private wrap(text: string, path: string, frames: readonly Frame[]): unknown {
    this.count += 1;
    return this.rendering.untrusted(text, this.provenance(path, frames));
  }

  private provenance(field: string, frames: readonly Frame[]): Provenance {
    const nearest = (keys: readonly string[], accept: (v: unknown) => v is string | number): string | number | null => {
      for (let i = frames.length - 1; i >= 0; i--) {
        const frame = frames[i]!;
        for (const key of keys) {
          const candidate = frame.value[key];
          if (accept(candidate) && !this.isUntrustedProperty(frame, key)) return candidate;
        }
      }
      return null;
    };
    const space = nearest(SPACE_KEYS, isIdentifier) ?? (isIdentifier(this.call.space) ? this.call.space : null);
    return {
      space: space === null ? null : String(space),
      author: this.author(field, frames, nearest),
      record: nearest(RECORD_KEYS, (v): v is string | number => isIdentifier(v) || Number.isSafeInteger(v)),
      field,
    };
  }

  private author(
    field: string,
    frames: readonly Frame[],
    nearest: (keys: readonly string[], accept: (v: unknown) => v is string | number) => string | number | null,
  ): string | null {
    const own = frames[frames.length - 1];
    const name = /\.([A-Za-z_$][\w$]*)$/.exec(field)?.[1];
    const specific = name === undefined ? undefined : FIELD_AUTHOR[name];
    if (own !== undefined && specific !== undefined && specific in own.value) {
      const writer = own.value[specific];
      return isIdentifier(writer) && !this.isUntrustedProperty(own, specific) ? writer : null;
    }
    const found = nearest(AUTHOR_KEYS, isIdentifier);
    return found === null ? null : String(found);
  }

  private isUntrustedProperty(frame: Frame, key: string): boolean {
    const schema = frame.view.properties.get(key);
    return schema !== undefined && this.schemas.untrusted(schema);
  }
}

function isIdentifier(value: unknown): value is string {
  return typeof value === 'string' && IDENTIFIER.test(value);
}

function pathSegment(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}
