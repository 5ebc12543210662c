/**
 * What hosts implement or receive. Importing this subpath pulls in neither
 * Fastify nor Kysely.
 * @module
 */
export type { Accounts, AccountsRequest, HostUser } from './accounts.js';
export type { ClientIdValidator, UrlPolicy, UrlPolicyKind } from './policies.js';
export { HandlerValueError, isHandlerValueError } from './handler-errors.js';
export type { MicropubHandler, MicropubHandlerFactory, MicropubHandlerFactoryOptions } from './micropub-handler.js';
export type { MediaStorage } from './media-storage.js';
export type {
  Channel,
  MediaObject,
  MicropubConfig,
  MicropubEntry,
  MicropubProperties,
  NewEntry,
  Page,
  PageRequest,
  PostType,
  SyndicationTarget,
  UpdateOperations,
} from './micropub-types.js';
