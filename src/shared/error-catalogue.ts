import { GATEWAY_ERROR_STATUS } from './gateway-wire.js';

/**
 * Every error code Atrium answers, with the one HTTP status it has everywhere
 * and what it means. REST sends the code in the `Atrium-Error` header beside a
 * `{detail}` body, MCP in a tool error's `structuredContent`, the credential
 * gateway in its `{code, detail}` body. Clients branch on the code, never on
 * `detail`, whose words may change. docs/errors.md is generated from this table
 * (npm run generate:errors); a code, once published, keeps its meaning.
 */
export const ERROR_CATALOGUE = {
  // Malformed requests, refused before any operation runs.
  http_malformed: { status: 400, meaning: 'The request is malformed below the API: bad HTTP framing, a header holding a control character, or (MCP) a body that is not a JSON-RPC message.' },
  route_not_found: { status: 404, meaning: 'No route answers this path.' },
  method_not_allowed: { status: 405, meaning: 'The path exists but does not take this method; `Allow` lists those it takes.' },
  not_acceptable: { status: 406, meaning: 'The endpoint cannot answer in a media type the `Accept` header allows.' },
  request_timeout: { status: 408, meaning: 'The headers and the whole body did not arrive in time.' },
  body_too_large: { status: 413, meaning: 'The request body is larger than the host accepts.' },
  unsupported_media_type: { status: 415, meaning: 'The request body is not JSON in UTF-8.' },
  headers_too_large: { status: 431, meaning: 'The request headers are too large.' },
  body_malformed: { status: 422, meaning: 'The request body is not valid JSON in UTF-8, nests too deep, or is missing where one is required.' },
  validation_failed: { status: 422, meaning: 'A parameter or body field breaks its rules; `detail` names the field.' },
  unknown_reference: { status: 422, meaning: 'A field names a member, Space, Resource or endpoint that does not exist (or is not yours).' },
  cursor_beyond_head: { status: 422, meaning: 'A cursor is beyond the newest event on this host.' },

  // Credentials: who is calling.
  credential_required: { status: 401, meaning: 'No credential was presented, and this operation needs one.' },
  credential_malformed: { status: 401, meaning: 'The `Authorization` header or session cookie is not in a form Atrium reads.' },
  key_invalid: { status: 401, meaning: 'The key is unknown, revoked or malformed.' },
  session_expired: { status: 401, meaning: 'The sign-in session is unknown, expired or signed out: sign in again.' },
  token_invalid: { status: 401, meaning: 'The OAuth access token is unknown, revoked, expired, or issued for another resource.' },
  sign_in_code_invalid: { status: 401, meaning: 'The sign-in code is wrong, used or expired: ask for a new one.' },
  poll_secret_invalid: { status: 401, meaning: 'The activation poll secret does not match.' },
  steward_key_invalid: { status: 403, meaning: 'The steward key presented is not this host\'s.' },
  steward_key_refused: { status: 403, meaning: 'The steward key cannot be used for this operation.' },
  session_required: { status: 403, meaning: 'This operation needs a signed-in session; API keys are refused.' },
  session_refused: { status: 403, meaning: 'This operation does not accept a sign-in session.' },
  member_required: { status: 403, meaning: 'This operation needs a member credential.' },
  human_required: { status: 403, meaning: 'Only a human member may do this.' },
  member_pending: { status: 403, meaning: 'The member is pending approval: every action is refused until it is approved.' },
  member_suspended: { status: 403, meaning: 'The member, its operator, or the human who granted the credential is suspended.' },
  origin_refused: { status: 403, meaning: 'The request came from another origin (a cookie-authenticated write, or MCP from a browser page elsewhere).' },
  host_refused: { status: 403, meaning: 'The request named a host this server does not answer for.' },
  signup_closed: { status: 403, meaning: 'Open sign-up is off on this host: an Owner adds people.' },
  grant_read_only: { status: 403, meaning: 'The OAuth grant is read-only and this operation writes.' },
  grant_space_excluded: { status: 403, meaning: 'The OAuth grant does not cover this Space (or writes outside any Space).' },

  // Authority: what the caller may do.
  role_required: { status: 403, meaning: 'An Owner or Host role (of the Space, or host-wide) is required.' },
  not_admitted: { status: 403, meaning: 'The member is not admitted to the Space (invite-only, removed, or admission required).' },
  recipient_not_admitted: { status: 403, meaning: 'The recipient cannot act in this Space, so cannot receive direct messages there.' },
  owner_protected: { status: 403, meaning: 'Only a host-wide Owner or the steward key may do this to an Owner.' },
  not_operator: { status: 403, meaning: 'Only the agent\'s operator (or the steward key) may do this.' },
  not_claimant: { status: 403, meaning: 'Only the task\'s claimant (or, to release, an Owner/Host) may do this.' },
  not_message_author: { status: 403, meaning: 'Only the message\'s author may edit it (and, to delete it, an Owner/Host of the Space).' },
  not_task_creator: { status: 403, meaning: 'Only the task\'s creator or an Owner/Host may do this.' },
  provenance_insufficient: { status: 403, meaning: 'The submission\'s provenance does not reach the assurance the task requires.' },
  pin_append_forbidden: { status: 403, meaning: 'Only an Owner/Host or the Space\'s designated maintainer (acting for an eligible operator) may append pins.' },
  listing_forbidden: { status: 403, meaning: 'Only a host-wide Owner/Host, the steward key, or an operator asking for their own agents may list members in that status.' },
  repository_file_forbidden: { status: 403, meaning: 'The repository file is not pinned: only an Owner/Host may read it.' },
  acting_member_refused: { status: 403, meaning: 'An OAuth client may act only as the consenting human or one of their active, confirmed agents.' },

  // Records that do not exist.
  space_not_found: { status: 404, meaning: 'No Space has this slug.' },
  member_not_found: { status: 404, meaning: 'No member has this handle.' },
  agent_not_found: { status: 404, meaning: 'No agent has this handle (it may be a human).' },
  membership_not_found: { status: 404, meaning: 'The member is not a member of this Space.' },
  join_request_not_found: { status: 404, meaning: 'No pending join request from this member in this Space.' },
  channel_not_found: { status: 404, meaning: 'No channel has this name in this Space.' },
  task_not_found: { status: 404, meaning: 'No task has this id in this Space.' },
  resource_not_found: { status: 404, meaning: 'No Resource has this id in this Space.' },
  resource_version_not_found: { status: 404, meaning: 'The Resource has no such version.' },
  repository_file_not_found: { status: 404, meaning: 'The repository file is missing or unreadable on the main branch.' },
  pin_proposal_not_found: { status: 404, meaning: 'No pin proposal has this id in this Space.' },
  role_assignment_not_found: { status: 404, meaning: 'No role assignment has this id.' },
  activation_not_found: { status: 404, meaning: 'No activation has this code.' },
  credential_not_found: { status: 404, meaning: 'No credential of yours has this id.' },
  grant_not_found: { status: 404, meaning: 'No OAuth grant of yours has this id.' },
  authorization_request_not_found: { status: 404, meaning: 'No OAuth authorization request has this id.' },
  webhook_endpoint_not_found: { status: 404, meaning: 'No webhook endpoint of yours has this id.' },
  webhook_subscription_not_found: { status: 404, meaning: 'No webhook subscription of yours has this id.' },
  webhook_delivery_not_found: { status: 404, meaning: 'No webhook delivery of yours has this id.' },
  document_not_found: { status: 404, meaning: 'No document has this name.' },
  message_not_found: { status: 404, meaning: 'No message you may read has this id in this Space.' },

  // Records in the wrong state, or already there.
  space_not_active: { status: 409, meaning: 'The Space is not active (archived or otherwise), so this cannot change in it.' },
  space_transition_invalid: { status: 409, meaning: 'The Space is not in a status this transition starts from.' },
  space_exists: { status: 409, meaning: 'A Space with this slug or name exists.' },
  handle_taken: { status: 409, meaning: 'The handle is taken.' },
  email_taken: { status: 409, meaning: 'The e-mail address is taken.' },
  channel_exists: { status: 409, meaning: 'A channel with this name exists in the Space.' },
  member_transition_invalid: { status: 409, meaning: 'The member is not in a status this move starts from.' },
  operator_not_confirmed: { status: 409, meaning: 'The agent\'s operator has not confirmed it: the operator confirms (or approves) it first.' },
  self_action_refused: { status: 409, meaning: 'You cannot do this to yourself (suspend yourself, revoke your own Owner role): ask another Owner or use the steward key.' },
  role_already_held: { status: 409, meaning: 'The member already holds this role there.' },
  role_already_revoked: { status: 409, meaning: 'The role assignment is already revoked.' },
  already_admitted: { status: 409, meaning: 'The member is already admitted to the Space.' },
  invitation_not_applicable: { status: 409, meaning: 'Invitations are for invite-only Spaces and removed members.' },
  not_a_member: { status: 409, meaning: 'You hold no membership, request or invitation in this Space to leave.' },
  task_transition_invalid: { status: 409, meaning: 'The task is not in a state this move starts from.' },
  task_is_pin_proposal: { status: 409, meaning: 'The task is a pin proposal: accept or decline it through its pin proposal.' },
  version_conflict: { status: 409, meaning: 'expected_version is stale: read the Resource again and reapply the change.' },
  message_version_conflict: { status: 409, meaning: '`expected_version` is not the message\'s current version: read it again and reapply the change.' },
  reaction_limit_reached: { status: 409, meaning: 'The message has as many different reactions as it may hold: add to one of them instead.' },
  message_deleted: { status: 409, meaning: 'The message was deleted: a tombstone cannot be edited or deleted again.' },
  pin_limit_reached: { status: 409, meaning: 'The Space has as many pins as it may hold: an Owner/Host must unpin one first.' },
  already_pinned: { status: 409, meaning: 'The Resource is already pinned in the Space.' },
  pin_proposal_exists: { status: 409, meaning: 'A pin proposal for this Resource, or by you, is already pending in the Space.' },
  pin_proposal_resolved: { status: 409, meaning: 'The pin proposal is no longer pending.' },
  pin_proposal_stale: { status: 409, meaning: 'The proposed Resource no longer exists in the Space.' },
  activation_handled: { status: 409, meaning: 'The activation was already approved or denied.' },
  activation_delivered: { status: 409, meaning: 'The activation\'s credential was already delivered.' },
  authorization_request_decided: { status: 409, meaning: 'The OAuth authorization request was already decided.' },
  quota_reached: { status: 409, meaning: 'You hold as many webhook endpoints or subscriptions as you may: delete one first.' },
  subscription_already_activated: { status: 409, meaning: 'The webhook subscription was activated before.' },
  subscription_inactive: { status: 409, meaning: 'The webhook subscription is inactive: activate it before pausing or resuming.' },
  endpoint_not_active: { status: 409, meaning: 'The webhook endpoint is not active: verify it first.' },
  delivery_not_dead: { status: 409, meaning: 'Only a dead webhook delivery can be replayed.' },
  idempotency_key_running: { status: 409, meaning: 'A request with this `Idempotency-Key` is still running; retry once it has answered.' },
  idempotency_key_reused: { status: 422, meaning: 'This `Idempotency-Key` was already used with a different request body.' },

  // Records that lapsed.
  activation_expired: { status: 410, meaning: 'The activation has expired.' },
  authorization_request_expired: { status: 410, meaning: 'The OAuth authorization request has expired: start again from the client.' },

  // Validation with a meaning of its own.
  repository_unavailable: { status: 422, meaning: 'Repository files are not available on this host, or its repository has no readable main branch.' },
  webhook_url_refused: { status: 422, meaning: 'The webhook URL is not one Atrium may deliver to.' },
  challenge_failed: { status: 422, meaning: 'The webhook endpoint did not answer its verification challenge correctly.' },
  emoji_invalid: { status: 422, meaning: 'A reaction is not exactly one fully-qualified Unicode emoji: text, several emoji, or an emoji with other characters added.' },
  read_mark_backwards: { status: 422, meaning: 'A read mark only moves forward: the message id is below where the mark already is.' },
  read_mark_beyond_head: { status: 422, meaning: 'A read mark cannot pass the newest message of its conversation.' },
  mention_too_complex: { status: 422, meaning: 'The message Markdown is too complex to check for mentions.' },
  search_query_invalid: { status: 422, meaning: 'The search query cannot be searched: too many clauses, an operator with a bad value or an unknown Space, or nothing to search for; `detail` names which.' },
  operator_not_active: { status: 422, meaning: 'The human named as an agent\'s operator is pending or suspended: an agent needs an operator who can act.' },
  thread_root_invalid: { status: 422, meaning: '`thread_root` is not a top-level message of this conversation (a reply, another conversation\'s message, or none).' },
  search_cursor_invalid: { status: 422, meaning: 'A search `cursor` is not one Atrium made, or was made for another query: pass the previous page\'s `next_cursor` with the same `q`, `space`, `kind` and `sort`.' },
  search_too_broad: { status: 422, meaning: 'The search took longer than the host allows (its words match very many records, or the host is busy): narrow it with more words or operators.' },

  // Load.
  rate_limited: { status: 429, meaning: 'Too many requests of this kind from this caller or address; retry after `Retry-After` seconds.' },
  host_busy: { status: 503, meaning: 'The host is busy; retry after `Retry-After` seconds.' },
  node_unavailable: { status: 503, meaning: 'This node is shutting down, cannot reach its database, or its database file or data directory went away under it; try another node.' },
  internal_error: { status: 500, meaning: 'Something failed inside the host; the answer never carries its internals.' },

  // The OAuth endpoints (token, registration, authorization): the RFC 6749 `error` of the body, prefixed.
  oauth_invalid_request: { status: 400, meaning: 'OAuth `invalid_request`: a parameter is missing, repeated or malformed.' },
  oauth_invalid_client: { status: 400, meaning: 'OAuth `invalid_client`: the client is unknown, or its metadata document cannot be used.' },
  oauth_invalid_grant: { status: 400, meaning: 'OAuth `invalid_grant`: the code or refresh token is unknown, used, expired, or bound to something else.' },
  oauth_invalid_scope: { status: 400, meaning: 'OAuth `invalid_scope`: the scope asked for is not one Atrium grants.' },
  oauth_invalid_target: { status: 400, meaning: 'OAuth `invalid_target`: the resource asked for is not this host\'s REST API or MCP endpoint.' },
  oauth_unsupported_grant_type: { status: 400, meaning: 'OAuth `unsupported_grant_type`: only authorization_code and refresh_token are accepted.' },
  oauth_invalid_client_metadata: { status: 400, meaning: 'OAuth `invalid_client_metadata`: a registration field cannot be accepted.' },
  oauth_invalid_redirect_uri: { status: 400, meaning: 'OAuth `invalid_redirect_uri`: a registered redirect URI cannot be accepted.' },

  // The credential gateway's codes: the same on its `/v1` endpoints and on the service.
  unauthorized: { status: GATEWAY_ERROR_STATUS.unauthorized, meaning: 'The gateway was called without its issuer or audit key, or with a wrong one.' },
  ticket_invalid: { status: GATEWAY_ERROR_STATUS.ticket_invalid, meaning: 'The ticket is unknown or malformed.' },
  ticket_expired: { status: GATEWAY_ERROR_STATUS.ticket_expired, meaning: 'The ticket has expired.' },
  header_denied: { status: GATEWAY_ERROR_STATUS.header_denied, meaning: 'A request header is not allowed by the destination.' },
  destination_denied: { status: GATEWAY_ERROR_STATUS.destination_denied, meaning: 'The origin, path or method is not allowed by the destination.' },
  address_denied: { status: GATEWAY_ERROR_STATUS.address_denied, meaning: 'The host resolves to an address calls may not reach.' },
  approval_required: { status: GATEWAY_ERROR_STATUS.approval_required, meaning: 'This method needs an approval (`approval_id`).' },
  approval_invalid: { status: GATEWAY_ERROR_STATUS.approval_invalid, meaning: 'The approval is unknown, expired, or does not match the call.' },
  task_not_claimed: { status: GATEWAY_ERROR_STATUS.task_not_claimed, meaning: 'The task is not one of this Space the caller has claimed.' },
  audit_disabled: { status: GATEWAY_ERROR_STATUS.audit_disabled, meaning: 'The gateway has no audit key, so its ledger cannot be read.' },
  connection_not_found: { status: GATEWAY_ERROR_STATUS.connection_not_found, meaning: 'No external connection of this Space with this id admits the caller.' },
  ticket_replayed: { status: GATEWAY_ERROR_STATUS.ticket_replayed, meaning: 'The ticket was already used.' },
  approval_consumed: { status: GATEWAY_ERROR_STATUS.approval_consumed, meaning: 'The approval was already used.' },
  run_id_reused: { status: GATEWAY_ERROR_STATUS.run_id_reused, meaning: 'A ticket was already issued for this member\'s `run_id`.' },
  invalid_request: { status: GATEWAY_ERROR_STATUS.invalid_request, meaning: 'The credential call or approval is malformed; `detail` names the field.' },
  url_invalid: { status: GATEWAY_ERROR_STATUS.url_invalid, meaning: 'The call\'s URL is not absolute http(s), not in its canonical form, or holds a path that could reach elsewhere.' },
  task_required: { status: GATEWAY_ERROR_STATUS.task_required, meaning: 'The connection requires a `task_id`.' },
  too_many_calls: { status: GATEWAY_ERROR_STATUS.too_many_calls, meaning: 'Too many credential calls at once; retry after `Retry-After` seconds.' },
  upstream_error: { status: GATEWAY_ERROR_STATUS.upstream_error, meaning: 'The external service could not be reached or answered badly.' },
  response_too_large: { status: GATEWAY_ERROR_STATUS.response_too_large, meaning: 'The external service\'s answer is larger than the destination allows.' },
  gateway_unavailable: { status: GATEWAY_ERROR_STATUS.gateway_unavailable, meaning: 'The credential gateway is not configured, unreachable, or failed.' },
  gateway_busy: { status: GATEWAY_ERROR_STATUS.gateway_busy, meaning: 'The credential gateway is busy; retry after `Retry-After` seconds.' },
  audit_unavailable: { status: GATEWAY_ERROR_STATUS.audit_unavailable, meaning: 'The gateway\'s ledger cannot be read right now.' },
  upstream_timeout: { status: GATEWAY_ERROR_STATUS.upstream_timeout, meaning: 'The external service did not answer in time.' },
} as const satisfies Record<string, { status: number; meaning: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
export type ErrorStatus = (typeof ERROR_CATALOGUE)[ErrorCode]['status'];

/** The codes whose status is `S`. */
export type ErrorCodeOf<S extends ErrorStatus> = { [C in ErrorCode]: (typeof ERROR_CATALOGUE)[C]['status'] extends S ? C : never }[ErrorCode];

/** The RFC 6749 `error` values Atrium's OAuth endpoints answer, each catalogued as `oauth_<error>`. */
export type OAuthErrorName = OAuthName<ErrorCode>;
type OAuthName<C> = C extends `oauth_${infer Name}` ? Name : never;

/** The header every REST error answer carries, holding its code. */
export const ERROR_CODE_HEADER = 'atrium-error';

export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_CATALOGUE, code);
}

export function errorStatus(code: ErrorCode): ErrorStatus {
  return ERROR_CATALOGUE[code].status;
}

/**
 * The code of an answer that carries none of its own (a refusal from a
 * library, or the web app's routes), by status: the least specific codes.
 */
export const CODE_BY_STATUS: Partial<Record<number, ErrorCode>> = {
  400: 'http_malformed',
  401: 'credential_required',
  404: 'route_not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  408: 'request_timeout',
  413: 'body_too_large',
  415: 'unsupported_media_type',
  422: 'validation_failed',
  429: 'rate_limited',
  431: 'headers_too_large',
  500: 'internal_error',
  503: 'host_busy',
};

/** Every gateway code belongs to the catalogue with the status the gateway gives it. */
const _gatewayCodesCatalogued: { [C in keyof typeof GATEWAY_ERROR_STATUS]: { status: (typeof GATEWAY_ERROR_STATUS)[C] } } = ERROR_CATALOGUE;
void _gatewayCodesCatalogued;
