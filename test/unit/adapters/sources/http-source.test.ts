/**
 * Preflight and acquisition of direct media URLs (trusted hosts, storage links) through the
 * source gateway: served from loopback with allowLoopback (as the local host runs with
 * LOCAL_ALLOW_LOOPBACK_TARGETS=1), probed by the real ffprobe inspector through the range bridge.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SourceOrigin } from '../../../../functions/domain/sources/ports.js';
import { fixture } from '../../../helpers/media-fixtures.js';
import type { TestServer } from '../outbound/support.js';
import { stubResolver } from '../outbound/support.js';
import { apiErrorOf, gatewayFixture, mediaServer, sha256, type GatewayFixture } from './support.js';

const trusted: SourceOrigin = { kind: 'trusted_host', host: '127.0.0.1' };
let server: TestServer;
let base: string;
let video: Buffer;
let env: GatewayFixture;
// A name that resolves to loopback once, then to a private address (DNS rebinding between reads).
const resolver = stubResolver({ 'rebind.example.test': (call) => (call === 1 ? ['127.0.0.1'] : ['10.0.0.7']) });

beforeAll(async () => {
  const [mp4, moovLast, m4a, random] = await Promise.all([fixture('video.mp4'), fixture('video-moov-last.mp4'), fixture('audio.m4a'), fixture('random.bin')]);
  video = await readFile(mp4);
  server = await mediaServer({ 'video.mp4': mp4, 'moov-last.mp4': moovLast, 'audio.m4a': m4a, 'random.bin': random });
  base = `http://127.0.0.1:${server.port}`;
  env = await gatewayFixture({ resolver });
}, 60_000);
afterAll(async () => {
  await server.close();
  await env.dispose();
});

const url = (path: string) => new URL(`${base}${path}`);

describe('preflight', () => {
  it('measures a Range-capable source by range reads only', async () => {
    const facts = await env.gateway.preflight(url('/range/video.mp4'), trusted);
    expect(facts).toEqual({ mediaKind: 'video', durationMs: expect.closeTo(3000, -2) as number, sizeBytes: video.length, title: null });
    const reads = server.requests.filter((r) => r.url === '/range/video.mp4');
    expect(reads.length).toBeGreaterThan(1);
    expect(reads.every((r) => r.headers.range !== undefined)).toBe(true);
    expect(await env.leftovers()).toEqual([]);
  });

  it('seeks by range to an index at the end of the file (MP4 with moov last)', async () => {
    const facts = await env.gateway.preflight(url('/range/moov-last.mp4'), trusted);
    expect(facts.durationMs).toBeGreaterThan(2500);
    const starts = server.requests.filter((r) => r.url === '/range/moov-last.mp4').map((r) => Number(/bytes=(\d+)/.exec(r.headers.range ?? '')?.[1]));
    expect(Math.max(...starts)).toBeGreaterThan(0);
  });

  it('follows a redirect and reads the final URL', async () => {
    const facts = await env.gateway.preflight(url('/redirect/video.mp4'), trusted);
    expect(facts.sizeBytes).toBe(video.length);
  });

  it.each(['/plain/video.mp4', '/chunked/video.mp4'])('falls back to a bounded temporary download without Range support: %s', async (path) => {
    const facts = await env.gateway.preflight(url(path), trusted);
    expect(facts.durationMs).toBeGreaterThan(2500);
    expect(facts.sizeBytes).toBe(video.length);
    if (path.startsWith('/plain')) expect(facts.title).toBe('video.mp4');
    expect(await env.leftovers()).toEqual([]);
  });

  it.each([
    ['an audio-only source', '/range/audio.m4a', /no video stream/],
    ['an audio-only source without Range', '/plain/audio.m4a', /no video stream/],
    ['random bytes', '/range/random.bin', /not readable video/],
    ['a web page', '/html/x', /web page/],
    ['a missing file', '/range/missing.mp4', /HTTP 404/],
  ])('%s: 422 source_unreadable', async (_why, path, message) => {
    const error = await apiErrorOf(env.gateway.preflight(url(path), trusted));
    expect(error).toMatchObject({ code: 'source_unreadable', status: 422, param: 'source_url' });
    expect(error.message).toMatch(message);
    expect(await env.leftovers()).toEqual([]);
  });

  it('a redirect to a forbidden address: 422 untrusted_source_url, nothing sent there', async () => {
    const error = await apiErrorOf(env.gateway.preflight(url('/redirect-private/x'), trusted));
    expect(error).toMatchObject({ code: 'untrusted_source_url', status: 422 });
    expect(error.message).toContain('forbidden address');
  });

  it('a host that rebinds to a private address between range reads: untrusted_source_url', async () => {
    const error = await apiErrorOf(env.gateway.preflight(new URL(`http://rebind.example.test:${server.port}/range/video.mp4`), trusted));
    expect(error.code).toBe('untrusted_source_url');
  });

  it('a source that cannot be reached: source_unreadable, and the message never carries the query', async () => {
    const closed = await mediaServer({});
    const port = closed.port;
    await closed.close();
    const error = await apiErrorOf(env.gateway.preflight(new URL(`http://127.0.0.1:${port}/clip.mp4?X-Amz-Signature=SECRET`), trusted));
    expect(error.code).toBe('source_unreadable');
    expect(error.message).not.toContain('SECRET');
    expect(error.message).not.toContain('clip.mp4');
  });

  it('a storage link is fetched in its direct-download form', async () => {
    const storage = await mediaServer({});
    try {
      const provider = { id: 'dropbox', name: 'Dropbox', kind: 'storage', resolver: 'storage-link', hostnames: [] } as const;
      // The share page form (dl=0) is rewritten to dl=1 before any request.
      await apiErrorOf(env.gateway.preflight(new URL(`http://127.0.0.1:${storage.port}/s/abc/clip.mp4?dl=0`), { kind: 'provider', provider }));
      expect(storage.requests.map((r) => r.url)).toEqual(['/s/abc/clip.mp4?dl=1']);
    } finally {
      await storage.close();
    }
  });
});

describe('acquire', () => {
  it('copies the whole source into the media store and returns the facts of the copy', async () => {
    const facts = await env.gateway.acquire(url('/range/video.mp4'), trusted, {
      objectKey: 'accounts/acct_1/sources/ana_1',
      maxBytes: 10 * 1024 ** 2,
      contentTagging: { 'retention-days': '30' },
    });
    expect(facts).toMatchObject({ mediaKind: 'video', sizeBytes: video.length, title: null });
    expect(facts.durationMs).toBeGreaterThan(2500);
    const stored = env.objects.get('accounts/acct_1/sources/ana_1');
    expect(stored && sha256(stored.bytes)).toBe(sha256(video));
    expect(stored?.input).toMatchObject({ Bucket: 'media-bucket', ContentLength: video.length, ContentType: 'video/mp4', Tagging: 'retention-days=30' });
    expect(await env.leftovers()).toEqual([]);
  });

  describe('a source without byte ranges longer than the preflight reads (fallbackMaxBytes)', () => {
    let small: GatewayFixture;
    beforeAll(async () => {
      small = await gatewayFixture({ fallbackMaxBytes: Math.floor(video.length * 0.6) });
    });
    afterAll(() => small.dispose());

    it.each([
      ['/chunked/video.mp4', null],
      ['/plain/video.mp4', 'declared'],
    ])('%s: measured from its prefix (an index at the start), its size the declared one or unknown', async (path, size) => {
      const facts = await small.gateway.preflight(url(path), trusted);
      expect(facts).toMatchObject({ mediaKind: 'video', sizeBytes: size === null ? null : video.length });
      expect(facts.durationMs).toBeGreaterThan(2500);
      expect(await small.leftovers()).toEqual([]);
    });

    it('an index at the end cannot be read from a prefix: 422 source_unreadable saying how to serve it', async () => {
      const error = await apiErrorOf(small.gateway.preflight(url('/chunked/moov-last.mp4'), trusted));
      expect(error.code).toBe('source_unreadable');
      expect(error.message).toContain('faststart');
      expect(await small.leftovers()).toEqual([]);
    });
  });

  it('works from a server without Range or length', async () => {
    const facts = await env.gateway.acquire(url('/chunked/video.mp4'), trusted, { objectKey: 'k/chunked', maxBytes: 10 * 1024 ** 2 });
    expect(facts.sizeBytes).toBe(video.length);
    expect(env.objects.get('k/chunked')?.input.ContentType).toBe('application/octet-stream');
  });

  it.each([
    ['/range/video.mp4', 'a declared length'],
    ['/chunked/video.mp4', 'no declared length'],
  ])('refuses more than maxBytes (%s, %s): source_too_large, nothing stored', async (path) => {
    const error = await apiErrorOf(env.gateway.acquire(url(path), trusted, { objectKey: 'k/too-large', maxBytes: 10_000 }));
    expect(error.code).toBe('source_too_large');
    expect(env.objects.has('k/too-large')).toBe(false);
    expect(await env.leftovers()).toEqual([]);
  });

  it.each([
    ['/range/audio.m4a', 'source_unreadable'],
    ['/range/random.bin', 'source_unreadable'],
    ['/redirect-private/x', 'untrusted_source_url'],
  ])('%s: %s, nothing stored, no temporary file left', async (path, code) => {
    const error = await apiErrorOf(env.gateway.acquire(url(path), trusted, { objectKey: 'k/refused', maxBytes: 10 * 1024 ** 2 }));
    expect(error.code).toBe(code);
    expect(env.objects.has('k/refused')).toBe(false);
    expect(await env.leftovers()).toEqual([]);
  });
});
