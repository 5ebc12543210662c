import { EventEmitter } from 'node:events';

/**
 * Emitted once per accepted submission (new or re-sent), before processing.
 * @see SPEC.md "Events"
 */
export interface WebmentionReceivedEvent {
  /** The last segment of the status URL. */
  readonly id: string;
  readonly source: string;
  readonly target: string;
  /** Absolute URL of the status view. */
  readonly statusUrl: string;
  /** False when the same source/target pair was sent before. */
  readonly isNew: boolean;
  /** ISO-8601 time of receipt. */
  readonly receivedAt: string;
}

export interface WebmentionEventMap {
  webmention_received: [WebmentionReceivedEvent];
}

/** Typed emitter for `webmention_received`; listener errors are contained by the caller. */
export class WebmentionEvents extends EventEmitter<WebmentionEventMap> {}
