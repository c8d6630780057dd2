/**
 * Idempotency-Key on POST /v1/scanners and PATCH /v1/scanners/{id} (SPEC Idempotency,
 * DESIGN §4): a retry with the same key and request replays the first answer; a different
 * request under a used key is 409 idempotency_key_reused and does not spoil the original;
 * concurrent duplicates create exactly one scanner; keys are scoped per account.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, test } from 'vitest';
import { clientFor, createAccount, createScanner, expectError, validScanner, type Client, type List, type Scanner } from '../helpers/api.js';

let alice: Client;
let bob: Client;

beforeAll(async () => {
  const [a, b] = await Promise.all([createAccount({ plan: 'creator', credits: 10 }), createAccount({ plan: 'creator', credits: 10 })]);
  alice = clientFor(a.apiKey);
  bob = clientFor(b.apiKey);
});

const key = () => `idem-${randomUUID()}`;
const withKey = (k: string) => ({ 'idempotency-key': k });

async function scannersNamed(client: Client, name: string): Promise<Scanner[]> {
  const list = await client.get<List<Scanner>>('/v1/scanners?limit=100');
  expect(list.status).toBe(200);
  return list.body.data.filter((s) => s.name === name);
}

describe('POST /v1/scanners', () => {
  test('same key + same body replays the first response: 201, identical body, idempotent-replayed: true, one scanner', async () => {
    const k = key();
    const body = validScanner('classifier', { name: `replay ${k}`, metadata: { k } });
    const first = await alice.post<Scanner>('/v1/scanners', body, withKey(k));
    expect(first.status, first.text).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    for (let i = 0; i < 2; i++) {
      const again = await alice.post<Scanner>('/v1/scanners', body, withKey(k));
      expect(again.status, again.text).toBe(201);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.headers.get('content-type')).toMatch(/^application\/json/);
      // each request still has its own id
      expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    }
    expect(await scannersNamed(alice, `replay ${k}`)).toEqual([first.body]);
  });

  test('a replay is byte-for-byte the first response (same JSON text, same field order)', async () => {
    const k = key();
    const body = validScanner('extractor', { name: `bytes ${k}` });
    const first = await alice.post<Scanner>('/v1/scanners', body, withKey(k));
    expect(first.status).toBe(201);
    const again = await alice.post<Scanner>('/v1/scanners', body, withKey(k));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.text).toBe(first.text);
  });

  test('same key + different body → 409 idempotency_key_reused, and the original still replays (three times)', async () => {
    const k = key();
    const body = validScanner('monitor', { name: `reuse ${k}` });
    const first = await alice.post<Scanner>('/v1/scanners', body, withKey(k));
    expect(first.status).toBe(201);

    const conflict = await alice.post('/v1/scanners', { ...body, name: `reuse ${k} (changed)` }, withKey(k));
    const error = expectError(conflict, 409, 'idempotency_key_reused');
    expect(error.type).toBe('idempotency_error');

    for (let attempt = 1; attempt <= 3; attempt++) {
      const replay = await alice.post<Scanner>('/v1/scanners', body, withKey(k));
      expect(replay.status, `attempt ${attempt}: ${replay.text}`).toBe(201);
      expect(replay.body).toEqual(first.body);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      // and the mismatch keeps being refused
      expectError(await alice.post('/v1/scanners', { ...body, instructions: `other ${attempt}` }, withKey(k)), 409, 'idempotency_key_reused');
    }
    expect(await scannersNamed(alice, `reuse ${k}`)).toEqual([first.body]);
    expect(await scannersNamed(alice, `reuse ${k} (changed)`)).toEqual([]);
  });

  test('JSON key order and whitespace do not make a different request', async () => {
    const k = key();
    const name = `order ${k}`;
    const first = await alice.send<Scanner>('POST', '/v1/scanners', {
      raw: JSON.stringify({ name, instructions: 'Find cuts.', type: 'classifier', output: { labels: ['a', 'b'] }, metadata: { x: 1, y: 2 } }),
      headers: withKey(k),
    });
    expect(first.status, first.text).toBe(201);
    const reordered = await alice.send<Scanner>('POST', '/v1/scanners', {
      raw: `{ "metadata": {"y": 2, "x": 1},\n  "output": {"labels": ["a", "b"]}, "type": "classifier", "instructions": "Find cuts.", "name": ${JSON.stringify(name)} }`,
      headers: withKey(k),
    });
    expect(reordered.status, reordered.text).toBe(201);
    expect(reordered.body).toEqual(first.body);
    expect(reordered.headers.get('idempotent-replayed')).toBe('true');
    // array order is meaningful: labels in another order are another request
    const otherLabels = await alice.send('POST', '/v1/scanners', {
      raw: JSON.stringify({ name, instructions: 'Find cuts.', type: 'classifier', output: { labels: ['b', 'a'] }, metadata: { x: 1, y: 2 } }),
      headers: withKey(k),
    });
    expectError(otherLabels, 409, 'idempotency_key_reused');
    expect(await scannersNamed(alice, name)).toHaveLength(1);
  });

  test('~8 concurrent duplicates: each is the 201 with one scanner_id or 409 idempotency_request_in_progress; exactly one scanner', async () => {
    const k = key();
    const name = `concurrent ${k}`;
    const body = validScanner('extractor', { name });
    const responses = await Promise.all(Array.from({ length: 8 }, () => alice.post<Scanner>('/v1/scanners', body, withKey(k))));
    const created = responses.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const response of responses) {
      if (response.status === 201) continue;
      expectError(response, 409, 'idempotency_request_in_progress');
    }
    const ids = new Set(created.map((r) => r.body.scanner_id));
    expect(ids.size).toBe(1);
    // exactly one of the 201s is the original; the rest are replays
    expect(created.filter((r) => r.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    for (const r of created) expect(r.body).toEqual(created[0]?.body);

    const listed = await scannersNamed(alice, name);
    expect(listed).toHaveLength(1);
    expect(listed[0]?.scanner_id).toBe([...ids][0]);

    // once finished, a retry replays
    const retry = await alice.post<Scanner>('/v1/scanners', body, withKey(k));
    expect(retry.status).toBe(201);
    expect(retry.body.scanner_id).toBe([...ids][0]);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
  });

  test("keys are scoped per account: B using A's key value creates B's own scanner", async () => {
    const k = key();
    const name = `scoped ${k}`;
    const body = validScanner('scorer', { name });
    const a = await alice.post<Scanner>('/v1/scanners', body, withKey(k));
    const b = await bob.post<Scanner>('/v1/scanners', body, withKey(k));
    expect(a.status).toBe(201);
    expect(b.status, b.text).toBe(201);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(b.body.scanner_id).not.toBe(a.body.scanner_id);
    expect(await scannersNamed(bob, name)).toEqual([b.body]);
    expect(await scannersNamed(alice, name)).toEqual([a.body]);
    // B with a different body under the same key value is not a conflict with A either
    const b2 = await bob.post<Scanner>('/v1/scanners', { ...body, name: `${name} b2` }, withKey(`${k}-b2`));
    expect(b2.status).toBe(201);
    // and each replays its own
    expect((await alice.post<Scanner>('/v1/scanners', body, withKey(k))).body.scanner_id).toBe(a.body.scanner_id);
    expect((await bob.post<Scanner>('/v1/scanners', body, withKey(k))).body.scanner_id).toBe(b.body.scanner_id);
  });

  test('without a key, two identical POSTs create two scanners', async () => {
    const name = `no key ${randomUUID()}`;
    const body = validScanner('monitor', { name });
    const [one, two] = await Promise.all([alice.post<Scanner>('/v1/scanners', body), alice.post<Scanner>('/v1/scanners', body)]);
    expect(one.status).toBe(201);
    expect(two.status).toBe(201);
    expect(one.body.scanner_id).not.toBe(two.body.scanner_id);
    expect(await scannersNamed(alice, name)).toHaveLength(2);
  });

  test('a request that failed validation is not stored: the same key then works with a corrected body', async () => {
    const k = key();
    const name = `fixed ${k}`;
    // schema failure (zod)
    expectError(await alice.post('/v1/scanners', validScanner('monitor', { name, max_observations: 99 }), withKey(k)), 400, 'validation_failed');
    // rule failure (domain, runs inside the idempotent section)
    expectError(await alice.post('/v1/scanners', validScanner('monitor', { name, min_seconds: 10 }), withKey(k)), 400, 'validation_failed', 'min_seconds');
    const fixed = await alice.post<Scanner>('/v1/scanners', validScanner('monitor', { name }), withKey(k));
    expect(fixed.status, fixed.text).toBe(201);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
    expect(await scannersNamed(alice, name)).toEqual([fixed.body]);
  });

  test('a key used for a POST cannot be reused for a PATCH (a different request)', async () => {
    const k = key();
    const created = await alice.post<Scanner>('/v1/scanners', validScanner('monitor', { name: `cross ${k}` }), withKey(k));
    expect(created.status).toBe(201);
    const patch = await alice.patch(`/v1/scanners/${created.body.scanner_id}`, { name: 'renamed' }, withKey(k));
    expectError(patch, 409, 'idempotency_key_reused');
    expect((await alice.get<Scanner>(`/v1/scanners/${created.body.scanner_id}`)).body.version).toBe(1);
  });

  test('the Idempotency-Key header is ignored on reads', async () => {
    const k = key();
    const one = await alice.get('/v1/scanners', withKey(k));
    const two = await alice.get('/v1/account', withKey(k));
    expect(one.status).toBe(200);
    expect(two.status).toBe(200);
    expect(one.headers.get('idempotent-replayed')).toBeNull();
    // and a later POST under that key is a fresh request
    const created = await alice.post<Scanner>('/v1/scanners', validScanner('monitor', { name: `after read ${k}` }), withKey(k));
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('PATCH /v1/scanners/{id}', () => {
  test('same key + same body replays: 200, identical body, one new version only', async () => {
    const scanner = await createScanner(alice, validScanner('monitor', { name: 'patch replay' }));
    const path = `/v1/scanners/${scanner.scanner_id}`;
    const k = key();
    const first = await alice.patch<Scanner>(path, { name: 'patched once' }, withKey(k));
    expect(first.status, first.text).toBe(200);
    expect(first.body.version).toBe(2);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    const again = await alice.patch<Scanner>(path, { name: 'patched once' }, withKey(k));
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');

    const versions = await alice.get<List<Scanner>>(`${path}/versions`);
    expect(versions.body.data.map((s) => s.version)).toEqual([2, 1]);
  });

  test('same key + different body → 409, the original keeps replaying, no extra version', async () => {
    const scanner = await createScanner(alice, validScanner('monitor', { name: 'patch reuse' }));
    const path = `/v1/scanners/${scanner.scanner_id}`;
    const k = key();
    const first = await alice.patch<Scanner>(path, { max_observations: 5 }, withKey(k));
    expect(first.status).toBe(200);
    expectError(await alice.patch(path, { max_observations: 6 }, withKey(k)), 409, 'idempotency_key_reused');
    for (let attempt = 0; attempt < 3; attempt++) {
      const replay = await alice.patch<Scanner>(path, { max_observations: 5 }, withKey(k));
      expect(replay.status, replay.text).toBe(200);
      expect(replay.body).toEqual(first.body);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
    }
    const current = await alice.get<Scanner>(path);
    expect(current.body).toEqual(first.body);
    expect((await alice.get<List<Scanner>>(`${path}/versions`)).body.data).toHaveLength(2);
  });

  test('the same key on another scanner is a different request → 409', async () => {
    const [one, two] = await Promise.all([createScanner(alice, validScanner('monitor')), createScanner(alice, validScanner('monitor'))]);
    const k = key();
    expect((await alice.patch(`/v1/scanners/${one.scanner_id}`, { name: 'n' }, withKey(k))).status).toBe(200);
    expectError(await alice.patch(`/v1/scanners/${two.scanner_id}`, { name: 'n' }, withKey(k)), 409, 'idempotency_key_reused');
    expect((await alice.get<Scanner>(`/v1/scanners/${two.scanner_id}`)).body.version).toBe(1);
  });

  test('concurrent duplicate PATCHes create exactly one version', async () => {
    const scanner = await createScanner(alice, validScanner('monitor', { name: 'patch concurrent' }));
    const path = `/v1/scanners/${scanner.scanner_id}`;
    const k = key();
    const responses = await Promise.all(Array.from({ length: 8 }, () => alice.patch<Scanner>(path, { name: 'once' }, withKey(k))));
    for (const response of responses) {
      if (response.status === 200) expect(response.body.version).toBe(2);
      else expectError(response, 409, 'idempotency_request_in_progress');
    }
    expect(responses.some((r) => r.status === 200)).toBe(true);
    expect((await alice.get<List<Scanner>>(`${path}/versions`)).body.data.map((s) => s.version)).toEqual([2, 1]);
  });
});
