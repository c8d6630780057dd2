/**
 * Burned-in captions end to end, on a host of its own with TRANSCRIBER=moonshine (npm start's
 * default; the shared host runs without a transcriber): a generated two-shot with speech
 * (espeak-ng) in its first seconds and silence after is analysed, its moments keep their words
 * (the spoken moment's excerpt reads what was said), and a spoken moment renders 9:16 with
 * captions on and off. Every output is ffprobed; frames of the two renders differ in the caption
 * area (the preset's lower third) and nowhere else, and a moment without speech renders without
 * captions and says so. Skipped only where espeak-ng is missing (CI installs it, and the
 * pocketsphinx that aligns the words: .ci/run).
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { api, createScanner, type Client } from '../helpers/api.js';
import { ffmpeg, ffmpegPath } from '../helpers/ground-truth-media.js';
import { hostsOnOwnData } from '../helpers/host-process.js';
import { momentsOf, runToCompletion, sleep, uploadFile, type Moment } from '../helpers/runs.js';
import { toolOutput } from '../helpers/processes.js';
import { espeakInstalled, normalisedWords } from '../helpers/speech-media.js';
import type { Render } from '../../packages/client/src/schema.js';

const skipReason = espeakInstalled ? null : 'espeak-ng is not installed (apt-get install espeak-ng)';

const ffprobePath = (createRequire(import.meta.url)('@ffprobe-installer/ffprobe') as { path: string }).path;
/** One frame at 25 fps. */
const FRAME_MS = 40;
/**
 * Where the speech is: the sentences below take about 5.3 s at 130 words a minute, from 5.5 s, so
 * they fall in the moment the cut at 5 s yields (5-10 s); silence before and after.
 */
const SPEECH_START_MS = 5_500;
const SPEECH_END_MS = 11_000;
const SOURCE_SECONDS = 30;

/** The asset of a render as GET /v1/renders/{id} returns it (the generated client's types). */
type Asset = Render['assets'][number];

/** Overlap of a moment with the spoken part of the source. */
const speechIn = (m: Moment) => Math.max(0, Math.min(m.end_ms, SPEECH_END_MS) - Math.max(m.start_ms, SPEECH_START_MS));

/** Luma of the frame at `seconds`, area-averaged down to 108x192 (a tenth of 1080x1920). */
async function lumaAt(path: string, seconds: number): Promise<Buffer> {
  return toolOutput(ffmpegPath(), [
    '-v',
    'error',
    '-ss',
    seconds.toFixed(3),
    '-i',
    path,
    '-frames:v',
    '1',
    '-vf',
    'scale=108:192:flags=area',
    '-f',
    'rawvideo',
    '-pix_fmt',
    'gray',
    'pipe:1',
  ]);
}

/** Share of the pixels over rows [from, to) of two 108x192 frames whose luma differs clearly (encoder noise does not). */
function changedShare(a: Buffer, b: Buffer, from: number, to: number): number {
  let changed = 0;
  for (let i = from * 108; i < to * 108; i++) if (Math.abs((a[i] ?? 0) - (b[i] ?? 0)) > 24) changed++;
  return changed / ((to - from) * 108);
}

describe.skipIf(skipReason !== null)(`captions with moonshine${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  const hosts = hostsOnOwnData('mss-captions-');
  let client: Client;
  let workDir: string;
  let spoken: Moment;
  let silent: Moment;
  let analysisId: string;

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'mss-captions-'));
    const speechWav = join(workDir, 'speech.wav');
    const sentences = 'Welcome back to the show. Today we talk about the weather tomorrow morning.';
    expect(spawnSync('espeak-ng', ['-v', 'en-us', '-s', '130', '-w', speechWav, sentences]).status).toBe(0);
    const source = join(workDir, 'speech-two-shot.mp4');
    // Left half: testsrc with testsrc2 over it every other 5 s (cuts at every 5 s, so "scene
    // changes" yields moments); right half solid blue. Audio: silence, the speech at SPEECH_START_MS, silence.
    await ffmpeg([
      ...['-f', 'lavfi', '-i', `testsrc=s=320x360:r=25:d=${SOURCE_SECONDS}`],
      ...['-f', 'lavfi', '-i', `testsrc2=s=320x360:r=25:d=${SOURCE_SECONDS}`],
      ...['-f', 'lavfi', '-i', `color=c=0x1030e0:s=320x360:r=25:d=${SOURCE_SECONDS}`],
      ...['-i', speechWav],
      ...[
        '-filter_complex',
        `[0][1]overlay=enable='between(mod(t\\,10)\\,5\\,10)'[left];[left][2]hstack=inputs=2[v];[3]adelay=${SPEECH_START_MS}|${SPEECH_START_MS},apad,aresample=48000[a]`,
      ],
      ...[
        '-map',
        '[v]',
        '-map',
        '[a]',
        '-c:v',
        'libx264',
        '-preset',
        'veryfast',
        '-pix_fmt',
        'yuv420p',
        '-c:a',
        'aac',
        '-t',
        String(SOURCE_SECONDS),
        '-movflags',
        '+faststart',
        source,
      ],
    ]);

    const host = await hosts.start({ TRANSCRIBER: 'moonshine' });
    client = api(host.baseUrl, host.apiKey);
    const upload = await uploadFile(client, source);
    const scanner = await createScanner(client, { name: 'Cuts', instructions: 'Find the scene changes', type: 'find_moments', min_seconds: 5, max_seconds: 5 });
    const { run: done } = await runToCompletion(client, scanner.scanner_id, { upload_id: upload.upload_id });
    analysisId = done.analysis_id;
    const moments = (await momentsOf(client, analysisId)).moments;
    const bySpeech = [...moments].sort((a, b) => speechIn(b) - speechIn(a));
    spoken = bySpeech[0]!;
    silent = moments.find((m) => m.start_ms >= SPEECH_END_MS + 500)!;
    expect(speechIn(spoken), JSON.stringify(moments)).toBeGreaterThanOrEqual(3_000);
    expect(silent, JSON.stringify(moments)).toBeDefined();

    // The words captions are drawn from are the ones spoken (pocketsphinx, the old default, heard
    // 75-88% of espeak-ng's words wrong): a question about what is said finds them, and its moment quotes them.
    const weather = await createScanner(client, {
      name: 'Weather',
      instructions: 'Find where they talk about the weather',
      type: 'find_moments',
      min_seconds: 5,
      max_seconds: 10,
    });
    const { run: asked } = await runToCompletion(client, weather.scanner_id, { upload_id: upload.upload_id });
    const quoted = (await momentsOf(client, asked.analysis_id)).moments;
    expect(quoted.length, JSON.stringify(quoted)).toBeGreaterThanOrEqual(1);
    const excerpt = normalisedWords(quoted[0]!.transcript_excerpt);
    expect(
      ['welcome', 'back', 'show', 'today', 'talk', 'weather', 'tomorrow', 'morning'].filter((w) => excerpt.includes(w)).length,
      quoted[0]!.transcript_excerpt,
    ).toBeGreaterThanOrEqual(6);
    expect(speechIn(quoted[0]!)).toBeGreaterThan(0);
  }, 240_000);

  afterAll(async () => {
    await hosts.cleanUp();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  }, 60_000);

  async function rendered(momentIds: string[], captions: boolean): Promise<Render> {
    const accepted = await client.post<Render>('/v1/renders', {
      analysis_id: analysisId,
      moment_ids: momentIds,
      render: { output: { aspect_ratio: '9:16' }, captions: { enabled: captions, preset_id: 'bold_pop' } },
    });
    expect(accepted.status, accepted.text).toBe(202);
    const deadline = Date.now() + 180_000;
    for (;;) {
      const response = await client.get<Render>(`/v1/renders/${accepted.body.render_id}`);
      if (response.body.status === 'completed' || response.body.status === 'failed') return response.body;
      if (Date.now() > deadline) throw new Error(`render still ${response.body.status}`);
      await sleep(300);
    }
  }

  /** Downloads an asset and ffprobes it: H.264 1080x1920 of the moment's duration. */
  async function downloaded(asset: Asset, moment: Moment, name: string): Promise<string> {
    expect(asset.status).toBe('completed');
    const bytes = Buffer.from(await (await fetch(asset.url ?? '')).arrayBuffer());
    const path = join(workDir, name);
    await writeFile(path, bytes);
    const probe = JSON.parse((await toolOutput(ffprobePath, ['-v', 'error', '-show_streams', '-of', 'json', path])).toString()) as {
      streams: { codec_type: string; codec_name: string; width?: number; height?: number; duration?: string }[];
    };
    const video = probe.streams.find((s) => s.codec_type === 'video');
    expect(video).toMatchObject({ codec_name: 'h264', width: 1080, height: 1920 });
    expect(probe.streams.find((s) => s.codec_type === 'audio')?.codec_name).toBe('aac');
    expect(Math.abs(Number(video?.duration) * 1000 - moment.duration_ms)).toBeLessThanOrEqual(FRAME_MS + 1);
    return path;
  }

  test('a spoken moment: captions burned in the lower third only when enabled; the asset says which', async () => {
    const [withCaptions, without] = await Promise.all([rendered([spoken.id], true), rendered([spoken.id], false)]);
    expect(withCaptions.status, JSON.stringify(withCaptions.assets)).toBe('completed');
    expect(without.status, JSON.stringify(without.assets)).toBe('completed');
    expect(withCaptions.assets[0]?.captions).toBe(true);
    expect(without.assets[0]?.captions).toBe(false);
    const captioned = await downloaded(withCaptions.assets[0]!, spoken, 'captioned.mp4');
    const plain = await downloaded(without.assets[0]!, spoken, 'plain.mp4');

    // Frames through the spoken part of the moment: bold_pop draws at the lower third (its
    // bottom edge a quarter of the height up, i.e. rows < 144 of 192), the rest is the same picture.
    const speechEndInClip = Math.min(spoken.end_ms, SPEECH_END_MS) - spoken.start_ms;
    const speechStartInClip = Math.max(0, SPEECH_START_MS - spoken.start_ms);
    const times = [0.2, 0.35, 0.5, 0.65, 0.8].map((share) => (speechStartInClip + share * (speechEndInClip - speechStartInClip)) / 1000);
    const shares: { seconds: number; above: number; captionArea: number; below: number }[] = [];
    for (const seconds of times) {
      const [a, b] = await Promise.all([lumaAt(captioned, seconds), lumaAt(plain, seconds)]);
      shares.push({ seconds, above: changedShare(a, b, 0, 100), captionArea: changedShare(a, b, 100, 146), below: changedShare(a, b, 150, 192) });
    }
    for (const share of shares) {
      expect(share.above, JSON.stringify(shares)).toBeLessThan(0.005);
      expect(share.below, JSON.stringify(shares)).toBeLessThan(0.005);
    }
    // Words are on screen for most of the spoken part.
    expect(shares.filter((share) => share.captionArea > 0.03).length, JSON.stringify(shares)).toBeGreaterThanOrEqual(3);
  }, 300_000);

  test('a moment without speech renders without captions, and its asset says so', async () => {
    const render = await rendered([silent.id], true);
    expect(render.status, JSON.stringify(render.assets)).toBe('completed');
    expect(render.assets[0]?.captions).toBe(false);
    await downloaded(render.assets[0]!, silent, 'silent.mp4');
  }, 180_000);
});
