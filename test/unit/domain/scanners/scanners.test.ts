import { describe, expect, it, vi } from 'vitest';
import {
  applyPatch,
  assertValidDefinition,
  createScanner,
  getScanner,
  listScannerVersions,
  updateScanner,
  type ScannerDeps,
} from '../../../../functions/domain/scanners/scanners.js';
import { ApiError } from '../../../../functions/domain/errors.js';
import { idPattern } from '../../../../functions/domain/ids.js';
import type { ScannerRecord, ScannerDefinition } from '../../../../functions/domain/scanners/model.js';
import type { ScannerStore } from '../../../../functions/domain/scanners/ports.js';
import { ACCOUNT_ID, testAccount } from '../../../helpers/unit-fixtures.js';

const CAP = 50;
const account = testAccount();

const base = { name: 'Scanner', instructions: 'Find the loud parts.' } as const;
const classifier = (labels?: string[]): ScannerDefinition => ({ ...base, type: 'classifier', ...(labels ? { output: { labels } } : {}) });
const extractor = (fields?: string[]): ScannerDefinition => ({ ...base, type: 'extractor', ...(fields ? { output: { fields } } : {}) });
const findMoments = (extra: Partial<ScannerDefinition> = {}): ScannerDefinition => ({ ...base, type: 'find_moments', ...extra });

/** The ApiError the call throws, so a test can assert its code and param together. */
function apiErrorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError, nothing was thrown');
}

const rejects = (definition: ScannerDefinition, param: string, cap = CAP, acct = account) => {
  const error = apiErrorOf(() => assertValidDefinition(definition, acct, cap));
  expect(error.code).toBe('validation_failed');
  expect(error.status).toBe(400);
  expect(error.param).toBe(param);
  return error;
};

describe('assertValidDefinition: classifier labels', () => {
  it('requires output.labels on a classifier', () => {
    rejects(classifier(), 'output.labels');
    rejects({ ...base, type: 'classifier', output: {} }, 'output.labels');
  });

  it('accepts 2 to 50 distinct labels', () => {
    expect(() => assertValidDefinition(classifier(['happy', 'sad']), account, CAP)).not.toThrow();
    const fifty = Array.from({ length: 50 }, (_, i) => `label ${i}`);
    expect(() => assertValidDefinition(classifier(fifty), account, CAP)).not.toThrow();
  });

  it('rejects duplicate labels case-insensitively and names the duplicate', () => {
    const error = rejects(classifier(['Goal', 'miss', 'GOAL']), 'output.labels[2]');
    expect(error.message).toContain('GOAL');
  });

  it('reserves "other" in any case, since it is the fallback answer', () => {
    rejects(classifier(['goal', 'other']), 'output.labels[1]');
    rejects(classifier(['OTHER', 'goal']), 'output.labels[0]');
    rejects(classifier(['goal', 'Other']), 'output.labels[1]');
    expect(() => assertValidDefinition(classifier(['goal', 'others']), account, CAP)).not.toThrow();
  });

  it('refuses labels on any other type', () => {
    for (const type of ['find_moments', 'monitor', 'scorer', 'summarizer'] as const) {
      rejects({ ...base, type, output: { labels: ['a', 'b'] } }, 'output.labels');
    }
    rejects({ ...base, type: 'extractor', output: { labels: ['a', 'b'], fields: ['x'] } }, 'output.labels');
  });
});

describe('assertValidDefinition: extractor fields', () => {
  it('requires output.fields on an extractor', () => {
    rejects(extractor(), 'output.fields');
    rejects({ ...base, type: 'extractor', output: {} }, 'output.fields');
  });

  it('accepts distinct fields', () => {
    expect(() => assertValidDefinition(extractor(['duration', 'scene_count']), account, CAP)).not.toThrow();
  });

  it('rejects a duplicate field and names the second occurrence', () => {
    const error = rejects(extractor(['duration', 'speaker', 'duration']), 'output.fields[2]');
    expect(error.message).toContain('duration');
  });

  it('refuses fields on any other type', () => {
    for (const type of ['find_moments', 'monitor', 'scorer', 'summarizer'] as const) {
      rejects({ ...base, type, output: { fields: ['duration'] } }, 'output.fields');
    }
    rejects({ ...base, type: 'classifier', output: { labels: ['a', 'b'], fields: ['duration'] } }, 'output.fields');
  });
});

describe('assertValidDefinition: moment lengths', () => {
  it('allows min_seconds and max_seconds on find_moments, min equal to max included', () => {
    expect(() => assertValidDefinition(findMoments({ min_seconds: 5, max_seconds: 600 }), account, CAP)).not.toThrow();
    expect(() => assertValidDefinition(findMoments({ min_seconds: 30, max_seconds: 30 }), account, CAP)).not.toThrow();
    expect(() => assertValidDefinition(findMoments({ min_seconds: 30 }), account, CAP)).not.toThrow();
  });

  it('rejects min_seconds above max_seconds', () => {
    rejects(findMoments({ min_seconds: 31, max_seconds: 30 }), 'min_seconds');
  });

  it('refuses min_seconds / max_seconds on every other type', () => {
    for (const type of ['monitor', 'scorer', 'summarizer'] as const) {
      rejects({ ...base, type, min_seconds: 10 }, 'min_seconds');
      rejects({ ...base, type, max_seconds: 10 }, 'max_seconds');
    }
    rejects({ ...classifier(['a', 'b']), min_seconds: 10, max_seconds: 20 }, 'min_seconds');
  });
});

describe('assertValidDefinition: max_observations cap', () => {
  it('accepts exactly the deployment cap and refuses one above it', () => {
    expect(() => assertValidDefinition(findMoments({ max_observations: 20 }), account, 20)).not.toThrow();
    const error = rejects(findMoments({ max_observations: 21 }), 'max_observations', 20);
    expect(error.message).toContain('20');
  });

  it("uses the account's own lower cap", () => {
    const capped = testAccount({ maxObservations: 10 });
    expect(() => assertValidDefinition(findMoments({ max_observations: 10 }), capped, CAP)).not.toThrow();
    rejects(findMoments({ max_observations: 11 }), 'max_observations', CAP, capped);
  });

  it('never lets an account cap raise the deployment cap', () => {
    const generous = testAccount({ maxObservations: 50 });
    rejects(findMoments({ max_observations: 31 }), 'max_observations', 30, generous);
  });

  it('leaves an absent max_observations alone', () => {
    expect(() => assertValidDefinition(findMoments(), testAccount({ maxObservations: 1 }), 1)).not.toThrow();
  });
});

describe('applyPatch', () => {
  const current: ScannerDefinition = {
    name: 'Highlights',
    instructions: 'Find the loud parts.',
    type: 'find_moments',
    profile: 'gameplay',
    max_observations: 10,
    min_seconds: 10,
    max_seconds: 60,
    metadata: { team: 'red' },
  };

  it('keeps every field the patch does not mention', () => {
    expect(applyPatch(current, { name: 'Renamed' })).toEqual({ ...current, name: 'Renamed' });
  });

  it('clears optional fields sent as null', () => {
    const patched = applyPatch(current, { profile: null, max_observations: null, metadata: null });
    expect(patched).not.toHaveProperty('profile');
    expect(patched).not.toHaveProperty('max_observations');
    expect(patched).not.toHaveProperty('metadata');
    expect(patched.min_seconds).toBe(10);
  });

  it('replaces objects whole rather than merging them', () => {
    expect(applyPatch(current, { metadata: { season: 3 } }).metadata).toEqual({ season: 3 });
  });

  it('ignores keys explicitly set to undefined', () => {
    expect(applyPatch(current, { name: undefined, instructions: 'Other words.' })).toEqual({ ...current, instructions: 'Other words.' });
  });

  it('drops identity and timestamps of a stored record from the definition', () => {
    const record: ScannerRecord = { ...current, scannerId: 'scn_1', version: 3, createdAt: 'x', updatedAt: 'y' };
    expect(Object.keys(applyPatch(record, { name: 'N' })).sort()).toEqual(Object.keys(current).sort());
  });
});

/** An in-memory ScannerStore whose putNextVersion can be made to lose races. */
function memoryStore(initial: ScannerRecord[] = []) {
  const heads = new Map<string, ScannerRecord>(initial.map((s) => [s.scannerId, s]));
  const snapshots: ScannerRecord[] = [...initial];
  const store = {
    create: vi.fn((_accountId: string, scanner: ScannerRecord) => {
      heads.set(scanner.scannerId, scanner);
      snapshots.push(scanner);
      return Promise.resolve();
    }),
    get: vi.fn((_accountId: string, scannerId: string) => Promise.resolve(heads.get(scannerId))),
    getVersion: vi.fn(() => Promise.resolve(undefined)),
    putNextVersion: vi.fn((_accountId: string, next: ScannerRecord) => {
      const head = heads.get(next.scannerId);
      if (!head || head.version !== next.version - 1) return Promise.resolve(false);
      heads.set(next.scannerId, next);
      snapshots.push(next);
      return Promise.resolve(true);
    }),
    list: vi.fn(() => Promise.resolve({ items: [], nextCursor: null })),
    listVersions: vi.fn(() => Promise.resolve({ items: [...snapshots], nextCursor: null })),
  } satisfies ScannerStore;
  return { store, heads, snapshots };
}

const deps = (store: ScannerStore, cap = CAP): ScannerDeps => ({ scanners: store, deploymentMaxObservations: cap });

const storedScanner = (overrides: Partial<ScannerRecord> = {}): ScannerRecord => ({
  ...findMoments({ min_seconds: 10, max_seconds: 60 }),
  scannerId: 'scn_0190a0b0c0d07e0f8a9b0c1d2e3f4a5b',
  version: 1,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...overrides,
});

describe('createScanner', () => {
  it('writes version 1 with a scn_ id and equal timestamps, under the account', async () => {
    const { store } = memoryStore();
    const created = await createScanner(deps(store), account, classifier(['goal', 'miss']));
    expect(created.version).toBe(1);
    expect(created.scannerId).toMatch(idPattern('scanner'));
    expect(created.createdAt).toBe(created.updatedAt);
    expect(created.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(store.create).toHaveBeenCalledExactlyOnceWith(ACCOUNT_ID, created);
    expect(created).toMatchObject({ type: 'classifier', output: { labels: ['goal', 'miss'] } });
  });

  it('writes nothing when the definition is invalid', async () => {
    const { store } = memoryStore();
    await expect(createScanner(deps(store), account, classifier(['a', 'other']))).rejects.toMatchObject({ code: 'validation_failed' });
    expect(store.create).not.toHaveBeenCalled();
  });

  it('applies the deployment cap passed in the deps', async () => {
    const { store } = memoryStore();
    await expect(createScanner(deps(store, 5), account, findMoments({ max_observations: 6 }))).rejects.toMatchObject({
      param: 'max_observations',
    });
  });
});

describe('getScanner', () => {
  it('answers 404 not_found for an unknown or foreign scanner', async () => {
    const { store } = memoryStore();
    const error = await getScanner(deps(store), ACCOUNT_ID, 'scn_missing').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'not_found', status: 404 });
  });
});

describe('updateScanner', () => {
  it('creates version N+1 keeping createdAt and the untouched fields', async () => {
    const { store } = memoryStore([storedScanner({ version: 4 })]);
    const next = await updateScanner(deps(store), account, storedScanner().scannerId, { name: 'Renamed' });
    expect(next.version).toBe(5);
    expect(next.name).toBe('Renamed');
    expect(next.min_seconds).toBe(10);
    expect(next.createdAt).toBe('2026-01-01T00:00:00.000Z');
    expect(next.updatedAt).not.toBe('2026-01-01T00:00:00.000Z');
    expect(store.putNextVersion).toHaveBeenCalledExactlyOnceWith(ACCOUNT_ID, next);
  });

  it('validates the merged definition, not just the patch', async () => {
    const { store } = memoryStore([storedScanner()]);
    // Changing the type alone leaves find_moments-only fields behind: refused, as a POST would be.
    await expect(updateScanner(deps(store), account, storedScanner().scannerId, { type: 'scorer' })).rejects.toMatchObject({
      code: 'validation_failed',
      param: 'min_seconds',
    });
    // ...and accepted once they are cleared in the same patch.
    await expect(
      updateScanner(deps(store), account, storedScanner().scannerId, { type: 'scorer', min_seconds: null, max_seconds: null }),
    ).resolves.toMatchObject({ type: 'scorer', version: 2 });
    // A patch that makes min exceed the stored max is caught on the merged definition.
    const { store: other } = memoryStore([storedScanner()]);
    await expect(updateScanner(deps(other), account, storedScanner().scannerId, { min_seconds: 61 })).rejects.toMatchObject({ param: 'min_seconds' });
    expect(other.putNextVersion).not.toHaveBeenCalled();
  });

  it('answers 404 for an unknown scanner and writes nothing', async () => {
    const { store } = memoryStore();
    await expect(updateScanner(deps(store), account, 'scn_nope', { name: 'x' })).rejects.toMatchObject({ code: 'not_found' });
    expect(store.putNextVersion).not.toHaveBeenCalled();
  });

  it('retries a lost race and builds version N+1 on top of the winner', async () => {
    const { store, heads } = memoryStore([storedScanner({ version: 1, metadata: { a: 1 } })]);
    const id = storedScanner().scannerId;
    // Another PATCH lands between our read and our write: it renames the scanner (version 2).
    store.putNextVersion.mockImplementationOnce((_accountId, _next) => {
      heads.set(id, storedScanner({ version: 2, name: 'Winner', metadata: { a: 1 } }));
      return Promise.resolve(false);
    });
    const next = await updateScanner(deps(store), account, id, { instructions: 'Find the quiet parts.' });

    expect(store.get).toHaveBeenCalledTimes(2);
    expect(store.putNextVersion).toHaveBeenCalledTimes(2);
    expect(next.version).toBe(3);
    // Built on the winner: its rename survives, and our own change is applied on top.
    expect(next.name).toBe('Winner');
    expect(next.instructions).toBe('Find the quiet parts.');
    expect(heads.get(id)).toEqual(next);
  });

  it('gives up with a retryable 429 after repeated lost races', async () => {
    const { store } = memoryStore([storedScanner()]);
    store.putNextVersion.mockResolvedValue(false);
    const error = await updateScanner(deps(store), account, storedScanner().scannerId, { name: 'x' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(store.putNextVersion.mock.calls.length).toBeGreaterThan(1);
  });
});

describe('listScannerVersions', () => {
  it('answers 404 for an unknown scanner instead of an empty list', async () => {
    const { store } = memoryStore();
    await expect(listScannerVersions(deps(store), ACCOUNT_ID, 'scn_nope', { limit: 10 })).rejects.toMatchObject({ code: 'not_found' });
    expect(store.listVersions).not.toHaveBeenCalled();
  });
});
