import { AtriumError } from '../shared/errors.js';
import { GATEWAY_ERROR_STATUS, type GatewayErrorCode } from '../shared/gateway-wire.js';

/**
 * A credential refusal as the service answers it: the status the code has
 * everywhere (the gateway's `/v1` answers the same code with the same status),
 * and a `{detail}` that starts with the code, so a client can tell
 * `approval_required` from `header_denied` without parsing prose.
 */
export function refuse(code: GatewayErrorCode, detail: string, headers: Record<string, string> = {}): CredentialRefusal {
  return new CredentialRefusal(code, detail, headers);
}

/** A credential refusal that keeps its code, for the few places that answer one code differently. */
export class CredentialRefusal extends AtriumError {
  constructor(
    readonly code: GatewayErrorCode,
    detail: string,
    headers: Record<string, string>,
  ) {
    super(GATEWAY_ERROR_STATUS[code], `${code}: ${detail}`, headers);
  }
}

export function isGatewayErrorCode(code: unknown): code is GatewayErrorCode {
  return typeof code === 'string' && Object.hasOwn(GATEWAY_ERROR_STATUS, code);
}
