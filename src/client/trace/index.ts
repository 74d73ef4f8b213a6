export { TraceClient } from './trace-client.js';
export type { CallNode } from './call-tree.js';
export { callName } from './call-name.js';
export type { CallEndInput, CallStartInput, CallUpsertBatchInput, CallsIterateOptions } from './calls.js';
export type * as TraceTypes from './types/index.js';
