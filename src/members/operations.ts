import type { AnyOperation } from '../operations/operation.js';

/** Members and agents (decisions §5). */
export const memberOperations: AnyOperation[] = [];
