/**
 * Errors (DESIGN §4): every failure is `{error:{type,code,message,param?,request_id}}` with
 * content-type application/json and x-request-id = request_id; schema failures are 400
 * validation_failed naming the field; unknown routes (and wrong methods) are 404 not_found;
 * and no input, however odd, produces a 5xx.
 */
import { Agent } from 'node:http';
import { beforeAll, describe, expect, inject, test } from 'vitest';
import {
  clientFor,
  createAccount,
  createScanner,
  expectClientError,
  expectError,
  rawRequest,
  validScanner,
  type ApiResponse,
  type Client,
  type Scanner,
} from '../helpers/api.js';

const baseUrl = inject('baseUrl');
let apiKey: string;
let client: Client;
let scanner: Scanner;

beforeAll(async () => {
  ({ apiKey } = await createAccount({ plan: 'creator', credits: 10 }));
  client = clientFor(apiKey);
  scanner = await createScanner(client, validScanner('classifier', { name: 'errors-suite scanner' }));
});

describe('validation errors name the field', () => {
  test('malformed JSON → 400 validation_failed, param body', async () => {
    for (const raw of ['{"name":', '{', "{'name':'x'}", '{"name":"x",}', 'name=x&type=monitor']) {
      const response = await client.send('POST', '/v1/scanners', { raw, headers: { 'content-type': 'application/json' } });
      const error = expectError(response, 400, 'validation_failed', 'body');
      expect(error.type).toBe('invalid_request_error');
    }
  });

  test('no body at all → 400 validation_failed, param body', async () => {
    expectError(await client.send('POST', '/v1/scanners'), 400, 'validation_failed', 'body');
    expectError(await client.send('PATCH', `/v1/scanners/${scanner.scanner_id}`), 400, 'validation_failed', 'body');
  });

  test('a body that is not an object → 400 validation_failed', async () => {
    for (const raw of ['[]', 'null', '"scanner"', '42', 'true']) {
      expectError(await client.send('POST', '/v1/scanners', { raw }), 400, 'validation_failed');
    }
  });

  test('wrong types → 400 with param naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [validScanner('monitor', { max_observations: '5' }), 'max_observations'],
      [validScanner('monitor', { max_observations: 2.5 }), 'max_observations'],
      [validScanner('monitor', { name: 12 }), 'name'],
      [validScanner('monitor', { instructions: ['x'] }), 'instructions'],
      [validScanner('monitor', { type: 'detector' }), 'type'],
      [validScanner('monitor', { profile: 'podcast' }), 'profile'],
      [validScanner('classifier', { output: { labels: [5, 'b'] } }), 'output.labels[0]'],
      [validScanner('classifier', { output: { labels: ['a', 'b', null] } }), 'output.labels[2]'],
      [validScanner('extractor', { output: { fields: ['ok', 'Not_OK'] } }), 'output.fields[1]'],
      [validScanner('monitor', { output: 'labels' }), 'output'],
      [validScanner('monitor', { metadata: ['a'] }), 'metadata'],
      [validScanner('monitor', { metadata: { source: { nested: true } } }), 'metadata.source'],
      [validScanner('find_moments', { min_seconds: '10' }), 'min_seconds'],
    ];
    for (const [body, param] of cases) {
      expectError(await client.post('/v1/scanners', body), 400, 'validation_failed', param);
    }
  });

  test('missing required fields → 400 naming the first one', async () => {
    expectError(await client.post('/v1/scanners', { instructions: 'x', type: 'monitor' }), 400, 'validation_failed', 'name');
    expectError(await client.post('/v1/scanners', { name: 'x', type: 'monitor' }), 400, 'validation_failed', 'instructions');
    expectError(await client.post('/v1/scanners', { name: 'x', instructions: 'y' }), 400, 'validation_failed', 'type');
  });

  test('unknown fields → 400 naming the field, top-level and nested', async () => {
    expectError(await client.post('/v1/scanners', validScanner('monitor', { colour: 'red' })), 400, 'validation_failed', 'colour');
    expectError(
      await client.post('/v1/scanners', validScanner('classifier', { output: { labels: ['a', 'b'], colours: ['red'] } })),
      400,
      'validation_failed',
      'output.colours',
    );
    expectError(await client.patch(`/v1/scanners/${scanner.scanner_id}`, { nickname: 'x' }), 400, 'validation_failed', 'nickname');
    expectError(await client.post('/v1/scanners', validScanner('monitor', { scanner_id: 'scn_mine' })), 400, 'validation_failed', 'scanner_id');
    expectError(await client.post('/v1/scanners', validScanner('monitor', { version: 7 })), 400, 'validation_failed', 'version');
  });

  test('unknown query parameters → 400 naming them', async () => {
    expectError(await client.get('/v1/account?expand=wallet'), 400, 'validation_failed', 'expand');
    expectError(await client.get(`/v1/scanners/${scanner.scanner_id}?version=1`), 400, 'validation_failed', 'version');
    expectError(await client.get('/v1/scanners?sort=asc'), 400, 'validation_failed', 'sort');
  });

  test('a malformed Idempotency-Key → 400 naming the header', async () => {
    for (const key of ['', 'has space', 'k'.repeat(256), 'caf\u00e9']) {
      const response = await client.post('/v1/scanners', validScanner('monitor'), { 'idempotency-key': key });
      expectError(response, 400, 'validation_failed', 'Idempotency-Key');
    }
  });
});

describe('unknown routes', () => {
  test.for([
    '/v1/nope',
    '/v2/account',
    '/',
    '/v1',
    '/v1/',
    '/v1/scanners/',
    '/v1/account/extra',
    `/v1/scanners/scn_x/versions/1`,
    '/v1/Scanners',
    '/V1/account',
  ])('GET %s → 404 not_found envelope', async (path) => {
    const error = expectError(await client.get(path), 404, 'not_found');
    expect(error.type).toBe('not_found_error');
  });

  test('unknown routes answer 404 with or without a key', async () => {
    expectError(await clientFor(undefined).get('/v1/nope'), 404, 'not_found');
    expectError(await clientFor('sk_live_bogus').send('DELETE', '/v1/account'), 404, 'not_found');
  });

  test.for([
    ['DELETE', '/v1/scanners'],
    ['PUT', '/v1/scanners'],
    ['PATCH', '/v1/scanners'],
    ['POST', '/v1/account'],
    ['PATCH', '/v1/account'],
    ['DELETE', '/v1/account'],
    ['PUT', '/v1/scanners/scn_0'],
    ['POST', '/v1/scanners/scn_0'],
    ['DELETE', '/v1/scanners/scn_0'],
    ['POST', '/v1/scanners/scn_0/versions'],
    ['OPTIONS', '/v1/scanners'],
  ])('%s %s (a wrong method on a known path) → 404 not_found', async ([method, path]) => {
    const response = await client.send(method ?? 'GET', path ?? '/', { json: {} });
    expectError(response, 404, 'not_found');
  });

  test('a wrong method on a real scanner does not touch it', async () => {
    expectError(await client.send('DELETE', `/v1/scanners/${scanner.scanner_id}`), 404, 'not_found');
    expectError(await client.send('PUT', `/v1/scanners/${scanner.scanner_id}`, { json: { name: 'put' } }), 404, 'not_found');
    const current = await client.get<Scanner>(`/v1/scanners/${scanner.scanner_id}`);
    expect(current.status).toBe(200);
    expect(current.body.version).toBe(1);
    expect(current.body.name).toBe(scanner.name);
  });
});

describe('request size', () => {
  test('a body over 10 MB → 413 payload_too_large in the envelope', async () => {
    const response = await client.send('POST', '/v1/scanners', { raw: `{"name":"${'x'.repeat(11 * 1024 * 1024)}"}` });
    expectError(response, 413, 'payload_too_large');
  });

  test('after a 413 the same keep-alive connection still serves the next request', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const headers = { authorization: `Bearer ${apiKey}` };
      const tooLarge = await rawRequest(baseUrl, 'POST', '/v1/scanners', { headers, body: Buffer.alloc(11 * 1024 * 1024, 'x'), agent });
      expectError(tooLarge, 413, 'payload_too_large');
      // A client that reuses its connection must not get a reset for its next, valid request.
      const next = await rawRequest(baseUrl, 'GET', '/v1/account', { headers, agent, timeoutMs: 3_000 }).catch((error: unknown) => error);
      expect(next instanceof Error ? `${next.name}: ${next.message}` : (next as ApiResponse<unknown>).status).toBe(200);
    } finally {
      agent.destroy();
    }
  });
});

describe('no input ever produces a 5xx', () => {
  const nested = (depth: number) => `{"name":"n","instructions":"i","type":"monitor","metadata":{"a":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}}`;
  const deepArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  const bodies: [string, string][] = [
    ['empty string', ''],
    ['whitespace', '   \n\t '],
    ['truncated JSON', '{"name":"a","instructions":'],
    ['JSON with comments', '{/* c */"name":"a"}'],
    ['NaN literal', '{"max_observations":NaN}'],
    ['number overflowing to Infinity', JSON.stringify(validScanner('monitor')).replace('{', '{"max_observations":1e999,')],
    ['negative zero', JSON.stringify(validScanner('monitor', { max_observations: -0 })).replace('"max_observations":0', '"max_observations":-0')],
    ['array body', '[{"name":"a","instructions":"b","type":"monitor"}]'],
    ['deeply nested array body', deepArray(50_000)],
    ['deeply nested object value', nested(5_000)],
    ['1 MB name', JSON.stringify(validScanner('monitor', { name: 'x'.repeat(1_000_000) }))],
    ['100k-emoji instructions', JSON.stringify(validScanner('monitor', { instructions: '😀'.repeat(100_000) }))],
    ['unicode type', JSON.stringify(validScanner('monitor', { type: 'mönitor' }))],
    ['unicode field name', JSON.stringify({ ...validScanner('monitor'), 名前: 'x' })],
    ['NUL in the type', JSON.stringify(validScanner('monitor', { type: 'monitor\u0000' }))],
    ['operator object as a value', JSON.stringify(validScanner('monitor', { type: { $ne: null } }))],
    ['__proto__ field', '{"__proto__":{"name":"a"},"instructions":"b","type":"monitor"}'],
    ['constructor field', JSON.stringify({ ...validScanner('monitor'), constructor: { prototype: { admin: true } } })],
    ['null name', JSON.stringify(validScanner('monitor', { name: null }))],
    ['whitespace-only name', JSON.stringify(validScanner('monitor', { name: '   ' }))],
    ['null everywhere', '{"name":null,"instructions":null,"type":null,"output":null,"metadata":null}'],
    ['labels as a string', JSON.stringify(validScanner('classifier', { output: { labels: 'a,b' } }))],
    ['1000 labels', JSON.stringify(validScanner('classifier', { output: { labels: Array.from({ length: 1000 }, (_, i) => `l${i}`) } }))],
    ['array metadata value', JSON.stringify(validScanner('monitor', { metadata: { k: [1, 2] } }))],
    ['1000 metadata keys', JSON.stringify(validScanner('monitor', { metadata: Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, i])) }))],
  ];

  test.for(bodies)('POST /v1/scanners with %s → 4xx envelope', async ([, raw]) => {
    expectClientError(await client.send('POST', '/v1/scanners', { raw, headers: { 'content-type': 'application/json' } }));
  });

  test.for(bodies.filter(([name]) => !['unicode field name', 'array body'].includes(name)))(
    'PATCH a scanner with %s → 4xx envelope, scanner unchanged',
    async ([name, raw]) => {
      const patchBody = name === 'null everywhere' ? raw : raw.replace('"type":"monitor"', '"type":"monitor","profile":"nope"');
      expectClientError(await client.send('PATCH', `/v1/scanners/${scanner.scanner_id}`, { raw: patchBody }));
      const current = await client.get<Scanner>(`/v1/scanners/${scanner.scanner_id}`);
      expect(current.body.version).toBe(1);
    },
  );

  const oddIds = [
    '%00',
    '..%2f',
    '..%2F..%2Faccount',
    '%2e%2e',
    '%20',
    '%25',
    '%F0%9F%98%80',
    'SCN_' + 'A'.repeat(32),
    `scn_${'0'.repeat(32)}`,
    "scn_'%20OR%201=1--",
    '%3Cscript%3E',
    'x'.repeat(201),
    'x'.repeat(1_000),
    'y'.repeat(8_000),
    '%',
    '%ZZ',
    '%E0%A4%A',
    '%C0%AF',
    '%ED%A0%80',
  ];

  test.for(oddIds.map((id) => [id.length > 40 ? `${id.slice(0, 8)}… (${id.length} chars)` : id, id]))(
    'odd scanner id %s → 4xx envelope on GET, PATCH and versions',
    async ([label, id]) => {
      const responses = await Promise.all([
        client.get(`/v1/scanners/${id}`),
        client.patch(`/v1/scanners/${id}`, { name: 'x' }),
        client.get(`/v1/scanners/${id}/versions`),
      ]);
      for (const response of responses) {
        expect(response.status, `${label}: ${response.text.slice(0, 200)}`).toBeLessThan(500);
        expectClientError(response);
      }
    },
  );

  const queries = [
    'limit=%FF',
    'limit[]=1',
    'limit=1&limit=2',
    'limit=-1',
    'limit=1e999',
    'limit=Infinity',
    'limit=NaN',
    'limit=%00',
    `cursor=${'c'.repeat(5_000)}`,
    'cursor=',
    'cursor=%',
    'cursor=a.b.c',
    'cursor=..',
    'cursor[$gt]=',
    '%00=%00',
    '=x',
    '&&&=&',
    'constructor=1',
    'toString=x',
    `${'q'.repeat(3_000)}=1`,
  ];

  test.for(queries.map((q) => [q.length > 40 ? `${q.slice(0, 8)}… (${q.length} chars)` : q, q]))('GET /v1/scanners?%s → 4xx envelope', async ([, query]) => {
    expectClientError(await client.get(`/v1/scanners?${query}`));
  });

  test('query garbage on the versions list and the account → 4xx envelope', async () => {
    for (const query of ['limit=0', 'cursor=x', 'x=1', 'limit=%FF']) {
      expectClientError(await client.get(`/v1/scanners/${scanner.scanner_id}/versions?${query}`));
    }
    expectClientError(await client.get('/v1/account?limit=1'));
  });

  test.for(['//[', '//v1/account', '*', '/%', '/v1/%zz', '/v1/scanners/%/versions', '/v1/account/%'])(
    'raw request target %s → 4xx envelope',
    async (target) => {
      expectClientError(await rawRequest(baseUrl, 'GET', target, { headers: { authorization: `Bearer ${apiKey}` } }));
    },
  );

  test('none of the odd inputs above created or changed a scanner', async () => {
    const list = await client.get<{ data: Scanner[] }>('/v1/scanners?limit=100');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([scanner]);
  });
});
