import type { AnyOperation } from '../operations/operation.js';

/** Role assignments (decisions §4). */
export const roleOperations: AnyOperation[] = [];
