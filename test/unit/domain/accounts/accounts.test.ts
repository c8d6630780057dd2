import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import {
  addCredits,
  authenticate,
  createAccount,
  effectiveMaxObservations,
  limitsOf,
  requireAccount,
  revokeApiKey,
  setEventDelivery,
  setRequestRate,
  trustHost,
} from '../../../../functions/domain/accounts/accounts.js';
import { ApiError } from '../../../../functions/domain/errors.js';
import { idPattern } from '../../../../functions/domain/ids.js';
import type { Account, ApiKeyRecord, LedgerEntry } from '../../../../functions/domain/accounts/model.js';
import type { AccountStore } from '../../../../functions/domain/accounts/ports.js';
import type { PlanLimits } from '../../../../functions/domain/accounts/plans.js';
import { ACCOUNT_ID, testAccount } from '../../../helpers/unit-fixtures.js';

const VALID_KEY = `sk_live_${'aB3'.repeat(13)}x`;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function fakeStore(options: { key?: ApiKeyRecord; account?: Account } = {}) {
  return {
    findApiKey: vi.fn((keyHash: string) => Promise.resolve(options.key && options.key.keyHash === keyHash ? options.key : undefined)),
    getAccount: vi.fn((accountId: string) => Promise.resolve(options.account?.accountId === accountId ? options.account : undefined)),
    createAccount: vi.fn((_account: Account, _key: ApiKeyRecord, _opening: LedgerEntry) => Promise.resolve()),
    addApiKey: vi.fn(() => Promise.resolve()),
    revokeApiKey: vi.fn((_keyHash: string, _revokedAt: string) => Promise.resolve(true)),
    listApiKeys: vi.fn(() => Promise.resolve([])),
    revokeApiKeyById: vi.fn(() => Promise.resolve(undefined)),
    recordApiKeyUse: vi.fn(() => Promise.resolve()),
    listLedger: vi.fn(() => Promise.resolve({ items: [], nextCursor: null })),
    addCredits: vi.fn((_accountId: string, entry: LedgerEntry) => Promise.resolve(100 + entry.credits)),
    addTrustedHost: vi.fn((_accountId: string, hostname: string) => Promise.resolve([hostname])),
    setEventDelivery: vi.fn((accountId: string, _enabled: boolean) => Promise.resolve(options.account?.accountId === accountId)),
    setLimitOverrides: vi.fn((accountId: string, _overrides: Partial<PlanLimits>) => Promise.resolve(options.account?.accountId === accountId)),
  } satisfies AccountStore;
}

const keyRecord = (overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  keyHash: sha256(VALID_KEY),
  accountId: ACCOUNT_ID,
  lastUsedAt: null,
  revokedAt: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  ...overrides,
});

async function authError(store: AccountStore, header: string | undefined): Promise<ApiError> {
  const error = await authenticate(store, header).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
}

describe('authenticate', () => {
  it('resolves a valid Bearer key to its account', async () => {
    const store = fakeStore({ key: keyRecord() });
    await expect(authenticate(store, `Bearer ${VALID_KEY}`)).resolves.toMatchObject({ accountId: ACCOUNT_ID });
  });

  it('accepts sk_test_ keys too', async () => {
    const testKey = `sk_test_${'Z9'.repeat(20)}`;
    const store = fakeStore({ key: keyRecord({ keyHash: sha256(testKey) }) });
    await expect(authenticate(store, `Bearer ${testKey}`)).resolves.toMatchObject({ accountId: ACCOUNT_ID });
  });

  it('looks the key up by its SHA-256 only: the key itself never reaches the store', async () => {
    const store = fakeStore({ key: keyRecord() });
    await authenticate(store, `Bearer ${VALID_KEY}`);
    expect(store.findApiKey).toHaveBeenCalledExactlyOnceWith(sha256(VALID_KEY));
    for (const fn of Object.values(store)) {
      for (const args of fn.mock.calls) expect(JSON.stringify(args)).not.toContain(VALID_KEY);
    }
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['no scheme', VALID_KEY],
    ['Basic scheme', `Basic ${VALID_KEY}`],
    ['two tokens', `Bearer ${VALID_KEY} extra`],
    ['short key', `Bearer sk_live_${'a'.repeat(39)}`],
    ['long key', `Bearer sk_live_${'a'.repeat(41)}`],
    ['bad prefix', `Bearer pk_live_${'a'.repeat(40)}`],
    ['non-base62 body', `Bearer sk_live_${'a'.repeat(39)}-`],
  ])('answers 401 unauthorized for a %s header without asking the store', async (_label, header) => {
    const store = fakeStore({ key: keyRecord() });
    const error = await authError(store, header);
    expect(error.code).toBe('unauthorized');
    expect(error.status).toBe(401);
    expect(store.findApiKey).not.toHaveBeenCalled();
  });

  it('answers 401 for a well-formed key nobody issued', async () => {
    const store = fakeStore({ key: keyRecord() });
    const error = await authError(store, `Bearer sk_live_${'Q'.repeat(40)}`);
    expect(error.code).toBe('unauthorized');
    expect(store.findApiKey).toHaveBeenCalledOnce();
  });

  it('answers 401 for a revoked key, with the same message as an unknown one', async () => {
    const revoked = await authError(fakeStore({ key: keyRecord({ revokedAt: '2026-01-02T00:00:00.000Z' }) }), `Bearer ${VALID_KEY}`);
    const unknown = await authError(fakeStore(), `Bearer ${VALID_KEY}`);
    expect(revoked.code).toBe('unauthorized');
    expect(revoked.message).toBe(unknown.message);
  });

  it('never echoes the key in the error', async () => {
    const error = await authError(fakeStore(), `Bearer ${VALID_KEY}`);
    expect(error.message).not.toContain(VALID_KEY);
  });
});

describe('requireAccount', () => {
  it('treats a key whose account is gone as unauthorized', async () => {
    await expect(requireAccount(fakeStore(), ACCOUNT_ID)).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(requireAccount(fakeStore({ account: testAccount() }), ACCOUNT_ID)).resolves.toMatchObject({ accountId: ACCOUNT_ID });
  });
});

describe('createAccount', () => {
  it('issues an sk_live_ key of 40 base62 characters and stores only its hash', async () => {
    const store = fakeStore();
    const { account, apiKey } = await createAccount(store, { plan: 'hobby', credits: 25 });

    expect(apiKey).toMatch(/^sk_live_[0-9A-Za-z]{40}$/);
    expect(account.accountId).toMatch(idPattern('account'));
    expect(store.createAccount).toHaveBeenCalledOnce();
    const [storedAccount, key, opening] = store.createAccount.mock.calls[0]!;
    expect(key).toEqual({
      keyHash: sha256(apiKey),
      accountId: account.accountId,
      keyId: key.keyId,
      name: 'default',
      prefix: apiKey.slice(0, 12),
      createdAt: account.createdAt,
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(key.keyId).toMatch(idPattern('apiKey'));
    expect(JSON.stringify(store.createAccount.mock.calls)).not.toContain(apiKey);
    expect(storedAccount).toMatchObject({ plan: 'hobby', creditsBalance: 25, maxObservations: null, trustedHosts: [], concurrencyInUse: 0 });
    expect(opening).toMatchObject({ credits: 25, reason: 'account_opened' });
    expect(opening.entryId).toMatch(idPattern('ledger'));
  });

  it('draws a fresh key each time', async () => {
    const store = fakeStore();
    const keys = new Set<string>();
    for (let i = 0; i < 20; i++) keys.add((await createAccount(store, { plan: 'beginner', credits: 0 })).apiKey);
    expect(keys.size).toBe(20);
  });

  it('uses a supplied key when it is well formed and refuses one that is not', async () => {
    const store = fakeStore();
    await expect(createAccount(store, { plan: 'creator', credits: 1, apiKey: VALID_KEY })).resolves.toMatchObject({ apiKey: VALID_KEY });
    await expect(createAccount(store, { plan: 'creator', credits: 1, apiKey: 'sk_live_short' })).rejects.toMatchObject({
      code: 'validation_failed',
      param: 'api_key',
    });
    expect(store.createAccount).toHaveBeenCalledOnce();
  });

  it('keeps a per-account observation cap', async () => {
    const { account } = await createAccount(fakeStore(), { plan: 'creator', credits: 0, maxObservations: 12 });
    expect(account.maxObservations).toBe(12);
  });

  it("stores a contracted request rate as overrides of the plan's", async () => {
    const { account } = await createAccount(fakeStore(), { plan: 'hobby', credits: 0, requestRate: { perSecond: 3, burst: 7 } });
    expect(account.limitOverrides).toEqual({ requestsPerSecond: 3, requestBurst: 7 });
    expect(limitsOf(account)).toMatchObject({ requestsPerSecond: 3, requestBurst: 7, concurrency: 2 });
  });
});

describe('setRequestRate', () => {
  it('sets both limits, refuses what is not a whole number of at least 1, and answers 404 for an unknown account', async () => {
    const s = fakeStore({ account: testAccount() });
    await setRequestRate(s, ACCOUNT_ID, { perSecond: 40, burst: 400 });
    expect(s.setLimitOverrides).toHaveBeenCalledWith(ACCOUNT_ID, { requestsPerSecond: 40, requestBurst: 400 });
    for (const rate of [
      { perSecond: 0, burst: 10 },
      { perSecond: 2.5, burst: 10 },
      { perSecond: 10, burst: -1 },
    ]) {
      await expect(setRequestRate(s, ACCOUNT_ID, rate)).rejects.toMatchObject({ code: 'validation_failed' });
    }
    await expect(setRequestRate(s, 'acct_unknown', { perSecond: 1, burst: 1 })).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('revokeApiKey', () => {
  it('revokes by hash and answers 404 for an unknown key', async () => {
    const store = fakeStore();
    await revokeApiKey(store, VALID_KEY);
    expect(store.revokeApiKey).toHaveBeenCalledWith(sha256(VALID_KEY), expect.any(String));
    store.revokeApiKey.mockResolvedValueOnce(false);
    await expect(revokeApiKey(store, VALID_KEY)).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('trustHost', () => {
  const store = () => fakeStore({ account: testAccount() });

  it.each([
    ['media.example.com', 'media.example.com'],
    ['Media.Example.COM', 'media.example.com'],
    ['  cdn.example.org  ', 'cdn.example.org'],
    ['a-b.example.co.uk', 'a-b.example.co.uk'],
    ['example.io', 'example.io'],
  ])('stores %j as %j', async (input, stored) => {
    const s = store();
    await expect(trustHost(s, ACCOUNT_ID, input)).resolves.toEqual([stored]);
    expect(s.addTrustedHost).toHaveBeenCalledWith(ACCOUNT_ID, stored);
  });

  it.each([
    ['an IPv4 literal', '192.168.1.10'],
    ['a public IPv4 literal', '8.8.8.8'],
    ['an IPv6 literal', '::1'],
    ['a bracketed IPv6 literal', '[2001:db8::1]'],
    ['localhost', 'localhost'],
    ['LOCALHOST', 'LOCALHOST'],
    ['a .localhost name', 'app.localhost'],
    ['a trailing dot', 'example.com.'],
    ['a single label', 'intranet'],
    ['a URL', 'https://example.com'],
    ['a host with a port', 'example.com:443'],
    ['a path', 'example.com/video'],
    ['a wildcard', '*.example.com'],
    ['a leading hyphen label', '-bad.example.com'],
    ['a trailing hyphen label', 'bad-.example.com'],
    ['an empty label', 'a..example.com'],
    ['an empty string', ''],
    ['a 64-character label', `${'a'.repeat(64)}.example.com`],
  ])('refuses %s', async (_label, hostname) => {
    const s = store();
    const error = await trustHost(s, ACCOUNT_ID, hostname).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'validation_failed', param: 'hostname' });
    expect(s.addTrustedHost).not.toHaveBeenCalled();
  });

  it('answers 404 for an unknown account', async () => {
    await expect(trustHost(fakeStore(), ACCOUNT_ID, 'example.com')).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('addCredits', () => {
  it('adds a positive integer with a credits_added ledger entry and returns the new balance', async () => {
    const store = fakeStore({ account: testAccount() });
    await expect(addCredits(store, ACCOUNT_ID, 40)).resolves.toBe(140);
    const [accountId, entry] = store.addCredits.mock.calls[0]!;
    expect(accountId).toBe(ACCOUNT_ID);
    expect(entry).toMatchObject({ credits: 40, reason: 'credits_added' });
    expect(entry.entryId).toMatch(idPattern('ledger'));
  });

  it.each([0, -5, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('refuses %s credits', async (credits) => {
    const store = fakeStore({ account: testAccount() });
    await expect(addCredits(store, ACCOUNT_ID, credits)).rejects.toMatchObject({ code: 'validation_failed', param: 'credits' });
    expect(store.addCredits).not.toHaveBeenCalled();
  });

  it('answers 404 for an unknown account', async () => {
    const store = fakeStore();
    await expect(addCredits(store, ACCOUNT_ID, 5)).rejects.toMatchObject({ code: 'not_found' });
    expect(store.addCredits).not.toHaveBeenCalled();
  });
});

describe('effectiveMaxObservations', () => {
  it('is the lower of the deployment cap and the account cap', () => {
    expect(effectiveMaxObservations(testAccount({ maxObservations: null }), 50)).toBe(50);
    expect(effectiveMaxObservations(testAccount({ maxObservations: 12 }), 50)).toBe(12);
    expect(effectiveMaxObservations(testAccount({ maxObservations: 40 }), 25)).toBe(25);
  });
});

describe('limitsOf', () => {
  it.each([
    ['beginner', 1, 7],
    ['hobby', 2, 30],
    ['creator', 3, 90],
  ] as const)('%s: concurrency %i, retention %i days', (plan, concurrency, retentionDays) => {
    expect(limitsOf(testAccount({ plan }))).toMatchObject({ concurrency, retentionDays });
  });

  it('gives every plan the same source limits', () => {
    for (const plan of ['beginner', 'hobby', 'creator', 'enterprise'] as const) {
      expect(limitsOf(testAccount({ plan }))).toMatchObject({
        maxVideoBytes: 8 * 1024 ** 3,
        maxAudioBytes: 2 * 1024 ** 3,
        maxSourceMinutes: 120,
      });
    }
  });

  it('lets an enterprise contract override any limit and keeps the rest', () => {
    const limits = limitsOf(testAccount({ plan: 'enterprise', limitOverrides: { concurrency: 25 } }));
    expect(limits.concurrency).toBe(25);
    expect(limits.retentionDays).toBe(365);
    expect(limitsOf(testAccount({ plan: 'enterprise' })).concurrency).toBe(10);
  });
});

describe('setEventDelivery', () => {
  it('switches the account and answers 404 for an unknown one', async () => {
    const s = fakeStore({ account: testAccount() });
    await setEventDelivery(s, ACCOUNT_ID, false);
    expect(s.setEventDelivery).toHaveBeenCalledWith(ACCOUNT_ID, false);
    await expect(setEventDelivery(s, 'acct_unknown', true)).rejects.toMatchObject({ code: 'not_found' });
  });
});
