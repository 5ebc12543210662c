/**
 * IndieAuth server metadata (RFC 8414 shape), for clients that discover the
 * server from `rel="indieauth-metadata"`.
 * @module
 */
import { trimEndOf } from '../core/text.js';

/** Scopes advertised; `draft` is accepted and kept but, as the spec says, never advertised. */
export const SCOPES_SUPPORTED = ['create', 'update', 'delete', 'undelete', 'media', 'profile', 'email'] as const;

export function serverMetadata(baseUrl: string) {
  const base = trimEndOf(baseUrl, '/');
  return {
    issuer: `${base}/`,
    authorization_endpoint: `${base}/indieweb/auth/`,
    token_endpoint: `${base}/indieweb/token/`,
    // RFC 8414: without it a client must assume client_secret_basic; clients here are public
    token_endpoint_auth_methods_supported: ['none'],
    introspection_endpoint: `${base}/indieweb/token/introspect`,
    revocation_endpoint: `${base}/indieweb/token/revoke`,
    revocation_endpoint_auth_methods_supported: ['none'],
    userinfo_endpoint: `${base}/indieweb/userinfo`,
    code_challenge_methods_supported: ['S256', 'plain'],
    scopes_supported: [...SCOPES_SUPPORTED],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    response_types_supported: ['code'],
    // RFC 8414's default is query and fragment; only the query is ever used
    response_modes_supported: ['query'],
    authorization_response_iss_parameter_supported: true,
  };
}

/** Where the metadata document lives. */
export function metadataUrl(baseUrl: string): string {
  return `${trimEndOf(baseUrl, '/')}/.well-known/oauth-authorization-server`;
}
