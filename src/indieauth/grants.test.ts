import { describe, expect, it } from 'vitest';
import type { RefreshTokenRecord } from '../storage/repositories/refresh-tokens.js';
import type { TokenRecord } from '../storage/repositories/tokens.js';
import { groupByClient, liveGrants } from './grants.js';

const NOW = '2026-01-10T00:00:00.000Z';
const base = { userId: 'u1', clientId: 'https://app.example/', me: 'https://alice.example/' };

function access(id: string, grantId: string, extra: Partial<TokenRecord> = {}): TokenRecord {
  return {
    ...base,
    id,
    grantId,
    scope: 'create',
    createdAt: '2026-01-01T00:00:00.000Z',
    expiresAt: '2026-01-02T00:00:00.000Z',
    lastUsedAt: null,
    revokedAt: null,
    ...extra,
  };
}

function refresh(id: string, grantId: string, extra: Partial<RefreshTokenRecord> = {}): RefreshTokenRecord {
  return {
    ...base,
    id,
    grantId,
    scope: 'create update',
    createdAt: '2026-01-01T00:00:00.000Z',
    expiresAt: '2026-01-31T00:00:00.000Z',
    usedAt: null,
    revokedAt: null,
    ...extra,
  };
}

describe('liveGrants', () => {
  it('keeps a grant whose access token expired while its refresh token lives, with the refresh expiry and the approved scope', () => {
    const [grant, ...rest] = liveGrants([access('a1', 'g1', { lastUsedAt: '2026-01-01T12:00:00.000Z' })], [refresh('r1', 'g1')], NOW);
    expect(rest).toEqual([]);
    expect(grant).toEqual({
      ...base,
      grantId: 'g1',
      scope: 'create update',
      createdAt: '2026-01-01T00:00:00.000Z',
      expiresAt: '2026-01-31T00:00:00.000Z',
      lastUsedAt: '2026-01-01T12:00:00.000Z',
      accessTokens: 0,
      refreshable: true,
    });
  });

  it('drops grants with nothing usable: revoked, expired, or only used refresh tokens', () => {
    const grants = liveGrants(
      [access('a1', 'g1', { revokedAt: NOW, expiresAt: null }), access('a2', 'g2'), access('a3', 'g3')],
      [
        refresh('r1', 'g1', { revokedAt: NOW }),
        refresh('r2', 'g2', { usedAt: '2026-01-01T01:00:00.000Z' }),
        refresh('r3', 'g3', { expiresAt: NOW }),
      ],
      NOW,
    );
    expect(grants).toEqual([]);
  });

  it('one entry per grant, a token without expiry makes it never expire; newest first', () => {
    const grants = liveGrants(
      [
        access('a1', 'g1', { expiresAt: null }),
        access('a2', 'g1', { expiresAt: '2026-02-01T00:00:00.000Z' }),
        access('b1', 'g2', { createdAt: '2026-01-05T00:00:00.000Z', expiresAt: '2026-02-01T00:00:00.000Z' }),
      ],
      [],
      NOW,
    );
    expect(grants.map((g) => [g.grantId, g.expiresAt, g.accessTokens])).toEqual([
      ['g2', '2026-02-01T00:00:00.000Z', 1],
      ['g1', null, 2],
    ]);
  });
});

describe('groupByClient', () => {
  it('keeps each app once, in the order of its first grant, with its grants in order', () => {
    const grants = liveGrants(
      [
        access('a1', 'g1', { createdAt: '2026-01-04T00:00:00.000Z' }),
        access('b1', 'g2', { clientId: 'https://other.example/', createdAt: '2026-01-03T00:00:00.000Z' }),
        access('a2', 'g3', { createdAt: '2026-01-02T00:00:00.000Z' }),
      ].map((token) => ({ ...token, expiresAt: null })),
      [],
      NOW,
    );
    expect(groupByClient(grants).map((client) => [client.clientId, client.grants.map((g) => g.grantId)])).toEqual([
      ['https://app.example/', ['g1', 'g3']],
      ['https://other.example/', ['g2']],
    ]);
    expect(groupByClient([])).toEqual([]);
  });
});
