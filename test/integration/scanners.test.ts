/**
 * Scanners (SPEC Scanner, DESIGN §3): the six types, every create rule, GET one and list,
 * PATCH versions (immutable snapshots), and account scoping.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import {
  clientFor,
  createAccount,
  createScanner,
  expectError,
  isoMillisPattern,
  scannerIdPattern,
  scannerTypes,
  validScanner,
  type Account,
  type Client,
  type List,
  type Scanner,
} from '../helpers/api.js';

let owner: Client;
let capped: Client;
let stranger: Client;

beforeAll(async () => {
  const [a, b, c] = await Promise.all([
    createAccount({ plan: 'creator', credits: 100 }),
    createAccount({ plan: 'hobby', credits: 100, maxObservations: 10 }),
    createAccount({ plan: 'creator', credits: 100 }),
  ]);
  owner = clientFor(a.apiKey);
  capped = clientFor(b.apiKey);
  stranger = clientFor(c.apiKey);
});

const publicKeys = [
  'object',
  'scanner_id',
  'version',
  'name',
  'instructions',
  'type',
  'profile',
  'max_observations',
  'min_seconds',
  'max_seconds',
  'output',
  'metadata',
  'created_at',
  'updated_at',
].sort();

const post = (client: Client, body: Record<string, unknown>) => client.post<Scanner>('/v1/scanners', body);

describe('an account without scanners', () => {
  test('lists nothing', async () => {
    const list = await stranger.get<List<Scanner>>('/v1/scanners');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ object: 'list', data: [], next_cursor: null });
  });
});

describe('create: the six types', () => {
  test.for(scannerTypes)('%s with a valid body → 201, version 1, the definition echoed, GET returns the same', async (type) => {
    const body = validScanner(type, { max_observations: 5, metadata: { team: 'qa', run: 3 } });
    const response = await post(owner, body);
    expect(response.status, response.text).toBe(201);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(response.headers.get('idempotent-replayed')).toBeNull();
    const scanner = response.body;
    expect(Object.keys(scanner).sort()).toEqual(publicKeys);
    expect(scanner).toMatchObject({
      object: 'scanner',
      version: 1,
      type,
      name: body.name,
      instructions: body.instructions,
      max_observations: 5,
      metadata: { team: 'qa', run: 3 },
    });
    expect(scanner.scanner_id).toMatch(scannerIdPattern);
    expect(scanner.created_at).toMatch(isoMillisPattern);
    expect(scanner.updated_at).toBe(scanner.created_at);
    expect(scanner.output).toEqual(body.output ?? null);
    expect(scanner.profile).toBe(body.profile ?? null);
    expect(scanner.min_seconds).toBe(body.min_seconds ?? null);
    expect(scanner.max_seconds).toBe(body.max_seconds ?? null);

    const fetched = await owner.get<Scanner>(`/v1/scanners/${scanner.scanner_id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(scanner);
  });

  test('a minimal body gets nulls for the optional fields and an empty metadata object', async () => {
    const scanner = await createScanner(owner, { name: 'minimal', instructions: 'Is anyone talking?', type: 'monitor' });
    expect(scanner).toMatchObject({ profile: null, max_observations: null, min_seconds: null, max_seconds: null, output: null, metadata: {} });
  });

  test('both profiles are accepted; another is refused', async () => {
    await createScanner(owner, validScanner('summarizer', { profile: 'conversation' }));
    await createScanner(owner, validScanner('summarizer', { profile: 'gameplay' }));
    expectError(await post(owner, validScanner('summarizer', { profile: 'music' })), 400, 'validation_failed', 'profile');
  });

  test('ids are unique', async () => {
    const created = await Promise.all([1, 2, 3, 4].map(() => createScanner(owner, validScanner('scorer'))));
    expect(new Set(created.map((s) => s.scanner_id)).size).toBe(4);
  });
});

describe('create: instructions and name', () => {
  test('600 characters are accepted, 601 refused', async () => {
    const ok = await createScanner(owner, validScanner('monitor', { instructions: 'a'.repeat(600) }));
    expect(ok.instructions).toHaveLength(600);
    expectError(await post(owner, validScanner('monitor', { instructions: 'a'.repeat(601) })), 400, 'validation_failed', 'instructions');
  });

  test('an emoji counts as one character', async () => {
    const exactly600 = `${'a'.repeat(599)}😀`; // 601 UTF-16 units, 600 characters
    const ok = await createScanner(owner, validScanner('monitor', { instructions: exactly600 }));
    expect(ok.instructions).toBe(exactly600);
    const emoji600 = '😀'.repeat(600);
    expect((await post(owner, validScanner('monitor', { instructions: emoji600 }))).status).toBe(201);
    expectError(await post(owner, validScanner('monitor', { instructions: `${'a'.repeat(600)}😀` })), 400, 'validation_failed', 'instructions');
    expectError(await post(owner, validScanner('monitor', { instructions: '😀'.repeat(601) })), 400, 'validation_failed', 'instructions');
  });

  test('empty or blank instructions and names are refused', async () => {
    expectError(await post(owner, validScanner('monitor', { instructions: '' })), 400, 'validation_failed', 'instructions');
    expectError(await post(owner, validScanner('monitor', { instructions: '   ' })), 400, 'validation_failed', 'instructions');
    expectError(await post(owner, validScanner('monitor', { name: '' })), 400, 'validation_failed', 'name');
    expectError(await post(owner, validScanner('monitor', { name: ' \t ' })), 400, 'validation_failed', 'name');
  });

  test('unicode names round-trip exactly', async () => {
    const name = 'Détecteur 🎮 ゲーム — “quotes”';
    const scanner = await createScanner(owner, validScanner('monitor', { name }));
    expect(scanner.name).toBe(name);
    expect((await owner.get<Scanner>(`/v1/scanners/${scanner.scanner_id}`)).body.name).toBe(name);
  });
});

describe('create: max_observations', () => {
  test('1 and 50 are accepted; 0, 51 and fractions refused', async () => {
    expect((await createScanner(owner, validScanner('monitor', { max_observations: 50 }))).max_observations).toBe(50);
    expect((await createScanner(owner, validScanner('monitor', { max_observations: 1 }))).max_observations).toBe(1);
    for (const value of [51, 0, -1, 1.5, 1000]) {
      expectError(await post(owner, validScanner('monitor', { max_observations: value })), 400, 'validation_failed', 'max_observations');
    }
  });

  test('an account cap below 50 is enforced and reported: 10 OK, 11 refused', async () => {
    const account = await capped.get<Account>('/v1/account');
    expect(account.body.limits.max_observations).toBe(10);
    expect((await createScanner(capped, validScanner('monitor', { max_observations: 10 }))).max_observations).toBe(10);
    const error = expectError(await post(capped, validScanner('monitor', { max_observations: 11 })), 400, 'validation_failed', 'max_observations');
    expect(error.message).toMatch(/10/);
  });

  test('the cap applies on PATCH too', async () => {
    const scanner = await createScanner(capped, validScanner('monitor', { max_observations: 3 }));
    expectError(await capped.patch(`/v1/scanners/${scanner.scanner_id}`, { max_observations: 11 }), 400, 'validation_failed', 'max_observations');
    const updated = await capped.patch<Scanner>(`/v1/scanners/${scanner.scanner_id}`, { max_observations: 10 });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ version: 2, max_observations: 10 });
  });
});

describe('create: moment length', () => {
  test('min_seconds ≤ max_seconds on find_moments; equal is fine', async () => {
    const equal = await createScanner(owner, validScanner('find_moments', { min_seconds: 30, max_seconds: 30 }));
    expect(equal).toMatchObject({ min_seconds: 30, max_seconds: 30 });
    expectError(await post(owner, validScanner('find_moments', { min_seconds: 61, max_seconds: 60 })), 400, 'validation_failed', 'min_seconds');
  });

  test('each bound alone is accepted on find_moments', async () => {
    expect(await createScanner(owner, validScanner('find_moments', { min_seconds: undefined, max_seconds: 20 }))).toMatchObject({
      min_seconds: null,
      max_seconds: 20,
    });
    expect(await createScanner(owner, validScanner('find_moments', { min_seconds: 20, max_seconds: undefined }))).toMatchObject({
      min_seconds: 20,
      max_seconds: null,
    });
  });

  test('bounds are 5..600 whole seconds', async () => {
    for (const [field, value] of [
      ['min_seconds', 4],
      ['max_seconds', 601],
      ['min_seconds', 7.5],
      ['max_seconds', -10],
    ] as const) {
      const body = validScanner('find_moments', { min_seconds: undefined, max_seconds: undefined, [field]: value });
      expectError(await post(owner, body), 400, 'validation_failed', field);
    }
  });

  test.for(scannerTypes.filter((t) => t !== 'find_moments'))('min_seconds or max_seconds on %s → 400', async (type) => {
    expectError(await post(owner, validScanner(type, { min_seconds: 10 })), 400, 'validation_failed', 'min_seconds');
    expectError(await post(owner, validScanner(type, { max_seconds: 60 })), 400, 'validation_failed', 'max_seconds');
  });
});

describe('create: classifier labels and extractor fields', () => {
  test('a classifier needs output.labels', async () => {
    expectError(await post(owner, validScanner('classifier', { output: undefined })), 400, 'validation_failed', 'output.labels');
    expectError(await post(owner, validScanner('classifier', { output: {} })), 400, 'validation_failed', 'output.labels');
  });

  test('2 and 50 labels are accepted; 0, 1 and 51 refused', async () => {
    const labels = (n: number) => Array.from({ length: n }, (_, i) => `label ${i}`);
    expect((await createScanner(owner, validScanner('classifier', { output: { labels: labels(2) } }))).output).toEqual({ labels: labels(2) });
    expect((await createScanner(owner, validScanner('classifier', { output: { labels: labels(50) } }))).output).toEqual({ labels: labels(50) });
    for (const n of [0, 1, 51]) {
      expectError(await post(owner, validScanner('classifier', { output: { labels: labels(n) } })), 400, 'validation_failed', 'output.labels');
    }
  });

  test('duplicate labels are refused, naming the duplicate (case-insensitive)', async () => {
    expectError(await post(owner, validScanner('classifier', { output: { labels: ['cat', 'dog', 'cat'] } })), 400, 'validation_failed', 'output.labels[2]');
    expectError(await post(owner, validScanner('classifier', { output: { labels: ['Cat', 'cat'] } })), 400, 'validation_failed', 'output.labels[1]');
  });

  test('the reserved label "other" is refused in any case', async () => {
    expectError(await post(owner, validScanner('classifier', { output: { labels: ['cat', 'other'] } })), 400, 'validation_failed', 'output.labels[1]');
    expectError(await post(owner, validScanner('classifier', { output: { labels: ['OTHER', 'cat'] } })), 400, 'validation_failed', 'output.labels[0]');
  });

  test('empty labels are refused', async () => {
    expectError(await post(owner, validScanner('classifier', { output: { labels: ['cat', ''] } })), 400, 'validation_failed', 'output.labels[1]');
  });

  test.for(scannerTypes.filter((t) => t !== 'classifier'))('labels on %s → 400 output.labels', async (type) => {
    const body = validScanner(type, { output: { labels: ['a', 'b'] } });
    expectError(await post(owner, body), 400, 'validation_failed', 'output.labels');
  });

  test('an extractor needs 1..20 fields matching ^[a-z][a-z0-9_]{0,63}$', async () => {
    const fields = (n: number) => Array.from({ length: n }, (_, i) => `field_${i}`);
    expect((await createScanner(owner, validScanner('extractor', { output: { fields: ['a'] } }))).output).toEqual({ fields: ['a'] });
    expect((await createScanner(owner, validScanner('extractor', { output: { fields: fields(20) } }))).output).toEqual({ fields: fields(20) });
    const longest = `a${'b'.repeat(63)}`;
    expect((await createScanner(owner, validScanner('extractor', { output: { fields: [longest, 'x9_'] } }))).output).toEqual({ fields: [longest, 'x9_'] });
    expectError(await post(owner, validScanner('extractor', { output: undefined })), 400, 'validation_failed', 'output.fields');
    expectError(await post(owner, validScanner('extractor', { output: { fields: [] } })), 400, 'validation_failed', 'output.fields');
    expectError(await post(owner, validScanner('extractor', { output: { fields: fields(21) } })), 400, 'validation_failed', 'output.fields');
    for (const bad of ['Duration', '1st', '_x', 'has-dash', 'has space', `${longest}c`, '', 'é']) {
      expectError(await post(owner, validScanner('extractor', { output: { fields: ['ok', bad] } })), 400, 'validation_failed', 'output.fields[1]');
    }
    expectError(await post(owner, validScanner('extractor', { output: { fields: ['a', 'b', 'a'] } })), 400, 'validation_failed', 'output.fields[2]');
  });

  test.for(scannerTypes.filter((t) => t !== 'extractor' && t !== 'classifier'))('fields on %s → 400 output.fields', async (type) => {
    expectError(await post(owner, validScanner(type, { output: { fields: ['a'] } })), 400, 'validation_failed', 'output.fields');
  });
});

describe('create: metadata', () => {
  const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));

  test('20 keys OK, 21 refused', async () => {
    expect((await createScanner(owner, validScanner('monitor', { metadata: keys(20) }))).metadata).toEqual(keys(20));
    expectError(await post(owner, validScanner('monitor', { metadata: keys(21) })), 400, 'validation_failed', 'metadata');
  });

  test('a 40-character key OK, 41 refused', async () => {
    const k40 = 'k'.repeat(40);
    expect((await createScanner(owner, validScanner('monitor', { metadata: { [k40]: 1 } }))).metadata).toEqual({ [k40]: 1 });
    const response = await post(owner, validScanner('monitor', { metadata: { ['k'.repeat(41)]: 1 } }));
    const error = expectError(response, 400, 'validation_failed');
    expect(error.param).toMatch(/^metadata/);
  });

  test('an empty key is refused', async () => {
    const error = expectError(await post(owner, validScanner('monitor', { metadata: { '': 'x' } })), 400, 'validation_failed');
    expect(error.param).toMatch(/^metadata/);
  });

  test('a 500-character string OK, 501 refused', async () => {
    expect((await createScanner(owner, validScanner('monitor', { metadata: { note: 'n'.repeat(500) } }))).metadata.note).toHaveLength(500);
    expectError(await post(owner, validScanner('monitor', { metadata: { note: 'n'.repeat(501) } })), 400, 'validation_failed', 'metadata.note');
  });

  test('nested objects and arrays are refused, naming the key', async () => {
    expectError(await post(owner, validScanner('monitor', { metadata: { nested: { a: 1 } } })), 400, 'validation_failed', 'metadata.nested');
    expectError(await post(owner, validScanner('monitor', { metadata: { list: [1] } })), 400, 'validation_failed', 'metadata.list');
    expectError(await post(owner, validScanner('monitor', { metadata: 'flat' })), 400, 'validation_failed', 'metadata');
  });

  test('valid scalars — string, integer, float, negative, zero, booleans, null, empty string — round-trip', async () => {
    const metadata = { s: 'text', i: 42, f: -1.25, z: 0, t: true, b: false, n: null, e: '', u: 'ünï 😀', big: 9_007_199_254_740_991 };
    const scanner = await createScanner(owner, validScanner('monitor', { metadata }));
    expect(scanner.metadata).toEqual(metadata);
    expect((await owner.get<Scanner>(`/v1/scanners/${scanner.scanner_id}`)).body.metadata).toEqual(metadata);
  });

  test.for([
    ['1e300', 1e300],
    ['1e-200', 1e-200],
    ['2^53 + 2', 9_007_199_254_740_994],
    ['-1e130', -1e130],
  ] as const)('metadata number %s is stored exactly or refused with 400 — never a 5xx', async ([, value]) => {
    const response = await post(owner, validScanner('monitor', { name: 'number-edge', metadata: { x: value } }));
    expect(response.status, response.text).toBeLessThan(500);
    if (response.status === 201) {
      expect((await owner.get<Scanner>(`/v1/scanners/${response.body.scanner_id}`)).body.metadata).toEqual({ x: value });
    } else {
      expectError(response, 400, 'validation_failed', 'metadata.x');
    }
  });

  test('a "__proto__" metadata key is stored or refused, never silently dropped', async () => {
    const response = await owner.send<Scanner>('POST', '/v1/scanners', {
      raw: '{"name":"proto","instructions":"x","type":"monitor","metadata":{"__proto__":"x","keep":1}}',
    });
    expect(response.status, response.text).toBeLessThan(500);
    if (response.status === 201) expect(Object.keys(response.body.metadata).sort()).toEqual(['__proto__', 'keep']);
    else expectError(response, 400, 'validation_failed');
  });
});

describe('get and list', () => {
  test('an unknown scanner id → 404 not_found', async () => {
    expectError(await owner.get(`/v1/scanners/scn_${'0'.repeat(32)}`), 404, 'not_found');
    expectError(await owner.get(`/v1/scanners/scn_${'0'.repeat(32)}/versions`), 404, 'not_found');
    expectError(await owner.patch(`/v1/scanners/scn_${'0'.repeat(32)}`, { name: 'x' }), 404, 'not_found');
  });

  test('the list is newest first and shows current versions', async () => {
    const client = capped;
    const first = await createScanner(client, validScanner('monitor', { name: 'first' }));
    const second = await createScanner(client, validScanner('scorer', { name: 'second' }));
    const third = await createScanner(client, validScanner('summarizer', { name: 'third' }));
    const patched = await client.patch<Scanner>(`/v1/scanners/${first.scanner_id}`, { name: 'first, renamed' });
    expect(patched.status).toBe(200);

    const list = await client.get<List<Scanner>>('/v1/scanners?limit=100');
    expect(list.status).toBe(200);
    expect(list.body.object).toBe('list');
    expect(list.body.next_cursor).toBeNull();
    // the three newest, newest first, ahead of the scanners this account made earlier
    expect(list.body.data.slice(0, 3).map((s) => s.scanner_id)).toEqual([third.scanner_id, second.scanner_id, first.scanner_id]);
    expect(list.body.data[0]).toEqual(third);
    expect(list.body.data[2]).toEqual(patched.body);
    const created = list.body.data.map((s) => Date.parse(s.created_at));
    expect(created).toEqual([...created].sort((a, b) => b - a));
  });
});

describe('PATCH and versions', () => {
  let original: Scanner;
  let v2: Scanner;
  let v3: Scanner;

  beforeAll(async () => {
    original = await createScanner(
      owner,
      validScanner('find_moments', {
        name: 'clips',
        profile: 'gameplay',
        max_observations: 7,
        min_seconds: 10,
        max_seconds: 40,
        metadata: { team: 'a', n: 1 },
      }),
    );
  });

  test('PATCH creates version 2 with the change, keeps the rest, keeps created_at', async () => {
    const response = await owner.patch<Scanner>(`/v1/scanners/${original.scanner_id}`, { name: 'clips v2' });
    expect(response.status, response.text).toBe(200);
    v2 = response.body;
    expect(v2).toEqual({ ...original, name: 'clips v2', version: 2, updated_at: v2.updated_at });
    expect(v2.created_at).toBe(original.created_at);
    expect(v2.updated_at).toMatch(isoMillisPattern);
    expect(Date.parse(v2.updated_at)).toBeGreaterThanOrEqual(Date.parse(original.updated_at));
  });

  test('a second PATCH creates version 3; GET one shows the current version', async () => {
    const response = await owner.patch<Scanner>(`/v1/scanners/${original.scanner_id}`, {
      instructions: 'Find the funniest reactions.',
      metadata: { team: 'b' },
      max_seconds: 45,
    });
    expect(response.status, response.text).toBe(200);
    v3 = response.body;
    expect(v3).toMatchObject({
      version: 3,
      name: 'clips v2',
      instructions: 'Find the funniest reactions.',
      metadata: { team: 'b' },
      max_seconds: 45,
      min_seconds: 10,
    });
    const current = await owner.get<Scanner>(`/v1/scanners/${original.scanner_id}`);
    expect(current.body).toEqual(v3);
  });

  test('versions lists v3, v2, v1; every snapshot equals the response that created it', async () => {
    const versions = await owner.get<List<Scanner>>(`/v1/scanners/${original.scanner_id}/versions`);
    expect(versions.status).toBe(200);
    expect(versions.body.object).toBe('list');
    expect(versions.body.next_cursor).toBeNull();
    expect(versions.body.data.map((s) => s.version)).toEqual([3, 2, 1]);
    expect(versions.body.data[2]).toEqual(original);
    expect(versions.body.data[1]).toEqual(v2);
    expect(versions.body.data[0]).toEqual(v3);
  });

  test('PATCH {} → 400 and no new version', async () => {
    expectError(await owner.patch(`/v1/scanners/${original.scanner_id}`, {}), 400, 'validation_failed');
    expect((await owner.get<Scanner>(`/v1/scanners/${original.scanner_id}`)).body.version).toBe(3);
  });

  test('PATCH null clears an optional field; required fields cannot be cleared', async () => {
    const scanner = await createScanner(owner, validScanner('monitor', { profile: 'conversation', max_observations: 4, metadata: { a: 1 } }));
    const path = `/v1/scanners/${scanner.scanner_id}`;
    const cleared = await owner.patch<Scanner>(path, { profile: null, max_observations: null });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body).toMatchObject({ version: 2, profile: null, max_observations: null, metadata: { a: 1 } });
    const noMetadata = await owner.patch<Scanner>(path, { metadata: null });
    expect(noMetadata.body).toMatchObject({ version: 3, metadata: {} });
    for (const field of ['name', 'instructions', 'type']) {
      expectError(await owner.patch(path, { [field]: null }), 400, 'validation_failed', field);
    }
    const after = await owner.get<Scanner>(path);
    expect(after.body).toEqual(noMetadata.body);
    // version 1 still has what it had
    const versions = await owner.get<List<Scanner>>(`${path}/versions`);
    expect(versions.body.data.map((s) => s.version)).toEqual([3, 2, 1]);
    expect(versions.body.data[2]).toEqual(scanner);
  });

  test('a PATCH that makes the definition invalid → 400 and no new version', async () => {
    const path = `/v1/scanners/${original.scanner_id}`;
    // find_moments → classifier without labels (and with min/max seconds)
    expectError(await owner.patch(path, { type: 'classifier' }), 400, 'validation_failed');
    expectError(await owner.patch(path, { type: 'classifier', min_seconds: null, max_seconds: null }), 400, 'validation_failed', 'output.labels');
    // min above the existing max
    expectError(await owner.patch(path, { min_seconds: 46 }), 400, 'validation_failed', 'min_seconds');
    // labels on a find_moments scanner
    expectError(await owner.patch(path, { output: { labels: ['a', 'b'] } }), 400, 'validation_failed', 'output.labels');
    expectError(await owner.patch(path, { instructions: 'x'.repeat(601) }), 400, 'validation_failed', 'instructions');
    expectError(await owner.patch(path, { max_observations: 51 }), 400, 'validation_failed', 'max_observations');
    expect((await owner.get<Scanner>(path)).body).toEqual(v3);
    const versions = await owner.get<List<Scanner>>(`${path}/versions`);
    expect(versions.body.data.map((s) => s.version)).toEqual([3, 2, 1]);
  });

  test('a type change with everything it needs is a valid new version', async () => {
    const scanner = await createScanner(owner, validScanner('find_moments'));
    const path = `/v1/scanners/${scanner.scanner_id}`;
    const response = await owner.patch<Scanner>(path, { type: 'classifier', min_seconds: null, max_seconds: null, output: { labels: ['x', 'y'] } });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ version: 2, type: 'classifier', min_seconds: null, max_seconds: null, output: { labels: ['x', 'y'] } });
    const versions = await owner.get<List<Scanner>>(`${path}/versions`);
    expect(versions.body.data[1]).toEqual(scanner);
  });

  test('concurrent PATCHes each get their own version; none is lost', async () => {
    const scanner = await createScanner(owner, validScanner('monitor', { metadata: {} }));
    const path = `/v1/scanners/${scanner.scanner_id}`;
    const responses = await Promise.all([1, 2, 3, 4].map((i) => owner.patch<Scanner>(path, { name: `concurrent ${i}` })));
    for (const response of responses) expect(response.status, response.text).toBe(200);
    expect(responses.map((r) => r.body.version).sort()).toEqual([2, 3, 4, 5]);
    const versions = await owner.get<List<Scanner>>(`${path}/versions`);
    expect(versions.body.data.map((s) => s.version)).toEqual([5, 4, 3, 2, 1]);
  });
});

describe('account scoping', () => {
  test('another account gets 404 for GET, PATCH and versions, and the scanner is unchanged', async () => {
    const scanner = await createScanner(owner, validScanner('classifier', { name: 'private' }));
    const path = `/v1/scanners/${scanner.scanner_id}`;
    const unknown = await stranger.get(`/v1/scanners/scn_${'f'.repeat(32)}`);
    const responses = await Promise.all([stranger.get(path), stranger.patch(path, { name: 'hijacked' }), stranger.get(`${path}/versions`)]);
    for (const response of responses) {
      const error = expectError(response, 404, 'not_found');
      // indistinguishable from an id that does not exist
      expect(error.message).toBe(expectError(unknown, 404, 'not_found').message);
      expect(response.text).not.toContain('private');
    }
    const mine = await owner.get<Scanner>(path);
    expect(mine.body).toEqual(scanner);
    const versions = await owner.get<List<Scanner>>(`${path}/versions`);
    expect(versions.body.data).toEqual([scanner]);
  });

  test("another account's list never shows my scanners", async () => {
    const scanner = await createScanner(owner, validScanner('monitor', { name: 'mine only' }));
    const theirs = await stranger.get<List<Scanner>>('/v1/scanners?limit=100');
    expect(theirs.status).toBe(200);
    expect(theirs.body.data.map((s) => s.scanner_id)).not.toContain(scanner.scanner_id);
  });
});
