/**
 * Provider page downloads through yt-dlp, with the stand-in test/helpers/fake-yt-dlp.js (no
 * internet here): it accepts only the options yt-dlp 2023.03 has, answers --dump-single-json with
 * an info dict of that version's shape, and downloads real media made with ffmpeg. Preflights go
 * through the provider resolver: provider-resolver.test.ts.
 */
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locateYtDlp, ytDlpDownloadArgs } from '../../../../functions/adapters/sources/yt-dlp.js';
import { inheritedVariables } from '../../../../functions/adapters/sources/yt-dlp-process.js';
import { HOST_INSTANCE_VARIABLE } from '../../../../functions/local/host-processes.js';
import { providerForHost } from '../../../../functions/domain/sources/providers.js';
import type { SourceOrigin } from '../../../../functions/domain/sources/ports.js';
import { apiErrorOf, fakeYtDlpPath, gatewayFixture, sha256, type GatewayFixture } from './support.js';

const youtube = providerForHost('www.youtube.com');
if (!youtube) throw new Error('youtube provider missing');
const origin: SourceOrigin = { kind: 'provider', provider: youtube };
const page = (id: string) => new URL(`https://www.youtube.com/watch?v=${id}`);
const MiB = 1024 ** 2;

let env: GatewayFixture;
let emptyDir: string;
beforeAll(async () => {
  env = await gatewayFixture({ ytDlpPath: fakeYtDlpPath });
  emptyDir = await mkdtemp(join(tmpdir(), 'no-yt-dlp-'));
});
afterAll(async () => {
  await rm(emptyDir, { recursive: true, force: true });
  await env.dispose();
});

describe('acquisition through yt-dlp', () => {
  it('downloads, verifies and stores the video, and removes the download', async () => {
    const facts = await env.gateway.acquire(page('clip'), origin, { objectKey: 'k/yt', maxBytes: 10 * MiB, contentTagging: { 'retention-days': '7' } });
    expect(facts).toMatchObject({ mediaKind: 'video', title: 'Fake clip clip' });
    expect(facts.durationMs).toBeGreaterThan(2500);
    const stored = env.objects.get('k/yt');
    expect(stored?.bytes.length).toBe(facts.sizeBytes);
    expect(stored?.input).toMatchObject({ ContentType: 'video/mp4', Tagging: 'retention-days=7' });
    expect(sha256(stored?.bytes ?? Buffer.alloc(0))).toMatch(/^[0-9a-f]{64}$/);
    expect(await env.leftovers()).toEqual([]);
  });

  it('an audio-only download fails the probe: source_unreadable, nothing stored', async () => {
    const error = await apiErrorOf(env.gateway.acquire(page('audio_only'), origin, { objectKey: 'k/audio', maxBytes: 10 * MiB }));
    expect(error.code).toBe('source_unreadable');
    expect(env.objects.has('k/audio')).toBe(false);
    expect(await env.leftovers()).toEqual([]);
  });

  it('a video yt-dlp knows to be over --max-filesize (skipped quietly, exit 0): source_too_large', async () => {
    const error = await apiErrorOf(env.gateway.acquire(page('huge'), origin, { objectKey: 'k/huge', maxBytes: 10 * MiB }));
    expect(error.code).toBe('source_too_large');
  });

  it('a download of unknown size is stopped once its files pass maxBytes', async () => {
    const started = Date.now();
    const error = await apiErrorOf(env.gateway.acquire(page('flood'), origin, { objectKey: 'k/flood', maxBytes: 4 * MiB }));
    expect(error.code).toBe('source_too_large');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await env.leftovers()).toEqual([]);
  });
});

describe('finding yt-dlp', () => {
  it('uses YT_DLP_PATH, or yt-dlp on the search path', async () => {
    expect(await locateYtDlp({ binaryPath: fakeYtDlpPath })).toBe(fakeYtDlpPath);
    const bin = await mkdtemp(join(tmpdir(), 'yt-dlp-bin-'));
    try {
      await symlink(fakeYtDlpPath, join(bin, 'yt-dlp'));
      expect(await locateYtDlp({ searchPath: `${emptyDir}:${bin}` })).toBe(join(bin, 'yt-dlp'));
    } finally {
      await rm(bin, { recursive: true, force: true });
    }
  });

  it.each<[string, { binaryPath?: string; searchPath?: string }]>([
    ['a YT_DLP_PATH that does not exist', { binaryPath: join(tmpdir(), 'no-such-yt-dlp') }],
    ['no yt-dlp on the search path', { searchPath: '' }],
  ])('%s: 503 provider_unavailable naming what to install', async (_why, options) => {
    const absent = await gatewayFixture({ ...options, searchPath: options.searchPath ?? emptyDir });
    const error = await apiErrorOf(absent.gateway.acquire(page('clip'), origin, { objectKey: 'k/none', maxBytes: MiB }));
    expect(error).toMatchObject({ code: 'provider_unavailable', status: 503 });
    expect(error.message).toContain('install the Debian package yt-dlp or set YT_DLP_PATH');
    expect(await absent.leftovers()).toEqual([]);
    await absent.dispose();
  });
});

describe('the command lines', () => {
  it('pass the URL after "--", ignore configuration files, never run the generic extractor and bound the download', () => {
    const url = page('clip');
    const download = ytDlpDownloadArgs(url, '/tmp/d', 1234, '/opt/ffmpeg');
    expect(download.slice(-2)).toEqual(['--', url.href]);
    expect(download).toContain('--ignore-config');
    expect(download).toContain('--no-playlist');
    expect(download.join(' ')).toContain('--use-extractors default,-generic');
    expect(download.join(' ')).toContain('--max-filesize 1234');
    expect(download.join(' ')).toContain('--ffmpeg-location /opt/ffmpeg');
    expect(download.join(' ')).toContain('-o /tmp/d/source.%(ext)s');
  });

  it("carry the local host's instance mark, so its reaper ends yt-dlp with a dead host", () => {
    expect(inheritedVariables).toContain(HOST_INSTANCE_VARIABLE);
  });

  it('the stand-in refuses options yt-dlp does not have, as yt-dlp does', async () => {
    const { execFile } = await import('node:child_process');
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
      execFile(fakeYtDlpPath, ['--no-such-option', '--', 'https://www.youtube.com/watch?v=clip'], (error, _stdout, stderr) =>
        resolve({ code: typeof error?.code === 'number' ? error.code : 0, stderr }),
      ),
    );
    expect(result).toEqual({ code: 2, stderr: expect.stringContaining('no such option: --no-such-option') as string });
    expect((await readFile(fakeYtDlpPath, 'utf8')).startsWith('#!/usr/bin/env node')).toBe(true);
  });
});
