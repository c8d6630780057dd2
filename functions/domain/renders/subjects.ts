import type { Rect, Size } from './framing.js';

/**
 * What a render's framing looks at: frames sampled from the cut moment (low resolution, a few per
 * second), the faces a detector finds on them, and, where it finds none, the most salient region.
 * Pure code on pixels: no ffmpeg and no model here; the detector is a port.
 */

/** One sampled frame: packed RGB, `width * height * 3` bytes; `timeMs` on the rendered moment's timeline. */
export interface RgbFrame extends Size {
  timeMs: number;
  rgb: Uint8Array;
}

export interface Face extends Rect {
  /** Detector confidence, 0-1. */
  score: number;
}

/** Finds faces on a frame; boxes in the frame's pixels. A real model behind it (adapters/renders/face-detector.ts). */
export interface SubjectDetector {
  readonly name: string;
  detect(frame: RgbFrame): Promise<Face[]>;
}

export interface ObservedFace extends Face {
  /** Mean luma change in the lower half of the box since the previous sample (0-255): a mouth that moves. */
  activity: number;
}

/** What one sample shows, in source pixels. */
export interface SubjectSample {
  timeMs: number;
  faces: ObservedFace[];
  /** The most salient region when no face was found; null when nothing stands out. */
  salient: Rect | null;
  /** The shot changed since the previous sample (a hard cut, or a join between two cut segments). */
  cut: boolean;
  /** When it changed: the join's time, else halfway since the previous sample. */
  cutAtMs?: number;
}

export interface SubjectTrack {
  /** The sampled frames' size mapped onto this source size. */
  source: Size;
  /** How far apart the samples are. */
  intervalMs: number;
  samples: SubjectSample[];
  /** Which detector looked (for logs and figures). */
  detector: string;
}

/** Luma (BT.601) of a frame, one byte per pixel. */
function lumaOf(frame: RgbFrame): Uint8Array {
  const out = new Uint8Array(frame.width * frame.height);
  for (let i = 0, p = 0; i < out.length; i++, p += 3) {
    out[i] = (77 * (frame.rgb[p] ?? 0) + 150 * (frame.rgb[p + 1] ?? 0) + 29 * (frame.rgb[p + 2] ?? 0)) >> 8;
  }
  return out;
}

/** Mean of |a - b| over a rectangle of two luma planes of the same size. */
function meanAbsDiff(a: Uint8Array, b: Uint8Array, width: number, rect: Rect): number {
  const x0 = Math.max(0, Math.floor(rect.x));
  const y0 = Math.max(0, Math.floor(rect.y));
  const x1 = Math.min(width, Math.ceil(rect.x + rect.width));
  const y1 = Math.min(a.length / width, Math.ceil(rect.y + rect.height));
  let sum = 0;
  let n = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0, i = y * width + x0; x < x1; x++, i++) {
      sum += Math.abs((a[i] ?? 0) - (b[i] ?? 0));
      n++;
    }
  }
  return n === 0 ? 0 : sum / n;
}

/** Block means of a luma plane (block x block pixels), row-major; the grid's size beside it. */
function blockMeans(luma: Uint8Array, width: number, height: number, block: number): { cols: number; rows: number; means: Float32Array } {
  const cols = Math.max(1, Math.floor(width / block));
  const rows = Math.max(1, Math.floor(height / block));
  const means = new Float32Array(cols * rows);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      let sum = 0;
      for (let y = r * block; y < (r + 1) * block; y++) {
        for (let x = c * block, i = y * width + x; x < (c + 1) * block; x++, i++) sum += luma[i] ?? 0;
      }
      means[r * cols + c] = sum / (block * block);
    }
  }
  return { cols, rows, means };
}

/**
 * A hard cut between two samples: the 8x8-block layout of the picture changed a lot (mean block
 * difference above `threshold` of 255). A subject moving over a still background changes a few
 * blocks, not the frame.
 */
export function isCut(previous: Uint8Array, current: Uint8Array, width: number, height: number, threshold = 28): boolean {
  const a = blockMeans(previous, width, height, 8).means;
  const b = blockMeans(current, width, height, 8).means;
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs((a[i] ?? 0) - (b[i] ?? 0));
  return sum / a.length > threshold;
}

/**
 * The most salient region of a frame, or null: a map of colour distinctness (each 8x8 block's
 * mean colour against the frame's mean colour) plus motion energy (block luma change since the
 * previous sample, weighted double), box-filtered over a window of a quarter of the frame's
 * height; the best window counts when it stands out at least `contrast` times above the map's
 * mean. A flat or uniformly busy frame has no salient region.
 */
export function salientRegion(frame: RgbFrame, previousLuma: Uint8Array | null, contrast = 1.8): Rect | null {
  const block = 8;
  const cols = Math.floor(frame.width / block);
  const rows = Math.floor(frame.height / block);
  if (cols < 4 || rows < 4) return null;
  const luma = lumaOf(frame);
  const colour = new Float32Array(cols * rows * 3);
  const mean = [0, 0, 0];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      let red = 0;
      let green = 0;
      let blue = 0;
      for (let y = r * block; y < (r + 1) * block; y++) {
        for (let x = c * block, p = (y * frame.width + x) * 3; x < (c + 1) * block; x++, p += 3) {
          red += frame.rgb[p] ?? 0;
          green += frame.rgb[p + 1] ?? 0;
          blue += frame.rgb[p + 2] ?? 0;
        }
      }
      const acc = [red, green, blue];
      for (let k = 0; k < 3; k++) {
        const v = (acc[k] ?? 0) / (block * block);
        colour[(r * cols + c) * 3 + k] = v;
        mean[k] = (mean[k] ?? 0) + v / (cols * rows);
      }
    }
  }
  const map = new Float32Array(cols * rows);
  const motion = previousLuma ? blockMeans(luma, frame.width, frame.height, block) : null;
  const before = previousLuma ? blockMeans(previousLuma, frame.width, frame.height, block) : null;
  for (let i = 0; i < map.length; i++) {
    const d = Math.hypot((colour[i * 3] ?? 0) - (mean[0] ?? 0), (colour[i * 3 + 1] ?? 0) - (mean[1] ?? 0), (colour[i * 3 + 2] ?? 0) - (mean[2] ?? 0));
    const m = motion && before ? Math.abs((motion.means[i] ?? 0) - (before.means[i] ?? 0)) : 0;
    map[i] = d + 2 * m;
  }
  // Window sums through an integral image.
  const win = Math.max(2, Math.round(rows / 4));
  const integral = new Float64Array((cols + 1) * (rows + 1));
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      integral[(r + 1) * (cols + 1) + c + 1] =
        (map[r * cols + c] ?? 0) + (integral[r * (cols + 1) + c + 1] ?? 0) + (integral[(r + 1) * (cols + 1) + c] ?? 0) - (integral[r * (cols + 1) + c] ?? 0);
    }
  }
  const total = integral[rows * (cols + 1) + cols] ?? 0;
  const mapMean = total / (cols * rows);
  let best = -1;
  let bestAt = { r: 0, c: 0 };
  for (let r = 0; r + win <= rows; r++) {
    for (let c = 0; c + win <= cols; c++) {
      const at = (rr: number, cc: number) => integral[rr * (cols + 1) + cc] ?? 0;
      const sum = at(r + win, c + win) - at(r, c + win) - at(r + win, c) + at(r, c);
      if (sum > best) {
        best = sum;
        bestAt = { r, c };
      }
    }
  }
  const windowMean = best / (win * win);
  if (mapMean < 1 || windowMean < contrast * mapMean || windowMean < 12) return null;
  return { x: bestAt.c * block, y: bestAt.r * block, width: win * block, height: win * block };
}

/** Best offset of a rectangle of `from` within `to` (same size planes) over a square of offsets; mean |difference| there. */
function bestOffset(
  from: ArrayLike<number>,
  to: ArrayLike<number>,
  width: number,
  height: number,
  rect: Rect,
  centre: { dx: number; dy: number },
  radius: number,
): { dx: number; dy: number; error: number } {
  const x0 = Math.max(0, Math.round(rect.x));
  const y0 = Math.max(0, Math.round(rect.y));
  const x1 = Math.min(width, Math.round(rect.x + rect.width));
  const y1 = Math.min(height, Math.round(rect.y + rect.height));
  const pixels = Math.max(1, (x1 - x0) * (y1 - y0));
  let best = { dx: centre.dx, dy: centre.dy, error: Infinity };
  let bestSum = Infinity;
  for (let dy = centre.dy - radius; dy <= centre.dy + radius; dy++) {
    if (y0 + dy < 0 || y1 + dy > height) continue;
    for (let dx = centre.dx - radius; dx <= centre.dx + radius; dx++) {
      if (x0 + dx < 0 || x1 + dx > width) continue;
      let sum = 0;
      // Rows stop as soon as this offset cannot beat the best one.
      for (let y = y0; y < y1 && sum < bestSum; y++) {
        for (let x = x0, i = y * width + x0, j = (y + dy) * width + x0 + dx; x < x1; x++, i++, j++) sum += Math.abs((from[i] ?? 0) - (to[j] ?? 0));
      }
      if (sum < bestSum) {
        bestSum = sum;
        best = { dx, dy, error: sum / pixels };
      }
    }
  }
  return best;
}

/**
 * Where a face found on the previous sample is on this one (the face's luma matched within
 * `radius` pixels, coarse at half size, then to the pixel), or null when nothing there matches
 * well (mean |difference| above `maxError` of 255): the detector then looks again. Costs a few
 * milliseconds where a detector pass costs tens.
 */
export function trackFace(previous: Uint8Array, current: Uint8Array, size: Size, face: Rect, radius: number, maxError = 12): Rect | null {
  const a = blockMeans(previous, size.width, size.height, 2);
  const b = blockMeans(current, size.width, size.height, 2);
  const half = { x: face.x / 2, y: face.y / 2, width: face.width / 2, height: face.height / 2 };
  const coarse = bestOffset(a.means, b.means, a.cols, a.rows, half, { dx: 0, dy: 0 }, Math.ceil(radius / 2));
  if (!Number.isFinite(coarse.error)) return null;
  const fine = bestOffset(previous, current, size.width, size.height, face, { dx: 2 * coarse.dx, dy: 2 * coarse.dy }, 2);
  return fine.error <= maxError ? { ...face, x: face.x + fine.dx, y: face.y + fine.dy } : null;
}

const scaleRect = (rect: Rect, sx: number, sy: number): Rect => ({ x: rect.x * sx, y: rect.y * sy, width: rect.width * sx, height: rect.height * sy });

/**
 * Hard cuts in a dense run of small grey frames (every frame of the moment, `frameMs` apart): the
 * times (ms) of the first frame of each new shot. Cheap enough to look at every frame, so a cut is
 * placed to the frame rather than somewhere between two samples.
 */
export function cutsIn(frames: Uint8Array[], size: Size, frameMs: number): number[] {
  const cuts: number[] = [];
  for (let i = 1; i < frames.length; i++) {
    const before = frames[i - 1];
    const after = frames[i];
    if (before && after && isCut(before, after, size.width, size.height)) cuts.push(Math.round(i * frameMs));
  }
  return cuts;
}

/**
 * Looks at every sampled frame in order: faces from the detector (with their mouth activity),
 * else the salient region, and whether the shot cut since the previous sample: a cut at one of
 * `cutsMs` (found on every frame: cutsIn), a join between segments at `joinsMs`, or, when no
 * dense cuts are given, a picture change between the two samples. Boxes come back in source pixels.
 */
export async function observeSubjects(
  frames: Iterable<RgbFrame> | AsyncIterable<RgbFrame>,
  options: {
    detector: SubjectDetector | null;
    source: Size;
    intervalMs: number;
    joinsMs?: number[];
    cutsMs?: number[];
    detectEvery?: number;
    trackRadius?: number;
  },
): Promise<SubjectTrack> {
  const samples: SubjectSample[] = [];
  const detectEvery = options.detectEvery ?? 1;
  let previous: Uint8Array | null = null;
  let previousFound: Face[] = [];
  let previousTime = -Infinity;
  let index = 0;
  const joins = [...(options.joinsMs ?? []), ...(options.cutsMs ?? [])].sort((a, b) => a - b);
  // The detector looks at every `detectEvery`-th sample and after each cut; in between, the faces it found are followed (trackFace).
  const facesOn = async (frame: RgbFrame, luma: Uint8Array, detect: boolean): Promise<Face[]> => {
    const detector = options.detector;
    if (!detector) return [];
    if (detect || !previous) return detector.detect(frame);
    const before = previous;
    const radius = options.trackRadius ?? Math.round(frame.width * 0.15);
    const followed = previousFound.map((face) => trackFace(before, luma, frame, face, radius));
    return followed.every((face) => face !== null) ? followed.map((face, i) => ({ ...face, score: previousFound[i]?.score ?? 0 })) : detector.detect(frame);
  };
  for await (const frame of frames) {
    const luma = lumaOf(frame);
    const sx = options.source.width / frame.width;
    const sy = options.source.height / frame.height;
    const joined = joins.find((j) => j > previousTime && j <= frame.timeMs);
    const cut = previous !== null && (joined !== undefined || (!options.cutsMs && isCut(previous, luma, frame.width, frame.height)));
    const found = options.detector ? await facesOn(frame, luma, index % detectEvery === 0 || cut || previous === null) : [];
    const faces = found.map((face) => {
      const activity = previous && !cut ? meanAbsDiff(previous, luma, frame.width, { ...face, y: face.y + face.height / 2, height: face.height / 2 }) : 0;
      return { ...scaleRect(face, sx, sy), score: face.score, activity };
    });
    const salient = faces.length === 0 ? salientRegion(frame, cut ? null : previous) : null;
    const cutAtMs = cut ? (joined ?? Math.round((previousTime + frame.timeMs) / 2)) : undefined;
    samples.push({ timeMs: frame.timeMs, faces, salient: salient && scaleRect(salient, sx, sy), cut, ...(cutAtMs !== undefined ? { cutAtMs } : {}) });
    previous = luma;
    previousFound = found;
    previousTime = frame.timeMs;
    index += 1;
  }
  return { source: options.source, intervalMs: options.intervalMs, samples, detector: options.detector?.name ?? 'saliency' };
}
