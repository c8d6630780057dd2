/**
 * Renders through the local host's HTTP API (SPEC "Render request fields", DESIGN 10): presets,
 * creation with its refusals, the render workflow (one container task per moment, a child
 * process here), and every output checked with ffprobe: H.264 + AAC, the preset's exact size,
 * the moment's duration within one frame, faststart (moov before mdat), and stacked geometry.
 * The source is generated: a two-shot whose left half is a test pattern that cuts every 5 s and
 * whose right half is solid blue, so "Find the scene changes" yields moments and stacked output
 * has a known bottom panel.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, test } from 'vitest';
import { clientFor, createAccount, createScanner, expectError, type Client, type List } from '../helpers/api.js';
import { ffmpegPath } from '../helpers/ground-truth-media.js';
import { momentsOf, runToCompletion, sleep, startRun, uploadFile, twoShotVideo, type Moment, type Upload } from '../helpers/runs.js';
import { toolOutput } from '../helpers/processes.js';
import type { Render } from '../../packages/client/src/schema.js';

/** The asset of a render as GET /v1/renders/{id} returns it (the generated client's types). */
type Asset = Render['assets'][number];

/** One frame at the source's 25 fps. */
const FRAME_MS = 40;
const ffprobePath = (createRequire(import.meta.url)('@ffprobe-installer/ffprobe') as { path: string }).path;

interface Probe {
  streams: { codec_type: string; codec_name: string; width?: number; height?: number; duration?: string }[];
}

/** Top-level MP4 box types in file order. */
function topLevelBoxes(bytes: Buffer): string[] {
  const boxes: string[] = [];
  for (let offset = 0; offset + 8 <= bytes.length; ) {
    let size = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    if (size === 1) size = Number(bytes.readBigUInt64BE(offset + 8));
    if (size < 8) break;
    boxes.push(type);
    offset += size;
  }
  return boxes;
}

let client: Client;
let stranger: Client;
let upload: Upload;
let scannerId: string;
let analysisId: string;
let observationId: string;
let moments: Moment[];
let workDir: string;

beforeAll(async () => {
  const [account, source] = await Promise.all([createAccount({ plan: 'creator', credits: 100 }), twoShotVideo()]);
  client = clientFor(account.apiKey);
  stranger = clientFor(inject('apiKey'));
  upload = await uploadFile(client, source);
  const scanner = await createScanner(client, { name: 'Cuts', instructions: 'Find the scene changes', type: 'find_moments', min_seconds: 5, max_seconds: 5 });
  scannerId = scanner.scanner_id;
  const { run: done, observations } = await runToCompletion(client, scannerId, { upload_id: upload.upload_id });
  analysisId = done.analysis_id;
  observationId = observations[0]?.observation_id ?? 'obs_none';
  moments = (await momentsOf(client, analysisId)).moments;
  expect(moments.length).toBeGreaterThanOrEqual(2);
  workDir = await mkdtemp(join(tmpdir(), 'mss-renders-'));
});

async function waitForRender(renderId: string, timeoutMs = 120_000): Promise<Render> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await client.get<Render>(`/v1/renders/${renderId}`);
    expect(response.status, response.text).toBe(200);
    if (response.body.status === 'completed' || response.body.status === 'failed') return response.body;
    if (Date.now() > deadline) throw new Error(`render ${renderId} still ${response.body.status}`);
    await sleep(300);
  }
}

/** Downloads a completed asset and checks what every render output must be. */
async function checkAsset(asset: Asset, moment: Moment, size: { width: number; height: number }): Promise<string> {
  expect(asset).toMatchObject({ status: 'completed', content_type: 'video/mp4', width: size.width, height: size.height, captions: false });
  expect(Date.parse(asset.url_expires_at ?? '')).toBeGreaterThan(Date.now());
  const response = await fetch(asset.url ?? '');
  expect(response.status).toBe(200);
  const bytes = Buffer.from(await response.arrayBuffer());
  expect(bytes.length).toBe(asset.size_bytes);
  const path = join(workDir, `${asset.moment_id}-${size.width}x${size.height}.mp4`);
  await writeFile(path, bytes);

  const probe = JSON.parse((await toolOutput(ffprobePath, ['-v', 'error', '-show_streams', '-of', 'json', path])).toString()) as Probe;
  const video = probe.streams.find((s) => s.codec_type === 'video');
  const audio = probe.streams.find((s) => s.codec_type === 'audio');
  expect(video).toMatchObject({ codec_name: 'h264', width: size.width, height: size.height });
  expect(audio?.codec_name).toBe('aac');
  const videoMs = Number(video?.duration) * 1000;
  expect(Math.abs(videoMs - moment.duration_ms), `video ${videoMs} ms vs moment ${moment.duration_ms} ms`).toBeLessThanOrEqual(FRAME_MS + 1);
  expect(Math.abs((asset.duration_ms ?? 0) - moment.duration_ms)).toBeLessThanOrEqual(FRAME_MS + 50);
  // faststart: the index precedes the media data.
  const boxes = topLevelBoxes(bytes);
  expect(boxes.indexOf('moov'), boxes.join(',')).toBeGreaterThanOrEqual(0);
  expect(boxes.indexOf('moov')).toBeLessThan(boxes.indexOf('mdat'));
  return path;
}

/** Mean RGB of the top and bottom halves of the frame at `seconds` (area averaging). */
async function halvesColours(path: string, seconds: number): Promise<[number[], number[]]> {
  const raw = await toolOutput(ffmpegPath(), [
    '-v',
    'error',
    '-ss',
    String(seconds),
    '-i',
    path,
    '-frames:v',
    '1',
    '-vf',
    'scale=1:2:flags=area',
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgb24',
    'pipe:1',
  ]);
  return [[...raw.subarray(0, 3)], [...raw.subarray(3, 6)]];
}

const isBlue = ([r = 0, g = 0, b = 0]: number[]) => b > 150 && r < 80 && g < 110;

describe('GET /v1/render-presets', () => {
  test('lists formats, sizes, caption presets with their fonts, effects and framing modes', async () => {
    const response = await client.get<{
      object: string;
      formats: string[];
      aspect_ratios: { id: string }[];
      caption_presets: { font_id: string }[];
      fonts: { id: string; license: string }[];
      framing_modes: string[];
    }>('/v1/render-presets');
    expect(response.status, response.text).toBe(200);
    expect(response.body.object).toBe('render_presets');
    expect(response.body.formats).toEqual(['mp4']);
    expect(response.body.aspect_ratios.map((a) => a.id)).toEqual(['9:16', '1:1', '4:5', '16:9', 'original']);
    expect(response.body.framing_modes).toEqual(['auto', 'stacked']);
    expect(response.body.caption_presets.length).toBeGreaterThanOrEqual(3);
    for (const preset of response.body.caption_presets) expect(response.body.fonts.map((f) => f.id)).toContain(preset.font_id);
  });
});

describe('POST /v1/renders', () => {
  test("9:16 auto and 9:16 stacked: H.264/AAC MP4s of exact size and the moments' duration, faststart; stacked puts the right half below", {
    timeout: 240_000,
  }, async () => {
    const [first, second] = moments;
    if (!first || !second) throw new Error('two moments expected');
    const key = `render-${analysisId}`;
    const body = { analysis_id: analysisId, moment_ids: [first.id, second.id], render: { output: { format: 'mp4', aspect_ratio: '9:16' } } };
    const accepted = await client.post<Render>('/v1/renders', body, { 'idempotency-key': key });
    expect(accepted.status, accepted.text).toBe(202);
    expect(accepted.body).toMatchObject({ object: 'render', status: 'queued', analysis_id: analysisId, moment_ids: [first.id, second.id], assets: [] });
    expect(accepted.body.render).toEqual({
      output: { format: 'mp4', aspect_ratio: '9:16' },
      captions: { enabled: false, preset_id: 'bold_pop' },
      framing: { mode: 'auto' },
    });
    expect(accepted.body.render_id).toMatch(/^rnd_[0-9a-f]{32}$/);
    // The same key and body: the same render, nothing created twice; another body under it: a conflict.
    const replay = await client.post<Render>('/v1/renders', body, { 'idempotency-key': key });
    expect(replay.status).toBe(202);
    expect(replay.body.render_id).toBe(accepted.body.render_id);
    expectError(await client.post('/v1/renders', { ...body, moment_ids: [first.id] }, { 'idempotency-key': key }), 409, 'idempotency_key_reused');

    const stackedAccepted = await client.post<Render>('/v1/renders', {
      analysis_id: analysisId,
      moment_ids: [second.id],
      render: { output: { aspect_ratio: '9:16' }, framing: { mode: 'stacked' } },
    });
    expect(stackedAccepted.status, stackedAccepted.text).toBe(202);

    const [auto, stacked] = await Promise.all([waitForRender(accepted.body.render_id), waitForRender(stackedAccepted.body.render_id)]);
    expect(auto.status, JSON.stringify(auto.assets)).toBe('completed');
    expect(auto.assets.map((a) => a.moment_id)).toEqual([first.id, second.id]);
    await checkAsset(auto.assets[0] as Asset, first, { width: 1080, height: 1920 });
    await checkAsset(auto.assets[1] as Asset, second, { width: 1080, height: 1920 });

    expect(stacked.status, JSON.stringify(stacked.assets)).toBe('completed');
    const stackedPath = await checkAsset(stacked.assets[0] as Asset, second, { width: 1080, height: 1920 });
    // Stacked: the test pattern (left half) on top, the blue right half below.
    const [top, bottom] = await halvesColours(stackedPath, 1);
    expect([isBlue(top), isBlue(bottom)], JSON.stringify({ top, bottom })).toEqual([false, true]);

    // Render history, newest first, with the same records.
    const list = await client.get<List<Render>>('/v1/renders?limit=10');
    expect(list.status, list.text).toBe(200);
    expect(list.body.data.map((r) => r.render_id)).toEqual([stackedAccepted.body.render_id, accepted.body.render_id]);
    expect(list.body.data[1]?.assets.map((a) => a.status)).toEqual(['completed', 'completed']);
  });

  test('409 analysis_not_completed while the analysis runs', async () => {
    const running = await startRun(client, scannerId, { upload_id: upload.upload_id });
    const response = await client.post('/v1/renders', { analysis_id: running.analysis_id, moment_ids: [moments[0]?.id] });
    expectError(response, 409, 'analysis_not_completed');
  });

  test('400 moment_not_found names the index of an unknown, observation or foreign id', async () => {
    const [first] = moments;
    expectError(
      await client.post('/v1/renders', { analysis_id: analysisId, moment_ids: [first?.id, 'mom_00000000000000000000000000000000'] }),
      400,
      'moment_not_found',
      'moment_ids[1]',
    );
    expectError(await client.post('/v1/renders', { analysis_id: analysisId, moment_ids: [observationId] }), 400, 'moment_not_found', 'moment_ids[0]');
    // Another account's analysis is not found at all.
    expectError(await stranger.post('/v1/renders', { analysis_id: analysisId, moment_ids: [first?.id] }), 404, 'not_found');
  });

  test('unknown preset values name the field; captions without a transcriber: 400 captions_unavailable', async () => {
    const moment_ids = [moments[0]?.id];
    expectError(
      await client.post('/v1/renders', { analysis_id: analysisId, moment_ids, render: { output: { aspect_ratio: '3:2' } } }),
      400,
      'validation_failed',
      'render.output.aspect_ratio',
    );
    expectError(
      await client.post('/v1/renders', { analysis_id: analysisId, moment_ids, render: { captions: { enabled: true, preset_id: 'comic' } } }),
      400,
      'validation_failed',
      'render.captions.preset_id',
    );
    expectError(
      await client.post('/v1/renders', { analysis_id: analysisId, moment_ids, render: { output: { aspect_ratio: '16:9' }, framing: { mode: 'stacked' } } }),
      400,
      'validation_failed',
      'render.framing.mode',
    );
    expectError(await client.post('/v1/renders', { analysis_id: analysisId, moment_ids: [] }), 400, 'validation_failed', 'moment_ids');
    // The shared local host runs with TRANSCRIBER=none (the default).
    expectError(
      await client.post('/v1/renders', { analysis_id: analysisId, moment_ids, render: { captions: { enabled: true } } }),
      400,
      'captions_unavailable',
      'render.captions.enabled',
    );
  });

  test('unknown and foreign renders are 404', async () => {
    expectError(await client.get('/v1/renders/rnd_00000000000000000000000000000000'), 404, 'not_found');
    const list = await client.get<List<Render>>('/v1/renders');
    const own = list.body.data[0];
    if (own) expectError(await stranger.get(`/v1/renders/${own.render_id}`), 404, 'not_found');
  });
});
