import { even, planCrops, planFrame, type FramePlan, type Size } from './framing.js';
import type { FramingMode } from './presets.js';
import { cutsIn, observeSubjects, type Face, type RgbFrame, type SubjectDetector, type SubjectTrack } from './subjects.js';

/**
 * The story of one rendered moment, told here and handed to the renderer as plain data: what to
 * cut, how to frame it (looking at the moment first when the frame crops: faces, salient region,
 * cuts) and which captions to burn in. The renderer (adapters/renders/ffmpeg-render.ts) only
 * probes, decodes and encodes what it is told.
 */

/** Spans of the source, concatenated in order. */
export type Segment = { startMs: number; endMs: number };

/** Where the moment is: the source (a signed URL) and the spans cut from it. */
export interface MomentCut {
  sourceUrl: string;
  segments: Segment[];
}

/** What the renderer's probe tells of the source. */
export interface SourceLayout extends Size {
  hasAudio: boolean;
}

/**
 * How the cut moment is looked at for framing: `fps` frames a second scaled to `size` (RGB, for
 * faces and salience), and every frame at `cutFps`, small and grey, for placing cuts to the frame.
 */
export interface FrameSampling {
  fps: number;
  size: Size;
  cutFps: number;
  cutSize: Size;
}

/** What the renderer decoded for a FrameSampling: the sampled frames (timed on the moment's timeline) and the grey frames. */
export interface MomentSamples {
  frames: RgbFrame[];
  greys: Uint8Array[];
}

/** One moment's render, decided: the renderer runs it as it is. */
export interface MomentRenderPlan extends MomentCut {
  frame: FramePlan;
  hasAudio: boolean;
  /** The ASS script to burn in, sized to `frame.output`; null: no captions. */
  captions: string | null;
  outputKey: string;
  tags: Record<string, string>;
}

/** What the renderer measured of the MP4 it wrote. */
export interface RenderedFile {
  width: number;
  height: number;
  durationMs: number;
  sizeBytes: number;
}

/** Probes, decodes and encodes with ffmpeg. Error messages never carry the source URL. */
export interface MomentRenderer {
  probe(sourceUrl: string): Promise<SourceLayout>;
  /** Decodes the cut moment as `sampling` says; each sampled frame goes to `onFrame` as it arrives (detection overlaps decoding). */
  sample(cut: MomentCut, sampling: FrameSampling, onFrame: (frame: RgbFrame, index: number) => void): Promise<MomentSamples>;
  /** Cuts, frames and encodes as planned, burns in the captions and uploads the MP4. */
  render(plan: MomentRenderPlan): Promise<RenderedFile>;
}

interface MomentRenderRequest extends MomentCut {
  /** The output frame; null: the source's own size. */
  output: Size | null;
  mode: FramingMode;
  /** The ASS script for an output frame of the given size; null: no captions. */
  captions: ((output: Size) => string) | null;
  outputKey: string;
  tags: Record<string, string>;
}

interface RenderPlanningDeps {
  renderer: Pick<MomentRenderer, 'probe' | 'sample'>;
  /** Finds faces on the sampled frames when a plan crops; null: the salient region only. */
  detector: SubjectDetector | null;
}

/** Frames looked at per second of a moment (fewer for long moments: at most MAX_SAMPLES in all), and their size (fit in a square of this side). */
const SAMPLE_FPS = 2;
const MAX_SAMPLES = 120;
const SAMPLE_SIDE = 320;
/** The detector looks at every DETECT_EVERY-th sample (and after cuts); the faces are followed in between (subjects.ts trackFace). */
const DETECT_EVERY = 3;
/** Every frame (at this rate), small and grey, for placing cuts to the frame (subjects.ts cutsIn). */
const CUT_FPS = 25;
const CUT_SIZE = { width: 64, height: 36 };

/** How a moment of `durationMs` from a source of `source`'s size is sampled for framing. */
function frameSampling(source: Size, durationMs: number): FrameSampling {
  const fps = Math.min(SAMPLE_FPS, (MAX_SAMPLES * 1000) / Math.max(1, durationMs));
  const scale = Math.min(1, SAMPLE_SIDE / Math.max(source.width, source.height));
  return { fps, size: { width: even(source.width * scale), height: even(source.height * scale) }, cutFps: CUT_FPS, cutSize: CUT_SIZE };
}

/** Where the segments join on the rendered timeline (ms): cuts the framing must not pan across. */
const joinsOf = (segments: Segment[]): number[] => {
  let at = 0;
  return segments.slice(0, -1).map((s) => (at += s.endMs - s.startMs));
};

/**
 * A detector that starts on each sampled frame as soon as the renderer delivers it, one frame at a
 * time, so detection runs while the next frames decode instead of after the whole moment; `detect`
 * then answers from the detection already under way.
 */
function prefetching(detector: SubjectDetector): SubjectDetector & { start(frame: RgbFrame): void } {
  const started = new Map<RgbFrame, Promise<Face[]>>();
  let queue: Promise<unknown> = Promise.resolve();
  return {
    name: detector.name,
    start(frame) {
      const faces = queue.then(() => detector.detect(frame));
      // A failure reaches whoever awaits this frame's faces; the queue goes on.
      queue = faces.catch(() => undefined);
      started.set(frame, faces);
    },
    detect: (frame) => started.get(frame) ?? detector.detect(frame),
  };
}

/** Samples the cut moment and looks at it: faces from the detector, else the salient region, and the cuts (subjects.ts). */
async function subjectsOf(deps: RenderPlanningDeps, cut: MomentCut, source: Size): Promise<SubjectTrack> {
  const sampling = frameSampling(
    source,
    cut.segments.reduce((sum, s) => sum + s.endMs - s.startMs, 0),
  );
  const detector = deps.detector ? prefetching(deps.detector) : null;
  const { frames, greys } = await deps.renderer.sample(cut, sampling, (frame, index) => {
    if (index % DETECT_EVERY === 0) detector?.start(frame);
  });
  return observeSubjects(frames, {
    detector,
    detectEvery: DETECT_EVERY,
    source,
    intervalMs: 1000 / sampling.fps,
    joinsMs: joinsOf(cut.segments),
    cutsMs: cutsIn(greys, sampling.cutSize, 1000 / sampling.cutFps),
  });
}

/**
 * Plans one moment's render: the source's frame size decides the geometry; only a plan that crops
 * has anything to aim (`original`, or an output of the source's shape, shows it whole), so only
 * then is the moment sampled and the crop planned around what it shows. The captions are sized to
 * the planned output. `subjects` is what framing saw (null when it did not look), for measuring.
 */
export async function planMomentRender(
  deps: RenderPlanningDeps,
  request: MomentRenderRequest,
): Promise<{ plan: MomentRenderPlan; subjects: SubjectTrack | null }> {
  const { output, mode, captions, ...rest } = request;
  const layout = await deps.renderer.probe(request.sourceUrl);
  const source = { width: layout.width, height: layout.height };
  const centred = planFrame(source, output, mode);
  const subjects = planCrops(centred, source) ? await subjectsOf(deps, request, source) : null;
  const frame = subjects ? planFrame(source, output, mode, subjects) : centred;
  return { plan: { ...rest, frame, hasAudio: layout.hasAudio, captions: captions ? captions(frame.output) : null }, subjects };
}
