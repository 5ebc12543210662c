/**
 * Rows of the settings table: what an operator watches (metrics).
 * @module
 */
import { secret } from '../parsers.js';
import { defineSetting, type Setting } from '../setting.js';

export const OPERATIONS_SETTINGS: readonly Setting[] = [
  defineSetting({
    name: 'INDIEWEB_METRICS_TOKEN',
    key: 'metricsToken',
    parser: secret(32),
    default: null,
    shownDefault: '(unset: metrics off)',
    description:
      'Bearer token (at least 32 characters) a Prometheus scraper sends to `GET /metrics`; without it metrics are off and `/metrics` is 404 (docs/operations.md).',
  }),
];
