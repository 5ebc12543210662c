/**
 * Content negotiation: which representation a client asked for.
 * @module
 */
import accepts from 'accepts';
import type { FastifyRequest } from 'fastify';

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';

/** True when the client prefers JSON over form encoding: JSON ranks higher in its Accept header (`*\/*` or no header: form). */
export function prefersJson(request: FastifyRequest): boolean {
  return accepts(request.raw).type([FORM, JSON_TYPE]) === JSON_TYPE;
}
