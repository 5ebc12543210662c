/**
 * Helpers for hosts testing their integration with indiestack: the Micropub
 * handler conformance suite, the reference in-memory handler and a manual
 * clock. Never imported by runtime code.
 * @module
 */
export { createManualClock } from '../core/clock.js';
export { createMemoryHandler, BUILT_IN_POST_TYPES, BUILT_IN_QUERIES, type MemoryHandlerOptions } from '../micropub/handlers/memory.js';
export {
  describeMicropubHandlerContract,
  type ContractExpectation,
  type ContractOptions,
  type ContractRunner,
} from './micropub-contract.js';
