import { spawn } from 'node:child_process';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveFfmpegPath, resolveFfprobePath } from '../../functions/adapters/ffmpeg-binaries.js';
import { blazeFaceDetector, resolveFaceDetectorFiles } from '../../functions/adapters/renders/face-detector.js';
import { FfmpegMomentRenderer, renderArgs } from '../../functions/adapters/renders/ffmpeg-render.js';
import { cropAround, type FramePlan, type Size } from '../../functions/domain/renders/framing.js';
import { planMomentRender } from '../../functions/domain/renders/plan.js';
import type { SubjectTrack } from '../../functions/domain/renders/subjects.js';
import { startMediaServer } from '../helpers/media-server.js';
import { framingAccuracy, framingErrors, movingSubjectSource, SOURCE_SIZE, subjectInOutput } from '../helpers/moving-subject.js';
import { round } from './client.js';
import { timed } from './signals.js';

const NINE_SIXTEEN = { width: 1080, height: 1920 };

function ffmpeg(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(resolveFfmpegPath(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}: ${err.slice(-500)}`))));
  });
}

/** The production renderer writing its MP4 to `outputPath` instead of S3. */
function renderer(outputPath: string): FfmpegMomentRenderer {
  return new FfmpegMomentRenderer({
    ffmpegPath: resolveFfmpegPath(),
    ffprobePath: resolveFfprobePath(),
    store: { putFile: async (_key, path) => copyFile(path, outputPath) },
  });
}

async function render(
  url: string,
  segment: { startMs: number; endMs: number },
  target: Size | null,
  outputPath: string,
  onTrack?: (track: SubjectTrack) => void,
  onPlan?: (plan: FramePlan) => void,
) {
  const started = performance.now();
  const production = renderer(outputPath);
  // Planned as the render pipeline plans (face detector included), then rendered.
  const { plan, subjects } = await planMomentRender(
    { renderer: production, detector: blazeFaceDetector(resolveFaceDetectorFiles()) },
    { sourceUrl: url, segments: [segment], output: target, mode: 'auto', captions: null, outputKey: 'bench', tags: {} },
  );
  if (subjects) onTrack?.(subjects);
  onPlan?.(plan.frame);
  await production.render(plan);
  return (performance.now() - started) / 1000;
}

/**
 * Issue 12: the framing-accuracy figure. The whole 20 s moving-subject fixture (a real face on a
 * known sine path, cuts every 5 s) rendered 9:16 with `auto` framing by the production renderer;
 * the subject's marker found on 5 frames a second of the output; the share of frames whose crop
 * centre is within 10% of the output width of the subject (goal >= 95%).
 */
export async function benchFraming(): Promise<object[]> {
  const server = await startMediaServer();
  const dir = await mkdtemp(join(tmpdir(), 'mss-bench-framing-'));
  try {
    const url = server.add(await movingSubjectSource(4));
    const output = join(dir, 'auto.mp4');
    let track: SubjectTrack | undefined;
    const seconds = await render(url, { startMs: 0, endMs: 20_000 }, NINE_SIXTEEN, output, (t) => (track = t));
    const accuracy = framingAccuracy(framingErrors(await subjectInOutput(output, NINE_SIXTEEN), NINE_SIXTEEN.width));
    return [
      {
        fixture: '20 s, 640x360, face on a sine path, 3 cuts',
        detector: track?.detector,
        samples: track?.samples.length,
        samplesWithFace: track?.samples.filter((s) => s.faces.length > 0).length,
        framesMeasured: accuracy.frames,
        within10PctShare: round(accuracy.withinShare),
        p95ErrorOfWidth: round(accuracy.p95),
        worstErrorOfWidth: round(accuracy.worst),
        renderSeconds: round(seconds),
      },
    ];
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The plan with every panel's crop held still at the source's centre (no crop path). */
const centred = (plan: FramePlan): FramePlan => ({
  ...plan,
  panels: plan.panels.map(({ place }) => ({ crop: cropAround({ x: 0, y: 0, ...SOURCE_SIZE }, place), place })),
});

/**
 * Issue 12: render wall time against one bare ffmpeg command with the same settings (goal: ratio
 * <= 1.1). "Bare" is the renderer's own encode, run by itself: the very command line it ran (the
 * same source over loopback HTTP, input seek and duration, crop and crop path, scale, x264
 * veryfast crf 21, AAC 128k, faststart), so the ratio is what the service adds to ffmpeg's work:
 * probing, sampling, face detection, planning. Two cases: an output of the source's shape (no
 * crop: nothing to aim, no sampling) and 9:16 `auto`. For the second, the renderer's own command
 * line with the crop held still at the source's centre is printed beside it: a crop that follows a
 * moving subject pans the picture, and x264 spends more on a panning picture than on a still one
 * (that is the output's cost, not overhead).
 * Each figure is the best of RUNS.
 */
export async function benchRender(): Promise<object[]> {
  const RUNS = 2;
  const server = await startMediaServer();
  const dir = await mkdtemp(join(tmpdir(), 'mss-bench-render-'));
  try {
    const url = server.add(await movingSubjectSource(12));
    const segment = { startMs: 10_000, endMs: 40_000 };
    const cases = [
      { name: '16:9 (whole frame, scaled to 1920x1080)', target: { width: 1920, height: 1080 }, centre: false },
      { name: '9:16 auto (face followed)', target: NINE_SIXTEEN, centre: true },
    ];
    const rows: object[] = [];
    for (const c of cases) {
      let renderSeconds = Infinity;
      let bareSeconds = Infinity;
      let centreSeconds = Infinity;
      for (let run = 0; run < RUNS; run++) {
        let plan: FramePlan | undefined;
        renderSeconds = Math.min(renderSeconds, await render(url, segment, c.target, join(dir, 'rendered.mp4'), undefined, (p) => (plan = p)));
        if (!plan) throw new Error('the renderer planned nothing');
        const used = plan;
        bareSeconds = Math.min(
          bareSeconds,
          (await timed(() => ffmpeg(renderArgs({ sourceUrl: url, segments: [segment] }, used, true, join(dir, 'bare.mp4'))))).wall,
        );
        if (c.centre) {
          const centre = renderArgs({ sourceUrl: url, segments: [segment] }, centred(used), true, join(dir, 'centre.mp4'));
          centreSeconds = Math.min(centreSeconds, (await timed(() => ffmpeg(centre))).wall);
        }
      }
      rows.push({
        case: c.name,
        momentSeconds: 30,
        bareSeconds: round(bareSeconds),
        renderSeconds: round(renderSeconds),
        ratio: round(renderSeconds / bareSeconds),
        centreCropEncodeSeconds: c.centre ? round(centreSeconds) : '-',
      });
    }
    return rows;
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}
