import type { Static, TSchema } from '@sinclair/typebox';
import type { AppContext } from '../app-context.js';
import { withStorableText } from '../content/text.js';
import type { Actor } from '../identity/actor.js';
import type { Audience } from './audiences.js';
import type { Tag } from './tags.js';
import type { WaitAllowance } from './waits.js';

/** How a caller may authenticate (protocol: Authentication). */
export type CredentialScheme = 'member_key' | 'session' | 'steward_key';

/**
 * The credential combinations operations accept, named once. "Owner/Host"
 * powers take a member credential (a human's session or their own member key)
 * or the steward key; the role itself is the services' check, so an agent's key
 * is refused there with 403. A few powers need a sign-in: changing a review
 * policy and administering roles (docs/members-and-roles.md).
 */
export const MEMBER_CREDENTIALS: CredentialScheme[] = ['member_key', 'session'];
export const OWNER_HOST_CREDENTIALS: CredentialScheme[] = ['member_key', 'session', 'steward_key'];
export const SIGNED_IN_OWNER_HOST_CREDENTIALS: CredentialScheme[] = ['session', 'steward_key'];
export const ANY_CREDENTIAL: CredentialScheme[] = ['member_key', 'session', 'steward_key'];

/**
 * What an OAuth grant narrowed to some Spaces gets from an operation whose
 * path names no Space (docs/oauth.md, "Narrowing"). Absent: refused, so an
 * operation that reads across Spaces is closed to a narrowed grant until its
 * declaration says how its answer stays inside the grant.
 */
export type { Audience } from './audiences.js';

export type BeyondSpaces =
  /** Answered as an anonymous caller would be: only what is public. */
  | 'public'
  /** The service keeps the answer to the grant's Spaces (search, the inbox). */
  | 'filtered'
  /** The caller's own records, which hold no Space's content (their profile, webhook endpoints). */
  | 'own';

export type ErrorStatus = 401 | 403 | 404 | 409 | 410 | 413 | 415 | 422 | 429 | 502 | 503 | 504;

/**
 * What an operation may do to the response beyond its body, kept free of any
 * HTTP framework so the same handler serves REST and MCP (src/mcp/).
 */
export interface ResponseControl {
  setSessionCookie(token: string, expires: Date): void;
  clearSessionCookie(): void;
  setHeader(name: string, value: string): void;
  /** Overrides the declared success status (e.g. join answers 202 for a filed request). */
  setStatus(status: 200 | 201 | 202): void;
  /** The body is already JSON: send these bytes as they are. MCP carries the returned value and ignores them. */
  sendJson(json: string): void;
  /**
   * Conditional reads (`conditional` operations): these bytes (UTF-8 JSON) under
   * this entity tag. The HTTP edge answers 304 with no body when the client's
   * `If-None-Match` names the tag; MCP carries the returned value and ignores both.
   */
  sendTagged(body: Buffer, etag: string): void;
}

export interface OperationInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  actor: Actor;
  ctx: AppContext;
  response: ResponseControl;
  /** The caller's network address, for per-client rate limits. */
  clientAddress: string;
  /** What this request may hold open while it waits for something (long polls). */
  waits: WaitAllowance;
}

type StaticOr<S, Fallback> = S extends TSchema ? Static<S> : Fallback;

/**
 * One API operation, declared once. The REST route, its OpenAPI entry, the MCP
 * tool and the CLI's calls are all derived from this declaration.
 */
export interface Operation<
  P extends TSchema | undefined = TSchema | undefined,
  Q extends TSchema | undefined = TSchema | undefined,
  B extends TSchema | undefined = TSchema | undefined,
  R extends TSchema | undefined = TSchema | undefined,
> {
  /** snake_case verb_noun; also the MCP tool name. */
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** OpenAPI-style path, e.g. `/v0/spaces/{slug}`. */
  path: string;
  /** Its group in the contract (src/operations/tags.ts). */
  tag: Tag;
  summary: string;
  /** What it does, its rules and refusals, for client authors (every operation has one). */
  description: string;
  /** Schemes accepted; `anonymous` adds the empty security requirement. */
  auth: { anonymous: boolean; schemes: CredentialScheme[] };
  /** Who may call it and succeed (the role matrix and docs/members-and-roles.md read this). */
  who: Audience;
  /** For a path that names no Space: what a grant narrowed to some Spaces gets here (absent: refused). */
  beyondSpaces?: BeyondSpaces;
  /**
   * Creates or approves a credential (a member key, an agent's activation).
   * No OAuth token may call it, only the member's own key or session, so that
   * revoking a grant leaves nothing of it behind (docs/oauth.md).
   */
  createsCredential?: true;
  params?: P;
  query?: Q;
  body?: B;
  /** A body schema is optional unless this is set (e.g. archive requires `reason`). */
  bodyRequired?: boolean;
  success: {
    status: 200 | 201 | 202 | 204;
    description: string;
    schema?: R;
    /** The answer's media type, when a more precise one than `application/json` names it (a JWK Set). */
    mediaType?: `application/${string}+json`;
    /** Other success statuses the handler may choose (same body schema). */
    alsoStatuses?: Array<200 | 201 | 202>;
    /**
     * Serialise the body with JSON.stringify instead of the schema-driven
     * serialiser. For bodies built field by field from typed records whose
     * schema is a large union (events: one branch per type), where the schema
     * serialiser would test every branch for every item. The contract still
     * declares the schema, and the tests check every response against it.
     */
    plainJson?: true;
  };
  /**
   * Answers carry an `ETag`, and `If-None-Match` with a current tag gets 304
   * with no body (feeds: a reader re-polling what it already holds).
   */
  conditional?: true;
  /**
   * Takes `wait` and may hold the request open until something happens (a
   * long poll). Such a request counts against the host's long-poll shares
   * (docs/http.md, "Sharing the server fairly"); one over them is answered at once with
   * `Retry-After`, which the contract declares on the success response.
   */
  longPoll?: true;
  /** Documented error statuses; 422 is added wherever there is input to validate. */
  errors: ErrorStatus[];
  readOnly?: boolean;
  /**
   * May end, remove, revoke or overwrite something the caller cannot simply put
   * back (MCP `destructiveHint`; docs/mcp.md). Read-only operations never are.
   */
  destructive?: boolean;
  /** Repeating the same call succeeds with no further effect (MCP `idempotentHint`); implied by `readOnly`. */
  idempotent?: boolean;
  /**
   * Honours an optional `Idempotency-Key` header over REST, for writes that are
   * not idempotent by nature (creations): a retry with the same key and body
   * gets the first success answer again instead of acting twice
   * (docs/idempotency.md). Writes with an authenticated caller only. MCP has no
   * headers, so tools are unaffected.
   */
  idempotencyKey?: true;
  /** Reaches beyond this host: sends a request to a URL a member chose (MCP `openWorldHint`). */
  openWorld?: boolean;
  /** Why this operation has no MCP tool (docs/mcp.md); absent: it has one. */
  notAnMcpTool?: string;
  /**
   * A request body and a success answer as the API reference shows them, in
   * place of what a renderer makes up from the schema (`"string"`). They go to
   * the contract only: MCP tool schemas stay as small as they are, since a
   * client pays for them in every prompt. A test checks each against its schema.
   */
  examples?: { body?: unknown; response?: unknown };
  handler(input: OperationInput<StaticOr<P, undefined>, StaticOr<Q, undefined>, StaticOr<B, undefined>>): Promise<StaticOr<R, void>>;
}

export type AnyOperation = Operation<TSchema | undefined, TSchema | undefined, TSchema | undefined, TSchema | undefined>;

/**
 * Declares an operation; TypeScript infers the handler's types from the schemas.
 * Free-text request strings gain the storable-text pattern here, once, so every
 * view derived from the declaration states the rule the edge enforces.
 */
export function defineOperation<
  P extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  B extends TSchema | undefined = undefined,
  R extends TSchema | undefined = undefined,
>(op: Operation<P, Q, B, R>): AnyOperation {
  const declared = {
    ...op,
    ...(op.params ? { params: withStorableText(op.params) } : {}),
    ...(op.query ? { query: withStorableText(op.query) } : {}),
    ...(op.body ? { body: withStorableText(op.body) } : {}),
  };
  return declared as unknown as AnyOperation;
}
