/**
 * The Write area of the admin: Write (a form per post type), Posts (the
 * list, delete, restore) and Edit, all publishing through the Micropub
 * endpoint in process (micropub-client.ts); and its script.
 * @module
 */
import type { FastifyInstance } from 'fastify';
import { editPages } from './edit-page.js';
import { postsPages } from './posts-page.js';
import { writeScriptRoute } from './script.js';
import { writePages, type WritePagesDeps } from './write-page.js';

export type { WritePagesDeps } from './write-page.js';

/** The pages, in the admin's guarded scope. */
export function writeArea(app: FastifyInstance, deps: WritePagesDeps): void {
  writePages(app, deps);
  postsPages(app, deps);
  editPages(app, deps);
}

/** The script, outside the guard (a static file). */
export { writeScriptRoute };
