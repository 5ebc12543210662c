/**
 * Helpers for hosts testing their integration with indiestack: the Micropub
 * handler conformance suite, the reference in-memory handler, the rules the
 * built-in handlers share (post types, queries, update order) for authors of
 * host handlers, and a manual clock. Never imported by runtime code.
 * @module
 */
export { createManualClock } from '../core/clock.js';
export { createMemoryHandler, type MemoryHandlerOptions } from '../content/handlers/memory.js';
export { applyUpdate, BUILT_IN_POST_TYPES, BUILT_IN_QUERIES } from '../content/handlers/entry-rules.js';
export {
  describeMicropubHandlerContract,
  type ContractExpectation,
  type ContractOptions,
  type ContractRunner,
} from './micropub-contract.js';
