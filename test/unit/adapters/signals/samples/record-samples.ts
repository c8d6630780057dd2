/**
 * Re-records the ffmpeg logs the parser tests read: the extractor's own ffmpeg command on
 * windows of the ground-truth video (test/helpers/ground-truth-media.ts), stderr verbatim.
 *
 *   npx tsx test/unit/adapters/signals/samples/record-samples.ts
 *
 * - video-9500-16500.log: cuts at 10, 12 and 14 s, black 12-14 s, loud burst 15-16 s
 * - video-21000-29000.log: frozen picture 22-24 s, silence 25-28 s
 * (stream times in the logs start at 0 at the window start)
 */
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTool } from '../../../../../functions/adapters/signals/ffmpeg-process.js';
import { ffmpegRuns } from '../../../../../functions/adapters/signals/filter-graph.js';
import { ffmpegPath, groundTruthVideo } from '../../../../helpers/ground-truth-media.js';

export const sampleWindows = [
  { startMs: 9_500, endMs: 16_500 },
  { startMs: 21_000, endMs: 29_000 },
] as const;

export const sampleFile = (window: { startMs: number; endMs: number }): string =>
  join(dirname(fileURLToPath(import.meta.url)), `video-${window.startMs}-${window.endMs}.log`);

async function record(): Promise<void> {
  const media = await groundTruthVideo();
  for (const window of sampleWindows) {
    // The extractor's two runs (picture, then sound), their logs one after the other.
    const runs = ffmpegRuns({ url: media.path, window, videoStream: 0, audioStream: 1 });
    let log = '';
    for (const args of [runs.video[0]?.args ?? null, runs.audio]) {
      if (!args) continue;
      const run = await runTool(ffmpegPath(), args, { timeoutMs: 60_000, maxOutputBytes: 16 * 1024 * 1024, pipes: { 3: () => undefined, 4: () => undefined } });
      if (run.exitCode !== 0) throw new Error(run.stderr);
      log += run.stderr;
    }
    // The input path differs per run: keep the samples stable.
    await writeFile(sampleFile(window), log.split(media.path).join('ground-truth-video.mp4'));
    console.log('recorded', sampleFile(window));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await record();
