import { GATEWAY_ERROR_STATUS, type GatewayErrorCode } from '../shared/gateway-wire.js';

/** A refusal the gateway answers with `{code, detail}` and the one status its code has. */
export class GatewayError extends Error {
  readonly status: number;
  constructor(
    readonly code: GatewayErrorCode,
    readonly detail: string,
  ) {
    super(`${code}: ${detail}`);
    this.name = 'GatewayError';
    this.status = GATEWAY_ERROR_STATUS[code];
  }
}

/** The gateway's configuration cannot be used; the process stops at start with this message. */
export class GatewayConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GatewayConfigError';
  }
}
