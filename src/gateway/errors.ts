import { GATEWAY_ERROR_STATUS, RETRY_LATER_SECONDS, type GatewayErrorCode } from '../shared/gateway-wire.js';

/** A refusal the gateway answers with `{code, detail}`, the one status its code has, and `Retry-After` for a refusal about load. */
export class GatewayError extends Error {
  readonly status: number;
  readonly retryAfter: number | undefined;
  constructor(
    readonly code: GatewayErrorCode,
    readonly detail: string,
  ) {
    super(`${code}: ${detail}`);
    this.name = 'GatewayError';
    this.status = GATEWAY_ERROR_STATUS[code];
    this.retryAfter = RETRY_LATER_SECONDS[code];
  }
}

/** The gateway's configuration cannot be used; the process stops at start with this message. */
export class GatewayConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GatewayConfigError';
  }
}
