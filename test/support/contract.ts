import assert from 'node:assert/strict';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

interface OpenApiDocument {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>>;
}

/**
 * Checks real responses against the served OpenAPI contract: every response a
 * test receives must have a documented status and a body that validates
 * against the contract's schema for it. Tests never describe response shapes
 * a second time.
 */
export class ContractChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly routes: Array<{ method: string; template: string; regex: RegExp }> = [];
  private readonly compiled = new Map<string, ReturnType<InstanceType<typeof Ajv2020>['compile']>>();

  constructor(private readonly document: OpenApiDocument) {
    addFormats(this.ajv);
    this.ajv.addSchema(document as object, 'contract');
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
    assert.ok(responses[String(status)], `${method} ${route.template} answered ${status}, which the contract does not document`);
    const content = responses[String(status)]!.content;
    if (!content) return;
    const key = `${route.method} ${route.template} ${status}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      const pointer = `contract#/paths/${escape(route.template)}/${route.method.toLowerCase()}/responses/${status}/content/application~1json/schema`;
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
