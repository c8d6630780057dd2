/**
 * Lists (DESIGN §3): `?limit=&cursor=` → `{object:"list", data, next_cursor}`; cursors are
 * opaque, bound to the account and the list, and rejected (400 invalid_cursor) when tampered
 * with or replayed elsewhere.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { clientFor, createAccount, createScanner, expectError, listAll, validScanner, type Client, type List, type Scanner } from '../helpers/api.js';

let alice: Client;
let bob: Client;
/** Alice's five scanners, newest first. */
let newestFirst: Scanner[];
let versioned: Scanner;
let otherVersioned: Scanner;

beforeAll(async () => {
  const [a, b] = await Promise.all([createAccount({ plan: 'hobby', credits: 0 }), createAccount({ plan: 'hobby', credits: 0 })]);
  alice = clientFor(a.apiKey);
  bob = clientFor(b.apiKey);
  const created: Scanner[] = [];
  for (let i = 0; i < 5; i++) created.push(await createScanner(alice, validScanner('monitor', { name: `page item ${i}` })));
  newestFirst = created.reverse();

  versioned = await createScanner(bob, validScanner('monitor', { name: 'versioned' }));
  for (const name of ['v2', 'v3']) expect((await bob.patch(`/v1/scanners/${versioned.scanner_id}`, { name })).status).toBe(200);
  otherVersioned = await createScanner(bob, validScanner('monitor', { name: 'other' }));
  expect((await bob.patch(`/v1/scanners/${otherVersioned.scanner_id}`, { name: 'other v2' })).status).toBe(200);
});

async function firstPageCursor(client: Client, path: string): Promise<string> {
  const page = await client.get<List<Scanner>>(path);
  expect(page.status, page.text).toBe(200);
  expect(page.body.next_cursor).toBeTypeOf('string');
  return page.body.next_cursor ?? '';
}

/** The cursor with the character at `index` replaced by another valid base64url character. */
function flip(cursor: string, index: number): string {
  const at = (index + cursor.length) % cursor.length;
  const char = cursor[at] === 'A' ? 'B' : 'A';
  return `${cursor.slice(0, at)}${char}${cursor.slice(at + 1)}`;
}

describe('scanners list', () => {
  test('5 scanners with limit=2: pages of 2, 2, 1; next_cursor null on the last; nothing missing or repeated', async () => {
    const { pages, items } = await listAll<Scanner>(alice, '/v1/scanners', 2);
    expect(pages.map((p) => p.data.length)).toEqual([2, 2, 1]);
    expect(pages.slice(0, 2).every((p) => typeof p.next_cursor === 'string' && p.next_cursor.length > 0)).toBe(true);
    expect(pages[2]?.next_cursor).toBeNull();
    expect(pages.every((p) => p.object === 'list')).toBe(true);
    expect(items.map((s) => s.scanner_id)).toEqual(newestFirst.map((s) => s.scanner_id));
    expect(items).toEqual(newestFirst);
  });

  test('limit=5 returns all five and no cursor (an exact fit is the last page)', async () => {
    const page = await alice.get<List<Scanner>>('/v1/scanners?limit=5');
    expect(page.body.data).toHaveLength(5);
    expect(page.body.next_cursor).toBeNull();
  });

  test('limit=4 then the rest', async () => {
    const { pages } = await listAll<Scanner>(alice, '/v1/scanners', 4);
    expect(pages.map((p) => p.data.length)).toEqual([4, 1]);
  });

  test('no limit: the default page holds all five', async () => {
    const page = await alice.get<List<Scanner>>('/v1/scanners');
    expect(page.body.data).toEqual(newestFirst);
    expect(page.body.next_cursor).toBeNull();
  });

  test('limit=1 and limit=100 are accepted', async () => {
    expect((await alice.get<List<Scanner>>('/v1/scanners?limit=1')).body.data).toEqual(newestFirst.slice(0, 1));
    expect((await alice.get<List<Scanner>>('/v1/scanners?limit=100')).body.data).toHaveLength(5);
  });

  test('a cursor can be used again (pages are stable)', async () => {
    const cursor = await firstPageCursor(alice, '/v1/scanners?limit=2');
    const one = await alice.get<List<Scanner>>(`/v1/scanners?limit=2&cursor=${encodeURIComponent(cursor)}`);
    const two = await alice.get<List<Scanner>>(`/v1/scanners?limit=2&cursor=${encodeURIComponent(cursor)}`);
    expect(one.body).toEqual(two.body);
    expect(one.body.data).toEqual(newestFirst.slice(2, 4));
  });

  test.for(['0', '101', 'abc', '-1', '2.5', '1e3', ''])('limit=%s → 400 validation_failed, param limit', async (limit) => {
    expectError(await alice.get(`/v1/scanners?limit=${limit}`), 400, 'validation_failed', 'limit');
  });

  test('a tampered cursor (one character flipped, anywhere) → 400 invalid_cursor', async () => {
    const cursor = await firstPageCursor(alice, '/v1/scanners?limit=2');
    for (const index of [0, 5, Math.floor(cursor.length / 2), cursor.indexOf('.') + 1, -1]) {
      const tampered = flip(cursor, index);
      expect(tampered).not.toBe(cursor);
      expectError(await alice.get(`/v1/scanners?limit=2&cursor=${encodeURIComponent(tampered)}`), 400, 'invalid_cursor', 'cursor');
    }
  });

  test('a cursor whose payload is re-encoded by hand → 400 invalid_cursor', async () => {
    const cursor = await firstPageCursor(alice, '/v1/scanners?limit=2');
    const [payload = '', signature = ''] = cursor.split('.');
    const decoded = Buffer.from(payload, 'base64url').toString('utf8');
    const forged = Buffer.from(decoded.replace(/SCN#scn_[0-9a-f]{32}/, `SCN#scn_${'f'.repeat(32)}`)).toString('base64url');
    expectError(await alice.get(`/v1/scanners?cursor=${encodeURIComponent(`${forged}.${signature}`)}`), 400, 'invalid_cursor', 'cursor');
    expectError(await alice.get(`/v1/scanners?cursor=${encodeURIComponent(payload)}`), 400, 'invalid_cursor', 'cursor');
  });

  test.for(['garbage', 'a.b', 'a.b.c', '.', `${'x'.repeat(100)}.${'y'.repeat(43)}`])('a made-up cursor %s → 400 invalid_cursor', async (cursor) => {
    expectError(await alice.get(`/v1/scanners?cursor=${encodeURIComponent(cursor)}`), 400, 'invalid_cursor', 'cursor');
  });

  test("account A's cursor used by account B → 400 invalid_cursor", async () => {
    const cursor = await firstPageCursor(alice, '/v1/scanners?limit=2');
    expectError(await bob.get(`/v1/scanners?limit=2&cursor=${encodeURIComponent(cursor)}`), 400, 'invalid_cursor', 'cursor');
  });
});

describe('versions list', () => {
  test('3 versions with limit=1: three pages, newest first, null cursor at the end', async () => {
    const { pages, items } = await listAll<Scanner>(bob, `/v1/scanners/${versioned.scanner_id}/versions`, 1);
    expect(pages.map((p) => p.data.length)).toEqual([1, 1, 1]);
    expect(pages[2]?.next_cursor).toBeNull();
    expect(items.map((s) => s.version)).toEqual([3, 2, 1]);
    expect(items.map((s) => s.name)).toEqual(['v3', 'v2', 'versioned']);
    expect(items[2]).toEqual(versioned);
  });

  test('a scanners-list cursor used on a versions list → 400 invalid_cursor', async () => {
    const cursor = await firstPageCursor(bob, '/v1/scanners?limit=1');
    expectError(await bob.get(`/v1/scanners/${versioned.scanner_id}/versions?cursor=${encodeURIComponent(cursor)}`), 400, 'invalid_cursor', 'cursor');
  });

  test('a versions cursor used on the scanners list → 400 invalid_cursor', async () => {
    const cursor = await firstPageCursor(bob, `/v1/scanners/${versioned.scanner_id}/versions?limit=1`);
    expectError(await bob.get(`/v1/scanners?cursor=${encodeURIComponent(cursor)}`), 400, 'invalid_cursor', 'cursor');
  });

  test("one scanner's versions cursor used on another scanner's versions → 400 invalid_cursor", async () => {
    const cursor = await firstPageCursor(bob, `/v1/scanners/${versioned.scanner_id}/versions?limit=1`);
    expectError(await bob.get(`/v1/scanners/${otherVersioned.scanner_id}/versions?cursor=${encodeURIComponent(cursor)}`), 400, 'invalid_cursor', 'cursor');
  });

  test('limit=0, limit=101, limit=abc on versions → 400', async () => {
    for (const limit of ['0', '101', 'abc']) {
      expectError(await bob.get(`/v1/scanners/${versioned.scanner_id}/versions?limit=${limit}`), 400, 'validation_failed', 'limit');
    }
  });

  test("another account's versions list is a 404 even with a valid cursor of the owner", async () => {
    const cursor = await firstPageCursor(bob, `/v1/scanners/${versioned.scanner_id}/versions?limit=1`);
    expectError(await alice.get(`/v1/scanners/${versioned.scanner_id}/versions?cursor=${encodeURIComponent(cursor)}`), 404, 'not_found');
  });
});
