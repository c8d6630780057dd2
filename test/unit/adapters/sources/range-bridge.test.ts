/** The loopback range bridge ffprobe reads sources through: one secret path, GET/HEAD with Range. */
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { openRangeBridge, parseRange, type RangeSource } from '../../../../functions/adapters/sources/range-bridge.js';

const bytes = randomBytes(1000);
const memory: RangeSource = { size: bytes.length, read: (start, end) => Promise.resolve(Readable.from([bytes.subarray(start, end + 1)])) };

describe('parseRange', () => {
  it.each([
    [undefined, undefined],
    ['bytes=0-', { start: 0, end: 999 }],
    ['bytes=100-199', { start: 100, end: 199 }],
    ['bytes=900-5000', { start: 900, end: 999 }],
    ['bytes=-100', { start: 900, end: 999 }],
    ['bytes=-5000', { start: 0, end: 999 }],
    ['bytes=1000-', 'unsatisfiable'],
    ['bytes=5-4', 'unsatisfiable'],
    ['bytes=-0', 'unsatisfiable'],
    ['bytes=0-1,5-6', undefined],
    ['items=0-1', undefined],
    ['bytes=-', undefined],
  ] as const)('%s -> %j', (header, expected) => {
    expect(parseRange(header, 1000)).toEqual(expected);
  });
});

describe('openRangeBridge', () => {
  it('answers ranges, whole reads and HEAD on its one path, 404 elsewhere', async () => {
    const bridge = await openRangeBridge(memory);
    try {
      expect(bridge.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[\w-]{32}$/);
      const ranged = await fetch(bridge.url, { headers: { range: 'bytes=10-19' } });
      expect(ranged.status).toBe(206);
      expect(ranged.headers.get('content-range')).toBe('bytes 10-19/1000');
      expect(Buffer.from(await ranged.arrayBuffer())).toEqual(bytes.subarray(10, 20));
      const whole = await fetch(bridge.url);
      expect(whole.status).toBe(200);
      expect(Buffer.from(await whole.arrayBuffer())).toEqual(bytes);
      const head = await fetch(bridge.url, { method: 'HEAD' });
      expect([head.status, head.headers.get('content-length'), head.headers.get('accept-ranges')]).toEqual([200, '1000', 'bytes']);
      expect((await fetch(`${new URL(bridge.url).origin}/other`)).status).toBe(404);
      expect((await fetch(bridge.url, { method: 'POST', body: 'x' })).status).toBe(404);
      expect((await fetch(bridge.url, { headers: { range: 'bytes=2000-' } })).status).toBe(416);
      expect(bridge.failure).toBeUndefined();
    } finally {
      await bridge.close();
    }
  });

  it('answers 502 and keeps the failure when the source cannot be read', async () => {
    const failing: RangeSource = { size: 10, read: () => Promise.reject(new Error('upstream refused')) };
    const bridge = await openRangeBridge(failing);
    try {
      expect((await fetch(bridge.url)).status).toBe(502);
      expect(bridge.failure?.message).toBe('upstream refused');
    } finally {
      await bridge.close();
    }
  });
});
