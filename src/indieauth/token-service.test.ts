import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../core/clock.js';
import { createDatabase, type DatabaseHandle } from '../storage/connect.js';
import { migrateToLatest } from '../storage/migrate.js';
import { createRefreshTokensRepository } from '../storage/repositories/refresh-tokens.js';
import { createTokensRepository } from '../storage/repositories/tokens.js';
import { createTransactor } from '../storage/unit-of-work.js';
import { createTokenService, type TokenService } from './token-service.js';

const USER = { id: 'u1', name: 'alice', me: ['https://alice.example/'], isActive: true };

describe('token validation with a change stamp (SQLite)', () => {
  let dir: string;
  let handle: DatabaseHandle;
  let service: TokenService;
  let readings: number;
  let active: boolean;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'indiestack-token-service-'));
    handle = createDatabase({ kind: 'sqlite', filename: path.join(dir, 'data.sqlite') });
    const { error } = await migrateToLatest(handle.db);
    if (error !== undefined) throw error;
    readings = 0;
    active = true;
    service = createTokenService({
      tokens: createTokensRepository(handle.db),
      refreshTokens: createRefreshTokensRepository(handle.db),
      transact: createTransactor(handle.db),
      findUser: (id) => (id === USER.id ? { ...USER, isActive: active } : null),
      clock: createManualClock(new Date()),
      changeStamp: () => {
        readings++;
        return handle.changeStamp();
      },
    });
  });
  afterEach(async () => {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('an in-process token writes no row, works for its owner while active and unexpired, and not after end()', async () => {
    const clock = createManualClock(new Date());
    const own = createTokenService({
      tokens: createTokensRepository(handle.db),
      refreshTokens: createRefreshTokensRepository(handle.db),
      transact: createTransactor(handle.db),
      findUser: (id) => (id === USER.id ? { ...USER, isActive: active } : null),
      clock,
    });
    const input = { userId: USER.id, clientId: 'https://app.example/', me: 'https://alice.example/', scope: 'create', expiresIn: 60 };
    const first = own.issueInProcess(input);
    expect(await handle.db.selectFrom('indieweb_token').selectAll().execute()).toEqual([]);
    expect((await own.validate(first.token))?.token.scope).toBe('create');
    // another service (another instance) never knows it
    expect(await service.validate(first.token)).toBeNull();
    active = false;
    expect(await own.validate(first.token)).toBeNull();
    active = true;
    first.end();
    expect(await own.validate(first.token)).toBeNull();
    const second = own.issueInProcess(input);
    clock.advance(60);
    expect(await own.validate(second.token)).toBeNull();
    expect(() => own.issueInProcess({ ...input, expiresIn: 301 })).toThrow(/at most 300 seconds/);
  });

  const issue = async () =>
    (
      await service.issue({
        userId: USER.id,
        clientId: 'https://app.example/',
        me: 'https://alice.example/',
        scope: 'create',
        expiresIn: null,
      })
    ).token;

  it('validations started together share one reading of the stamp', async () => {
    const token = await issue();
    await service.validate(token);
    readings = 0;
    const results = await Promise.all(Array.from({ length: 25 }, () => service.validate(token)));
    expect(results.every((result) => result?.user.id === USER.id)).toBe(true);
    expect(readings).toBe(1);
  });

  it('reads the stamp after the call: a revocation committed right after validate() is called is seen', async () => {
    const token = await issue();
    expect(await service.validate(token)).not.toBeNull();
    expect(await service.validate(token)).not.toBeNull();
    const pending = service.validate(token);
    // committed by the same turn's code after the call, before the stamp is read
    const record = await service.findByToken(token);
    await service.revoke(record!.id);
    expect(await pending).toBeNull();
  });

  it('a remembered token is used again only while nothing was written', async () => {
    const token = await issue();
    await service.validate(token);
    await service.validate(token);
    // findUser is not asked again while the database is unchanged (why host-provided accounts get no stamp)
    active = false;
    expect(await service.validate(token)).not.toBeNull();
    await issue();
    expect(await service.validate(token)).toBeNull();
  });
});
