import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTool } from '../signals/ffmpeg-process.js';
import { bundledFontsDir, burnInFilter, prepareBurnIn, type CaptionBurnIn } from './caption-burn-in.js';
import type { CropKey } from '../../domain/renders/crop-path.js';
import type { FramePlan } from '../../domain/renders/framing.js';
import type {
  FrameSampling,
  MomentCut,
  MomentRenderer,
  MomentRenderPlan,
  MomentSamples,
  RenderedFile,
  Segment,
  SourceLayout,
} from '../../domain/renders/plan.js';
import type { RgbFrame } from '../../domain/renders/subjects.js';
import type { MediaFileWriter } from '../../domain/sources/ports.js';

interface FfmpegRendererOptions {
  ffmpegPath: string;
  ffprobePath: string;
  /** Uploads the finished MP4 (multipart above its part size). */
  store: Pick<MediaFileWriter, 'putFile'>;
  /** Per ffmpeg run; a moment is at most 10 minutes of source. */
  timeoutMs?: number;
  /** The caption fonts (presets.ts FONTS); absent: the bundled package's ttf/ (caption-burn-in.ts). */
  fontsDir?: string;
}

const MAX_LOG_BYTES = 1024 * 1024;
/** Only the signed URL itself may be opened (as the upload probe): no files, no nested protocols. */
const NETWORK_INPUT = ['-protocol_whitelist', 'http,https,tcp,tls', '-rw_timeout', '30000000'];

const seconds = (ms: number): string => (ms / 1000).toFixed(3);

/** ffmpeg echoes its input in messages: a signed URL must never reach an asset's error or a log (DESIGN §9). */
const scrubbed = (text: string, url: string): string =>
  text
    .split(url)
    .join('<source>')
    .replace(/https?:\/\/\S+/g, '<url>')
    .trim()
    .split('\n')
    .slice(-3)
    .join(' | ');

/**
 * The filter graph of one render: each segment trimmed from the (already seeked) input and
 * concatenated with its audio, then framed by the plan's panels (crop + scale each, stacked
 * vertically when there are two). A source without audio gets silence, so every asset has AAC.
 * Exported for unit tests.
 */
export function renderFilterGraph(segments: Segment[], plan: FramePlan, hasAudio: boolean): string {
  const origin = segments[0]?.startMs ?? 0;
  const parts: string[] = [];
  const pairs: string[] = [];
  segments.forEach((segment, i) => {
    const start = seconds(segment.startMs - origin);
    const end = seconds(segment.endMs - origin);
    parts.push(`[0:v]trim=start=${start}:end=${end},setpts=PTS-STARTPTS[v${i}]`);
    parts.push(
      hasAudio
        ? `[0:a]atrim=start=${start}:end=${end},asetpts=PTS-STARTPTS[a${i}]`
        : `anullsrc=r=48000:cl=stereo,atrim=duration=${seconds(segment.endMs - segment.startMs)}[a${i}]`,
    );
    pairs.push(`[v${i}][a${i}]`);
  });
  parts.push(`${pairs.join('')}concat=n=${segments.length}:v=1:a=1[cut][aout]`);
  const framed = (input: string, panel: FramePlan['panels'][number], label: string) =>
    `${input}crop=${panel.crop.width}:${panel.crop.height}:${panel.path ? `'${pathExpression(panel.path, 'x')}':'${pathExpression(panel.path, 'y')}'` : `${panel.crop.x}:${panel.crop.y}`},scale=${panel.place.width}:${panel.place.height},setsar=1${label}`;
  if (plan.panels.length === 1) {
    const [panel] = plan.panels;
    if (panel) parts.push(framed('[cut]', panel, ',format=yuv420p[vout]'));
  } else {
    const labels = plan.panels.map((_, i) => `[p${i}]`);
    parts.push(`[cut]split=${plan.panels.length}${plan.panels.map((_, i) => `[s${i}]`).join('')}`);
    plan.panels.forEach((panel, i) => parts.push(framed(`[s${i}]`, panel, labels[i] ?? '')));
    parts.push(`${labels.join('')}vstack=inputs=${plan.panels.length},format=yuv420p[vout]`);
  }
  return parts.join(';');
}

/**
 * A crop path (crop-path.ts) as an ffmpeg expression of the frame time `t`, evaluated by the crop
 * filter on every frame: the first key's position plus, for each later key, its change either
 * at once (`gte`, a cut) or spread linearly since the previous key (`clip`). A flat sum, no
 * nesting, so a long path stays within the parser's limits. Exported for unit tests.
 */
export function pathExpression(keys: CropKey[], axis: 'x' | 'y'): string {
  const [first] = keys;
  if (!first) return '0';
  const terms = [String(first[axis])];
  for (let i = 1; i < keys.length; i++) {
    const prev = keys[i - 1] as CropKey;
    const key = keys[i] as CropKey;
    const delta = key[axis] - prev[axis];
    if (delta === 0) continue;
    const at = seconds(key.timeMs);
    const from = seconds(prev.timeMs);
    terms.push(key.jump || key.timeMs <= prev.timeMs ? `${delta}*gte(t,${at})` : `${delta}*clip((t-${from})/${seconds(key.timeMs - prev.timeMs)},0,1)`);
  }
  return terms.join('+').replace(/\+-/g, '-');
}

/** The moment's span of the source, by input seeking: only it is read and decoded, and its timestamps start at 0. */
function momentInput(job: MomentCut): string[] {
  const first = job.segments[0]?.startMs ?? 0;
  const last = job.segments.at(-1)?.endMs ?? first;
  return [...NETWORK_INPUT, '-ss', seconds(first), '-t', seconds(last - first), '-i', job.sourceUrl];
}

/**
 * The ffmpeg command line that samples a moment for framing (exported for unit tests): the same
 * cut as the render (video only), `fps` frames a second scaled to `size` as raw RGB on pipe 3, and
 * every frame (at `cutFps`) at `cutSize` in grey on pipe 4 for the cuts.
 */
export function sampleArgs(job: MomentCut, { fps, size, cutFps, cutSize }: FrameSampling): string[] {
  const first = job.segments[0]?.startMs ?? 0;
  const parts = job.segments.map(
    (segment, i) => `[0:v]trim=start=${seconds(segment.startMs - first)}:end=${seconds(segment.endMs - first)},setpts=PTS-STARTPTS[v${i}]`,
  );
  // round=up: sample k is the last frame at or before k/fps (the default rounding keeps one from up to half an interval later).
  parts.push(`${job.segments.map((_, i) => `[v${i}]`).join('')}concat=n=${job.segments.length}:v=1:a=0,split[forSamples][forCuts]`);
  parts.push(`[forSamples]fps=fps=${Number(fps.toFixed(4))}:round=up,scale=${size.width}:${size.height},format=rgb24[samples]`);
  parts.push(`[forCuts]fps=fps=${cutFps}:round=up,scale=${cutSize.width}:${cutSize.height},format=gray[cuts]`);
  return [
    '-v',
    'error',
    '-hide_banner',
    '-nostdin',
    ...momentInput(job),
    '-filter_complex',
    parts.join(';'),
    '-map',
    '[samples]',
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgb24',
    'pipe:3',
    '-map',
    '[cuts]',
    '-f',
    'rawvideo',
    '-pix_fmt',
    'gray',
    'pipe:4',
  ];
}

/** The whole ffmpeg command line of one render (exported for unit tests). */
export function renderArgs(job: MomentCut, plan: FramePlan, hasAudio: boolean, outputPath: string, captions?: CaptionBurnIn): string[] {
  return [
    '-v',
    'error',
    '-hide_banner',
    '-nostdin',
    '-y',
    ...momentInput(job),
    // Captions are drawn last, over the framed output, so their size and place are the output's.
    '-filter_complex',
    renderFilterGraph(job.segments, plan, hasAudio) + (captions ? `;[vout]${burnInFilter(captions)}[vcaptioned]` : ''),
    '-map',
    captions ? '[vcaptioned]' : '[vout]',
    '-map',
    '[aout]',
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-crf',
    '21',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    '-b:a',
    '128k',
    '-ar',
    '48000',
    '-ac',
    '2',
    // The moov atom before mdat: playback starts before the download ends.
    '-movflags',
    '+faststart',
    '-f',
    'mp4',
    outputPath,
  ];
}

/** Probes and samples sources, and renders plans with ffmpeg into a temporary file, measured with ffprobe and uploaded. */
export class FfmpegMomentRenderer implements MomentRenderer {
  private readonly timeoutMs: number;

  constructor(private readonly options: FfmpegRendererOptions) {
    this.timeoutMs = options.timeoutMs ?? 30 * 60_000;
  }

  private async ffprobe(
    target: string,
    scrub: string,
  ): Promise<{ streams: { codec_type?: string; width?: number; height?: number }[]; format?: { duration?: string } }> {
    const args = ['-v', 'error', ...(target.startsWith('http') ? NETWORK_INPUT : []), '-show_streams', '-show_format', '-of', 'json', target];
    const run = await runTool(this.options.ffprobePath, args, { timeoutMs: 60_000, maxOutputBytes: MAX_LOG_BYTES });
    if (run.exitCode !== 0) throw new Error(`ffprobe could not read the media (${scrubbed(run.stderr, scrub) || `exit ${run.exitCode}`})`);
    return JSON.parse(run.stdout) as { streams: { codec_type?: string; width?: number; height?: number }[]; format?: { duration?: string } };
  }

  async probe(sourceUrl: string): Promise<SourceLayout> {
    const { streams } = await this.ffprobe(sourceUrl, sourceUrl);
    const video = streams.find((s) => s.codec_type === 'video' && s.width && s.height);
    if (!video?.width || !video.height) throw new Error('the source has no video stream');
    return { width: video.width, height: video.height, hasAudio: streams.some((s) => s.codec_type === 'audio') };
  }

  async sample(cut: MomentCut, sampling: FrameSampling, onFrame: (frame: RgbFrame, index: number) => void): Promise<MomentSamples> {
    const { fps, size } = sampling;
    const frameBytes = size.width * size.height * 3;
    const greyBytes = sampling.cutSize.width * sampling.cutSize.height;
    const frames: RgbFrame[] = [];
    const greys: Uint8Array[] = [];
    let pending = Buffer.alloc(0);
    let greyPending = Buffer.alloc(0);
    const run = await runTool(this.options.ffmpegPath, sampleArgs(cut, sampling), {
      timeoutMs: this.timeoutMs,
      maxOutputBytes: MAX_LOG_BYTES,
      pipes: {
        3: (chunk) => {
          pending = Buffer.concat([pending, chunk]);
          while (pending.length >= frameBytes) {
            const frame = { ...size, timeMs: Math.round((frames.length * 1000) / fps), rgb: new Uint8Array(pending.subarray(0, frameBytes)) };
            frames.push(frame);
            onFrame(frame, frames.length - 1);
            pending = pending.subarray(frameBytes);
          }
        },
        4: (chunk) => {
          greyPending = Buffer.concat([greyPending, chunk]);
          while (greyPending.length >= greyBytes) {
            greys.push(new Uint8Array(greyPending.subarray(0, greyBytes)));
            greyPending = greyPending.subarray(greyBytes);
          }
        },
      },
    });
    if (run.exitCode !== 0) throw new Error(`ffmpeg could not sample the moment (${scrubbed(run.stderr, cut.sourceUrl) || `exit ${run.exitCode}`})`);
    return { frames, greys };
  }

  async render(job: MomentRenderPlan): Promise<RenderedFile> {
    const { frame: plan } = job;
    const dir = await mkdtemp(join(tmpdir(), 'render-'));
    try {
      const output = join(dir, 'moment.mp4');
      const captions = job.captions !== null ? await prepareBurnIn(dir, job.captions, this.options.fontsDir ?? bundledFontsDir()) : null;
      const run = await runTool(this.options.ffmpegPath, renderArgs(job, plan, job.hasAudio, output, captions ?? undefined), {
        timeoutMs: this.timeoutMs,
        maxOutputBytes: MAX_LOG_BYTES,
        ...(captions ? { env: { FONTCONFIG_FILE: captions.fontconfigFile } } : {}),
      });
      if (run.exitCode !== 0) throw new Error(`ffmpeg failed (${scrubbed(run.stderr, job.sourceUrl) || `exit ${run.exitCode}`})`);
      const rendered = await this.ffprobe(output, output);
      const video = rendered.streams.find((s) => s.codec_type === 'video');
      const sizeBytes = (await stat(output)).size;
      await this.options.store.putFile(job.outputKey, output, 'video/mp4', job.tags);
      return {
        width: video?.width ?? plan.output.width,
        height: video?.height ?? plan.output.height,
        durationMs: Math.round(Number(rendered.format?.duration ?? 0) * 1000),
        sizeBytes,
      };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}
