/**
 * indiestack: the IndieWeb back end for a personal website.
 *
 * Standalone: `npx indiestack serve`. Plugin mode: register {@link indieweb}
 * in your own Fastify application.
 * @module
 */
export { indieweb, type IndieWebPluginOptions } from './app/plugin.js';
export type { IndieWebContext } from './app/context.js';
export { createServer, openDatabase, type CreateServerOptions, type StandaloneServer } from './app/server.js';
export { loadConfig, type LoadConfigOptions } from './config/env.js';
export { SETTINGS, type SettingDoc } from './config/settings.js';
export type { Config, ConfigOverrides, DatabaseLocation, LogLevel, MediaConfig } from './config/config.js';
export { createDatabase, type DatabaseHandle, type DialectName } from './storage/connect.js';
export { migrateToLatest } from './storage/migrate.js';
export type { Clock } from './core/clock.js';
export { systemClock } from './core/clock.js';
export { isIndieWebError, IndieWebError, ConfigError } from './core/errors.js';
export { hasScope, normalizeScope } from './core/scope.js';
export * from './contracts/index.js';
export { sendWebmentions, type SendResult, type SendStatus, type SendProgress, type SendWebmentionsOptions } from './webmention/send.js';
export { discoverEndpoint, type DiscoveredEndpoint } from './webmention/discover.js';
export type { WebmentionReceivedEvent } from './webmention/events.js';
export { createOutbound, type Outbound, type OutboundOptions } from './outbound/fetch.js';
export { addMetricsRoute, type MetricsRouteOptions } from './operations/metrics/http.js';
export type { Metrics } from './operations/metrics/metrics.js';
export { renderHCard, linkTags, type HCardProfile } from './profile/template-helpers.js';
export { validateHCard, HCardValidationError, type HCardProblem } from './profile/h-card.js';
export { createFilesHandler } from './content/handlers/files/handler.js';
export { createMemoryHandler } from './content/handlers/memory.js';
export { createDatabaseHandler, type DatabaseHandlerOptions } from './content/handlers/database/handler.js';
export { createEntriesRepository, type EntriesRepository, type EntryRow } from './storage/repositories/entries.js';
export { escapeHtml } from './web/html.js';
export type { EntryTemplates, DocumentView, EntryPageView, HomePageView, GonePageView, OwnerView } from './entries/templates.js';
