import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UNTRUSTED } from '../src/content/untrusted.js';
import { envelopeSchema } from '../src/mcp/schema-envelope.js';
import { SchemaSet } from '../src/mcp/schema-set.js';
import { Walker, type Provenance, type Rendering } from '../src/mcp/value-walker.js';

const TEXT = { type: 'string', [UNTRUSTED]: true };
const Note = { $id: 'Note', type: 'object', additionalProperties: false, properties: { id: { type: 'integer' }, author: { type: 'string' }, body: TEXT } };
const Loop = { $id: 'Loop', type: 'object', properties: { next: { $ref: 'Loop' } } };

/** The value at `keys` inside a schema. */
const at = (value: unknown, ...keys: string[]): unknown => keys.reduce((inner, key) => (inner as Record<string, unknown>)[key], value);

/** The parts under the envelope, each on its own (the envelope as a whole: mcp-envelope.test.ts). */
describe('MCP envelope: the schema engine', () => {
  const schemas = new SchemaSet([Note, Loop]);

  it('follows a $ref, keywords beside it winning over the target', () => {
    const node = schemas.deref({ $ref: 'Note', description: 'A note here.' });
    assert.equal(node.type, 'object');
    assert.equal(node.description, 'A note here.');
    assert.deepEqual(schemas.deref(false), { not: {} });
    assert.throws(() => schemas.deref({ $ref: 'Nothing' }), /names no shared schema/);
  });

  it('inlines every $ref, titles what it inlined and drops ids, and refuses a schema that refers to itself', () => {
    const resolved = schemas.resolve({ type: 'array', items: { $ref: 'Note' } });
    assert.deepEqual(resolved.items, { title: 'Note', ...Object.fromEntries(Object.entries(Note).filter(([key]) => key !== '$id')) });
    assert.throws(() => schemas.resolve({ $ref: 'Loop' }), /refers to itself/);
  });

  it('finds untrusted text through $refs and allOf, and merges allOf parts into one object view', () => {
    assert.equal(schemas.untrusted({ allOf: [{ minLength: 1 }, TEXT] }), true);
    assert.equal(schemas.untrusted({ type: 'string' }), false);
    const view = schemas.objectView({ allOf: [{ $ref: 'Note' }, { properties: { extra: { type: 'boolean' } } }] });
    assert.deepEqual([...view.properties.keys()], ['id', 'author', 'body', 'extra']);
    assert.equal(view.additional, false);
  });

  it('tells the branches of a union apart by shape', () => {
    const branch = { type: 'object', required: ['kind'], properties: { kind: { const: 'a' } } };
    assert.equal(schemas.fits({ kind: 'a' }, branch), true);
    assert.equal(schemas.fits({ kind: 'b' }, branch), false);
    assert.equal(schemas.fits({}, branch), false);
    assert.equal(schemas.fits([1, 2], { type: 'array', items: { type: 'integer' } }), true);
    assert.equal(schemas.fits([1, 'x'], { type: 'array', items: { type: 'integer' } }), false);
  });
});

describe('MCP envelope: the schema rewriting', () => {
  it('replaces each untrusted string by the envelope object and adds the provenance schema once', () => {
    const schema = envelopeSchema({ $ref: 'Note' }, [Note]);
    const untrusted = at(schema, 'properties', 'body', 'properties', 'untrusted', 'properties');
    assert.deepEqual(at(schema, 'properties', 'body', 'required'), ['untrusted']);
    assert.equal(at(untrusted, 'text', UNTRUSTED), true);
    assert.equal(at(untrusted, 'provenance', '$ref'), '#/$defs/atrium_provenance');
    assert.deepEqual(Object.keys(at(schema, '$defs') as object), ['atrium_provenance']);
    assert.deepEqual(at(schema, 'properties', 'author'), { type: 'string' });
  });

  it('carries a result that is not an object as {result}', () => {
    assert.deepEqual(at(envelopeSchema({ type: 'array', items: { type: 'string' } }, []), 'required'), ['result']);
  });
});

describe('MCP envelope: the value walker', () => {
  const seen: Array<{ text: string; provenance: Provenance }> = [];
  const rendering: Rendering = {
    string: (text) => text.toUpperCase(),
    untrusted: (text, provenance) => {
      seen.push({ text, provenance });
      return { wrapped: text };
    },
  };

  it('renders untrusted strings with the provenance of the nearest record, other strings as the rendering says', () => {
    const walker = new Walker(new SchemaSet([Note]), { operation: 'list_notes', space: 'garden' }, rendering);
    const result = walker.walk({ notes: [{ id: 7, author: 'ada', body: 'hello' }] }, { type: 'object', properties: { notes: { type: 'array', items: { $ref: 'Note' } } } }, '$', []);
    assert.deepEqual(result, { NOTES: [{ ID: 7, AUTHOR: 'ADA', BODY: { wrapped: 'hello' } }] });
    assert.equal(walker.count, 1);
    assert.deepEqual(seen, [{ text: 'hello', provenance: { space: 'garden', author: 'ada', record: 7, field: '$.notes[0].body' } }]);
  });

  it('leaves out properties the schema does not allow, as REST does', () => {
    const walker = new Walker(new SchemaSet([Note]), { operation: 'get_note' }, rendering);
    assert.deepEqual(walker.walk({ id: 1, hidden: 'x' }, { $ref: 'Note' }, '$', []), { ID: 1 });
  });

  it('never takes provenance from untrusted text', () => {
    seen.length = 0;
    const schema = { type: 'object', properties: { author: TEXT, body: TEXT } };
    new Walker(new SchemaSet([]), { operation: 'x' }, rendering).walk({ author: 'mallory', body: 'hi' }, schema, '$', []);
    assert.deepEqual(
      seen.map((s) => s.provenance.author),
      [null, null],
    );
  });
});
