import type { AnyOperation } from '../operations/operation.js';

/** Humans, sign-in, sessions and API credentials (decisions §3). */
export const identityOperations: AnyOperation[] = [];
