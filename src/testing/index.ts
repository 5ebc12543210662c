/**
 * Helpers for hosts testing their integration with indiestack. Never
 * imported by runtime code.
 * @module
 */
export { createManualClock } from '../core/clock.js';
