import { AtriumError } from '../shared/errors.js';
import { GATEWAY_ERROR_STATUS, type GatewayErrorCode } from '../shared/gateway-wire.js';

/**
 * A credential refusal as the service answers it: the code and status the
 * gateway's `/v1` answers too, and a `{detail}` that starts with the code, as
 * it did before codes travelled in `Atrium-Error`.
 */
export function refuse(code: GatewayErrorCode, detail: string, headers: Record<string, string> = {}): CredentialRefusal {
  return new CredentialRefusal(code, detail, headers);
}

/** A credential refusal that keeps its gateway code, for the few places that answer one code differently. */
export class CredentialRefusal extends AtriumError {
  declare readonly code: GatewayErrorCode;
  constructor(code: GatewayErrorCode, detail: string, headers: Record<string, string>) {
    super(code, `${code}: ${detail}`, headers);
  }
}

export function isGatewayErrorCode(code: unknown): code is GatewayErrorCode {
  return typeof code === 'string' && Object.hasOwn(GATEWAY_ERROR_STATUS, code);
}
