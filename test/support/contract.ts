import assert from 'node:assert/strict';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { isMailbox } from '../../src/shared/mailbox.js';

const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

interface ResponseObject {
  $ref?: string;
  content?: Record<string, unknown>;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, { responses: Record<string, ResponseObject> }>>;
  components?: { responses?: Record<string, ResponseObject> };
}

/**
 * Checks real responses against the served OpenAPI contract: every response a
 * test receives must have a documented status and a body that validates
 * against the contract's schema for it. Tests never describe response shapes
 * a second time.
 */
export class ContractChecker {
  // `discriminator: true` checks a union member by its tag (events by `type`), so a failure reports that one schema's errors.
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, discriminator: true });
  private readonly routes: Array<{ method: string; template: string; regex: RegExp }> = [];
  private readonly compiled = new Map<string, ReturnType<InstanceType<typeof Ajv2020>['compile']>>();

  constructor(private readonly document: OpenApiDocument) {
    addFormats(this.ajv);
    this.ajv.addFormat('idn-email', isMailbox);
    this.ajv.addSchema(withoutDiscriminatorMappings(document) as object, 'contract');
    for (const [template, methods] of Object.entries(document.paths)) {
      const regex = new RegExp('^' + template.replace(/\{[^}]+\}/g, '[^/]+') + '$');
      for (const method of Object.keys(methods)) this.routes.push({ method: method.toUpperCase(), template, regex });
    }
  }

  /** The documented operation for a concrete request, or undefined (unknown route). */
  route(method: string, path: string): { method: string; template: string } | undefined {
    const bare = path.split('?')[0]!;
    // Prefer the most literal template (`/v0/spaces/x/join` over `/v0/spaces/{slug}`).
    const matches = this.routes.filter((r) => r.method === method && r.regex.test(bare));
    matches.sort((a, b) => b.template.replace(/\{[^}]+\}/g, '').length - a.template.replace(/\{[^}]+\}/g, '').length);
    return matches[0];
  }

  check(method: string, path: string, status: number, body: unknown): void {
    const route = this.route(method, path);
    if (!route) {
      assert.equal(status, 404, `${method} ${path} is not in the contract but answered ${status}`);
      return;
    }
    const responses = this.document.paths[route.template]![route.method.toLowerCase()]!.responses;
    const declared = responses[String(status)];
    assert.ok(declared, `${method} ${route.template} answered ${status}, which the contract does not document`);
    // Error answers are shared: `{$ref: '#/components/responses/<Name>'}`.
    const sharedName = declared.$ref?.replace('#/components/responses/', '');
    const answer = sharedName === undefined ? declared : this.document.components?.responses?.[sharedName];
    assert.ok(answer, `${method} ${route.template} ${status} refers to ${declared.$ref}, which the contract does not hold`);
    if (!answer.content) return;
    const key = `${route.method} ${route.template} ${status}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      // One media type per answer: JSON, or a more precise +json type (a JWK Set).
      const media = escape(Object.keys(answer.content)[0]!);
      const pointer =
        sharedName === undefined
          ? `contract#/paths/${escape(route.template)}/${route.method.toLowerCase()}/responses/${status}/content/${media}/schema`
          : `contract#/components/responses/${sharedName}/content/${media}/schema`;
      validate = this.ajv.getSchema(pointer);
      assert.ok(validate, `no schema at ${pointer}`);
      this.compiled.set(key, validate);
    }
    assert.ok(validate(body), `${key} body does not match the contract: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`);
  }
}

function escape(template: string): string {
  return template.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Ajv reads a discriminator from the branches' own `type` values and refuses `mapping`, which only names the same branches. */
function withoutDiscriminatorMappings(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutDiscriminatorMappings);
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => {
      if (key === 'discriminator' && typeof value === 'object' && value !== null) {
        const { mapping: _mapping, ...rest } = value as Record<string, unknown>;
        return [key, rest];
      }
      return [key, withoutDiscriminatorMappings(value)];
    }),
  );
}
