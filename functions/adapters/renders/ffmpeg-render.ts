import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTool } from '../signals/ffmpeg-process.js';
import type { FramePlan, Size } from '../../domain/renders/framing.js';
import type { MomentRenderer, MomentRenderJob, RenderedFile } from '../../domain/renders/pipeline.js';
import type { MediaFileWriter } from '../../domain/sources/ports.js';

export interface FfmpegRendererOptions {
  ffmpegPath: string;
  ffprobePath: string;
  /** Uploads the finished MP4 (multipart above its part size). */
  store: Pick<MediaFileWriter, 'putFile'>;
  /** Per ffmpeg run; a moment is at most 10 minutes of source. */
  timeoutMs?: number;
}

const MAX_LOG_BYTES = 1024 * 1024;
/** Only the signed URL itself may be opened (as the upload probe): no files, no nested protocols. */
const NETWORK_INPUT = ['-protocol_whitelist', 'http,https,tcp,tls', '-rw_timeout', '30000000'];

interface SourceLayout extends Size {
  hasAudio: boolean;
}

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
export function renderFilterGraph(segments: { startMs: number; endMs: number }[], plan: FramePlan, hasAudio: boolean): string {
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
    `${input}crop=${panel.crop.width}:${panel.crop.height}:${panel.crop.x}:${panel.crop.y},scale=${panel.place.width}:${panel.place.height},setsar=1${label}`;
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

/** The whole ffmpeg command line of one render (exported for unit tests). */
export function renderArgs(job: Pick<MomentRenderJob, 'sourceUrl' | 'segments'>, plan: FramePlan, hasAudio: boolean, outputPath: string): string[] {
  const first = job.segments[0]?.startMs ?? 0;
  const last = job.segments.at(-1)?.endMs ?? first;
  return [
    '-v', 'error', '-hide_banner', '-nostdin', '-y',
    ...NETWORK_INPUT,
    // Input seeking: only the moment's span is read and decoded, and its timestamps start at 0.
    '-ss', seconds(first), '-t', seconds(last - first), '-i', job.sourceUrl,
    '-filter_complex', renderFilterGraph(job.segments, plan, hasAudio),
    '-map', '[vout]', '-map', '[aout]',
    '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '21', '-pix_fmt', 'yuv420p',
    '-c:a', 'aac', '-b:a', '128k', '-ar', '48000', '-ac', '2',
    // The moov atom before mdat: playback starts before the download ends.
    '-movflags', '+faststart',
    '-f', 'mp4', outputPath,
  ];
}

/** Renders with ffmpeg into a temporary file, measures it with ffprobe and uploads it. */
export class FfmpegMomentRenderer implements MomentRenderer {
  private readonly timeoutMs: number;

  constructor(private readonly options: FfmpegRendererOptions) {
    this.timeoutMs = options.timeoutMs ?? 30 * 60_000;
  }

  private async probe(target: string, scrub: string): Promise<{ streams: { codec_type?: string; width?: number; height?: number }[]; format?: { duration?: string } }> {
    const args = ['-v', 'error', ...(target.startsWith('http') ? NETWORK_INPUT : []), '-show_streams', '-show_format', '-of', 'json', target];
    const run = await runTool(this.options.ffprobePath, args, { timeoutMs: 60_000, maxOutputBytes: MAX_LOG_BYTES });
    if (run.exitCode !== 0) throw new Error(`ffprobe could not read the media (${scrubbed(run.stderr, scrub) || `exit ${run.exitCode}`})`);
    return JSON.parse(run.stdout) as { streams: { codec_type?: string; width?: number; height?: number }[]; format?: { duration?: string } };
  }

  private async layoutOf(sourceUrl: string): Promise<SourceLayout> {
    const { streams } = await this.probe(sourceUrl, sourceUrl);
    const video = streams.find((s) => s.codec_type === 'video' && s.width && s.height);
    if (!video?.width || !video.height) throw new Error('the source has no video stream');
    return { width: video.width, height: video.height, hasAudio: streams.some((s) => s.codec_type === 'audio') };
  }

  async render(job: MomentRenderJob): Promise<RenderedFile> {
    const layout = await this.layoutOf(job.sourceUrl);
    const plan = job.plan(layout);
    const dir = await mkdtemp(join(tmpdir(), 'render-'));
    try {
      const output = join(dir, 'moment.mp4');
      const run = await runTool(this.options.ffmpegPath, renderArgs(job, plan, layout.hasAudio, output), { timeoutMs: this.timeoutMs, maxOutputBytes: MAX_LOG_BYTES });
      if (run.exitCode !== 0) throw new Error(`ffmpeg failed (${scrubbed(run.stderr, job.sourceUrl) || `exit ${run.exitCode}`})`);
      const rendered = await this.probe(output, output);
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
