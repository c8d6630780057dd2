/**
 * The real extractor (ffmpeg 4.1 from @ffmpeg-installer) on media with known ground truth. Needs
 * only the ffmpeg binaries, so it lives with the unit tests; the video is also served over HTTP
 * from this process, as s3rver serves presigned URLs on the local host.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SourceSignals, Span } from '../../../../functions/domain/engine/signals.js';
import { SignalExtractionError } from '../../../../functions/adapters/signals/errors.js';
import { resolveFfprobePath } from '../../../../functions/adapters/ffmpeg-binaries.js';
import { FfmpegSignalExtractor } from '../../../../functions/adapters/signals/ffmpeg-signal-extractor.js';
import { noTranscriber } from '../../../../functions/adapters/signals/no-transcriber.js';
import { ffmpegPath, groundTruthAudio, groundTruthVideo, solidColorVideo, unreadableFile, type GroundTruthMedia } from '../../../helpers/ground-truth-media.js';

const extractor = new FfmpegSignalExtractor({ ffmpegPath: ffmpegPath(), ffprobePath: resolveFfprobePath(process.env.FFPROBE_PATH) });
const TEST_TIMEOUT = 20_000;

let video: GroundTruthMedia;
let audio: GroundTruthMedia;
let server: Server;
let baseUrl: string;

/** A static file server with byte ranges (ffmpeg seeks with them), like s3rver for a GET. */
function serveFile(path: string): Promise<Server> {
  const server = createServer((req, res) => {
    if (!req.url?.startsWith('/media/video.mp4')) {
      res.writeHead(404).end('NoSuchKey');
      return;
    }
    void stat(path).then(({ size }) => {
      const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
      const start = range ? Number(range[1]) : 0;
      const end = range?.[2] ? Number(range[2]) : size - 1;
      res.writeHead(range ? 206 : 200, {
        'Content-Type': 'video/mp4',
        'Accept-Ranges': 'bytes',
        'Content-Length': String(end - start + 1),
        ...(range ? { 'Content-Range': `bytes ${start}-${end}/${size}` } : {}),
      });
      createReadStream(path, { start, end }).pipe(res);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  [video, audio] = await Promise.all([groundTruthVideo(), groundTruthAudio()]);
  server = await serveFile(video.path);
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const whole = (media: GroundTruthMedia): Span => ({ startMs: 0, endMs: media.durationMs });

const extract = async (media: GroundTruthMedia, window = whole(media), url = media.path) =>
  (await extractor.extract({ url, mediaKind: media.mediaKind, durationMs: media.durationMs, window })).signals;

/** Each expected span has a measured span whose ends are within `toleranceMs`, and nothing else was measured. */
function expectSpans(measured: readonly Span[], expected: readonly Span[], toleranceMs: number): void {
  expect(measured).toHaveLength(expected.length);
  expected.forEach((truth, i) => {
    expect(Math.abs((measured[i]?.startMs ?? Infinity) - truth.startMs), `start of span ${i}`).toBeLessThanOrEqual(toleranceMs);
    expect(Math.abs((measured[i]?.endMs ?? Infinity) - truth.endMs), `end of span ${i}`).toBeLessThanOrEqual(toleranceMs);
  });
}

/** Every measured span lies inside one expected span (give or take `toleranceMs`). */
function expectWithin(measured: readonly Span[], expected: readonly Span[], toleranceMs: number): void {
  for (const span of measured) {
    expect(
      expected.some((truth) => span.startMs >= truth.startMs - toleranceMs && span.endMs <= truth.endMs + toleranceMs),
      `${span.startMs}-${span.endMs} inside ${JSON.stringify(expected)}`,
    ).toBe(true);
  }
}

const covered = (spans: readonly Span[]) => spans.reduce((sum, s) => sum + s.endMs - s.startMs, 0);

function expectTimesInside(signals: SourceSignals): void {
  const { startMs, endMs } = signals.window;
  const spans: Span[] = [
    ...(signals.video ? [...signals.video.motion, ...signals.video.black, ...signals.video.frozen] : []),
    ...(signals.audio ? [...signals.audio.loudPeaks, ...signals.audio.silence, ...signals.audio.speech, ...signals.audio.music] : []),
  ];
  for (const span of spans) {
    expect(span.startMs).toBeGreaterThanOrEqual(startMs);
    expect(span.endMs).toBeLessThanOrEqual(endMs);
    expect(span.endMs).toBeGreaterThan(span.startMs);
  }
  for (const at of [...(signals.video?.sceneCuts ?? []), ...(signals.audio?.loudness ?? [])].map((x) => x.atMs)) {
    expect(at).toBeGreaterThanOrEqual(startMs);
    expect(at).toBeLessThan(endMs);
  }
}

describe('FfmpegSignalExtractor on the ground-truth video (over HTTP)', () => {
  let signals: SourceSignals;

  beforeAll(async () => {
    signals = await extract(video, whole(video), `${baseUrl}/media/video.mp4?X-Amz-Signature=test`);
  }, 60_000);

  it('reports the geometry and cuts within 200 ms of the truth', () => {
    const truth = video.video!;
    expect(signals).toMatchObject({ mediaKind: 'video', durationMs: 30_000, window: whole(video), transcript: null });
    expect(signals.video).toMatchObject({ width: truth.width, height: truth.height, frameRate: truth.frameRate });
    const cuts = signals.video?.sceneCuts ?? [];
    expect(cuts).toHaveLength(truth.cutsMs.length);
    truth.cutsMs.forEach((at, i) => expect(Math.abs((cuts[i]?.atMs ?? Infinity) - at)).toBeLessThanOrEqual(200));
    expect(cuts.every((c) => c.score > 0.3 && c.score <= 1)).toBe(true);
    expectTimesInside(signals);
  });

  it('finds the black and the frozen spans, and motion only where the picture moves', () => {
    expectSpans(signals.video?.black ?? [], video.video!.black, 200);
    expectSpans(signals.video?.frozen ?? [], video.video!.frozen, 300);
    const motion = signals.video?.motion ?? [];
    expect(motion).toHaveLength(30);
    expect(motion.every((m) => m.level >= 0 && m.level <= 1)).toBe(true);
    const levelAt = (ms: number) => motion.find((m) => m.startMs === ms)?.level ?? NaN;
    expect(levelAt(12_000)).toBe(0); // black
    expect(levelAt(23_000)).toBeLessThan(0.1); // frozen
    expect(levelAt(26_000)).toBeGreaterThan(0.5); // the busiest test pattern
    expect(signals.video?.dominantColor).toMatch(/^#[0-9a-f]{6}$/);
  });

  it('finds the loud burst, the silence, tone and no speech', () => {
    const truth = video.audio!;
    const measured = signals.audio!;
    expectSpans(measured.loudPeaks, truth.loudBursts, 500);
    expect(measured.loudPeaks[0]?.level).toBe(1);
    expectSpans(measured.silence, truth.silence, 200);
    expect(measured.speech).toEqual([]);
    expectWithin(measured.music, truth.tone, 500);
    expect(covered(measured.music)).toBeGreaterThan(0.7 * covered(truth.tone));
    expect(measured.loudness).toHaveLength(60);
    expect(measured.loudness.find((l) => l.atMs === 26_000)?.lufs).toBe(-120);
    expect(measured.loudness.find((l) => l.atMs === 5_000)?.lufs).toBeCloseTo(-34, 0);
    expect(measured.integratedLufs).toBeGreaterThan(-20);
  });
});

describe('FfmpegSignalExtractor on windows, audio, colour and bad input', () => {
  it(
    'measures only the window, in source time',
    async () => {
      const window = { startMs: 8_000, endMs: 22_000 };
      const signals = await extract(video, window);
      expect(signals.window).toEqual(window);
      expect(signals.video?.sceneCuts.map((c) => Math.round(c.atMs / 100) * 100)).toEqual([10_000, 12_000, 14_000, 20_000]);
      expectSpans(signals.video?.black ?? [], [{ startMs: 12_000, endMs: 14_000 }], 200);
      expectSpans(signals.audio?.loudPeaks ?? [], [{ startMs: 15_000, endMs: 16_000 }], 500);
      expect(signals.audio?.silence).toEqual([]);
      expect(signals.audio?.loudness[0]?.atMs).toBe(8_000);
      expect(signals.video?.motion).toHaveLength(14);
      expectTimesInside(signals);

      // A window that starts inside the silence and ends at the end of the source.
      const tail = await extract(video, { startMs: 26_000, endMs: 30_000 });
      expectSpans(tail.audio?.silence ?? [], [{ startMs: 26_000, endMs: 28_000 }], 200);
      expect(tail.video?.sceneCuts).toEqual([]);
      expectTimesInside(tail);
    },
    TEST_TIMEOUT,
  );

  it(
    'gives the same signals when the picture decode is split into parts run side by side',
    async () => {
      const split = new FfmpegSignalExtractor({
        ffmpegPath: ffmpegPath(),
        ffprobePath: resolveFfprobePath(process.env.FFPROBE_PATH),
        videoParts: 3,
        minVideoPartSeconds: 4,
      });
      const single = new FfmpegSignalExtractor({ ffmpegPath: ffmpegPath(), ffprobePath: resolveFfprobePath(process.env.FFPROBE_PATH), videoParts: 1 });
      // Part boundaries at 10 s and 20 s of the whole video (cuts there), and at 11.5 s and 15.5 s of the
      // source in the window (just before the black, inside the loud burst).
      for (const window of [whole(video), { startMs: 7_500, endMs: 21_000 }]) {
        const input = { url: video.path, mediaKind: video.mediaKind, durationMs: video.durationMs, window };
        const [one, parts] = await Promise.all([single.extract(input), split.extract(input)]);
        expect(parts).toEqual(one);
      }
    },
    TEST_TIMEOUT,
  );

  it(
    'measures an audio-only source: burst, silence, speech-like sound and tone',
    async () => {
      const signals = await extract(audio);
      const truth = audio.audio!;
      expect(signals.mediaKind).toBe('audio');
      expect(signals.video).toBeNull();
      expectSpans(signals.audio?.loudPeaks ?? [], truth.loudBursts, 500);
      expectSpans(signals.audio?.silence ?? [], truth.silence, 200);
      expectSpans(signals.audio?.speech ?? [], truth.speech, 1_000);
      expectWithin(signals.audio?.music ?? [], truth.tone, 500);
      expect(covered(signals.audio?.music ?? [])).toBeGreaterThan(0.5 * covered(truth.tone));
      expectTimesInside(signals);
    },
    TEST_TIMEOUT,
  );

  it(
    'measures only the audio of a video source analysed as audio',
    async () => {
      const { signals } = await extractor.extract({ url: video.path, mediaKind: 'audio', durationMs: 30_000, window: { startMs: 0, endMs: 30_000 } });
      expect(signals.video).toBeNull();
      expectSpans(signals.audio?.silence ?? [], video.audio!.silence, 200);
    },
    TEST_TIMEOUT,
  );

  it(
    'reads the colour of a one-colour picture, frozen throughout, with no audio track',
    async () => {
      const solid = await solidColorVideo();
      const signals = await extract(solid);
      expect(signals.audio).toBeNull();
      expect(signals.video?.sceneCuts).toEqual([]);
      expect(signals.video?.black).toEqual([]);
      expect(signals.video?.frozen).toEqual(solid.video!.frozen);
      const channels = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
      const measured = channels(signals.video?.dominantColor ?? '#000000');
      channels(solid.video!.dominantColor!).forEach((c, i) => expect(Math.abs((measured[i] ?? 0) - c)).toBeLessThanOrEqual(4));
    },
    TEST_TIMEOUT,
  );

  it(
    'fails with SignalExtractionError on a file that is not media, and on a missing URL without leaking it',
    async () => {
      const path = await unreadableFile();
      const notMedia = extractor.extract({ url: path, mediaKind: 'video', durationMs: 10_000, window: { startMs: 0, endMs: 10_000 } });
      await expect(notMedia).rejects.toBeInstanceOf(SignalExtractionError);
      await expect(notMedia).rejects.toMatchObject({ name: 'SignalExtractionError', message: /Invalid data/ });

      const missing = `${baseUrl}/media/gone.mp4?X-Amz-Signature=secret`;
      const error: unknown = await extractor
        .extract({ url: missing, mediaKind: 'video', durationMs: 10_000, window: { startMs: 0, endMs: 10_000 } })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SignalExtractionError);
      expect((error as Error).message).toMatch(/404/);
      expect((error as Error).message).not.toContain('secret');
    },
    TEST_TIMEOUT,
  );

  it(
    'stops ffmpeg when the caller aborts',
    async () => {
      const controller = new AbortController();
      const run = extractor.extract({ url: video.path, mediaKind: 'video', durationMs: 30_000, window: whole(video), signal: controller.signal });
      controller.abort(new Error('cancelled'));
      await expect(run).rejects.toThrow('cancelled');
    },
    TEST_TIMEOUT,
  );

  it('noTranscriber answers null', async () => {
    await expect(noTranscriber.transcribe({ url: video.path, objectKey: 'accounts/acct_1/uploads/upl_1', window: whole(video) })).resolves.toBeNull();
  });
});
