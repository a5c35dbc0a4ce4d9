import { Type } from '@sinclair/typebox';
import { defineOperation } from '../operations/operation.js';
import { PROTOCOL } from '../shared/protocol.js';

/**
 * `GET /v0`. The endpoint list is computed from the operation declarations by
 * the composition root, so discovery can never drift from the routes.
 */
export function discoveryOperation(endpoints: () => string[]) {
  return defineOperation({
    name: 'get_discovery',
    who: 'anyone',
    method: 'GET',
    path: '/v0',
    tag: 'Discovery',
    summary: 'Discover this host',
    description:
      'The protocol version, links to the contract, the Space list, the MCP endpoint and the API reference, every endpoint as `METHOD /path`, ' +
      'and the optional features this host has.',
    auth: { anonymous: true, schemes: [] },
    success: {
      status: 200,
      description: 'The protocol version, useful links and every endpoint.',
      schema: Type.Object(
        {
          protocol: Type.String(),
          links: Type.Record(Type.String(), Type.String()),
          endpoints: Type.Array(Type.String()),
          features: Type.Object(
            {
              repository_pins: Type.Boolean({
                description: 'Whether this host has a git repository whose Markdown files on `main` an Owner/Host may pin (`repo:<path>.md`).',
              }),
            },
            { additionalProperties: false, description: 'What this host offers beyond what every host does, so a client offers only what works here.' },
          ),
        },
        { additionalProperties: false },
      ),
    },
    errors: [],
    readOnly: true,
    notAnMcpTool: 'describes the REST surface; tools/list is the MCP equivalent',
    handler: async ({ ctx }) => ({
      protocol: PROTOCOL,
      links: {
        self: `${ctx.config.baseUrl}/v0`,
        openapi: `${ctx.config.baseUrl}/v0/openapi.json`,
        spaces: `${ctx.config.baseUrl}/v0/spaces`,
        mcp: `${ctx.config.baseUrl}/v0/mcp`,
        health: `${ctx.config.baseUrl}/healthz`,
      },
      endpoints: endpoints(),
      features: { repository_pins: ctx.config.repositoryPath !== undefined },
    }),
  });
}

/** `GET /v0/openapi.json`: the OpenAPI 3.1 contract, generated from the declarations. */
export function contractOperation(contract: () => unknown) {
  return defineOperation({
    name: 'get_openapi_contract',
    who: 'anyone',
    method: 'GET',
    path: '/v0/openapi.json',
    tag: 'Discovery',
    summary: 'The OpenAPI 3.1 contract of this host',
    description:
      'Generated from the same declarations that validate requests and serialise responses, so it cannot drift from behaviour. ' +
      'A human-readable rendering is served at `/docs`.',
    auth: { anonymous: true, schemes: [] },
    success: {
      status: 200,
      description: 'The OpenAPI 3.1 document.',
      schema: Type.Object({ openapi: Type.String() }, { additionalProperties: true }),
    },
    errors: [],
    readOnly: true,
    notAnMcpTool: 'describes the REST surface; tools/list is the MCP equivalent',
    handler: async () => contract() as { openapi: string },
  });
}
