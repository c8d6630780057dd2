/**
 * Gradual scene changes (dissolves, fades to and from black, wipes) and flash frames, found on
 * the analysed frames (10 fps) as 32x18 luma pictures (2x2 means of the 64x36 thumbnails).
 *
 * ffmpeg's scene score compares each frame with the one before, so a change spread over 0.5-2 s
 * never crosses its threshold: a 1 s dissolve is ten steps of a tenth of a cut each. Comparing
 * frames further apart finds it, but also finds every camera move. Three measures over a window
 * of 0.5-2.5 s (first frame A, last frame B) tell them apart:
 * - `distance`: mean |B - A| (0..255). A change of scene changes most of the picture.
 * - `directness`: |B - A| over the path the pixels took (the sum of their frame-to-frame
 *   changes). In a dissolve, fade or wipe every pixel goes from its value in A to its value in B
 *   once, so the path is the distance (1); moving content passes pixels back and forth (< 0.5).
 * - `unexplained`: the share of the frame-to-frame change that shifting the previous frame by up
 *   to 3 px (of 32; 30 px a tenth of a second at 320 px) does not explain. A pan over large
 *   shapes is as direct as a wipe, but each of its steps is the previous frame shifted (0.3-0.4);
 *   a dissolve, fade or wipe is not (>= 0.65 on the fixtures).
 * A window passes when all three are high and no single step holds half the change (that is a
 * hard cut, which the scene score finds); overlapping passing windows are one transition, the
 * one with the highest distance x directness x unexplained.
 *
 * A flash (a frame or two of a different picture, e.g. a camera flash or a strobe) makes the
 * scene score jump twice; it is not a change of shot because the picture 0.1-0.3 s later is
 * the one from before it. Each frame records how close the next three frames come back to the
 * frame before it.
 *
 * Limits: a dissolve between two pictures of similar layout and brightness (distance under
 * `minDistance`) is missed; a slow zoom into new detail, or a change of lighting over a second,
 * can pass as a fade; a whip pan faster than 3 px a tenth of a second can pass as a wipe.
 */
export const SMALL_WIDTH = 32;
export const SMALL_HEIGHT = 18;
const SMALL_PIXELS = SMALL_WIDTH * SMALL_HEIGHT;

export const transitionThresholds = {
  /** Window lengths, in analysed frames (10 fps): 0.5-2.5 s. */
  minFrames: 5,
  maxFrames: 25,
  /** Mean |B - A| on 0..255 luma. Zooms and busy shots on the fixtures stay under 30; changes of scene are 60-140. */
  minDistance: 40,
  minDirectness: 0.55,
  minUnexplained: 0.55,
  /** No single step may hold more than this share of |B - A| (else it is a hard cut). */
  maxStepShare: 0.5,
  /** Largest shift tried when explaining a step by camera motion, px of SMALL_WIDTH. */
  maxShift: 3,
  /** How many frames after a jump may show the earlier picture again for it to be a flash. */
  flashFrames: 3,
  /** A jump is a flash when a frame within `flashFrames` is this close (share of the jump) to the frame before it. */
  flashReturnShare: 0.25,
} as const;

export interface GradualTransition {
  /** Analysed-frame indexes of the window's first (A) and last (B) frame. */
  fromFrame: number;
  toFrame: number;
  /** Mean |B - A|, 0..255. */
  distance: number;
}

const meanAbsDifference = (a: Float32Array, b: Float32Array) => {
  let sum = 0;
  for (let p = 0; p < SMALL_PIXELS; p += 1) sum += Math.abs((a[p] ?? 0) - (b[p] ?? 0));
  return sum / SMALL_PIXELS;
};

/** Mean |current - previous shifted by (dx, dy)| over the overlap, for the best shift within maxShift. */
function motionCompensatedDifference(previous: Float32Array, current: Float32Array): number {
  const reach = transitionThresholds.maxShift;
  let best = Infinity;
  for (let dy = -reach; dy <= reach; dy += 1) {
    for (let dx = -reach; dx <= reach; dx += 1) {
      let sum = 0;
      let count = 0;
      const y0 = Math.max(0, -dy);
      const y1 = Math.min(SMALL_HEIGHT, SMALL_HEIGHT - dy);
      const x0 = Math.max(0, -dx);
      const x1 = Math.min(SMALL_WIDTH, SMALL_WIDTH - dx);
      for (let y = y0; y < y1; y += 1) {
        const row = y * SMALL_WIDTH;
        const shiftedRow = (y + dy) * SMALL_WIDTH + dx;
        for (let x = x0; x < x1; x += 1) sum += Math.abs((current[shiftedRow + x] ?? 0) - (previous[row + x] ?? 0));
        count += x1 - x0;
      }
      if (count > 0) best = Math.min(best, sum / count);
    }
  }
  return best;
}

interface Slot {
  luma: Float32Array;
  /** Per pixel, the summed |frame-to-frame change| from the first frame to this one. */
  path: Float64Array;
  /** Mean |change| to the frame before; the sum of steps from the first frame to this one. */
  step: number;
  stepsSoFar: number;
  /** What a shift of the frame before leaves of `step`; NaN until a window needs it (the shift search is the costly part). */
  unexplainedStep: number;
}

/** Consumes the analysed frames in order (as 32x18 luma) and keeps only what passed. */
export class TransitionDetector {
  private readonly ring: Slot[];
  private count = 0;
  private readonly candidates: (GradualTransition & { strength: number })[] = [];
  /** Per frame: min over the next `flashFrames` of |frame - the frame before this one| / |this frame - the frame before|. */
  private readonly returnShares: number[] = [];
  private readonly pendingFlashChecks: { frame: number; jump: number; closest: number }[] = [];

  constructor() {
    const size = transitionThresholds.maxFrames + 1;
    this.ring = Array.from({ length: size }, () => ({
      luma: new Float32Array(SMALL_PIXELS),
      path: new Float64Array(SMALL_PIXELS),
      step: 0,
      stepsSoFar: 0,
      unexplainedStep: 0,
    }));
  }

  /** `luma`: SMALL_WIDTH x SMALL_HEIGHT, row-major. */
  push(luma: Float32Array): void {
    const t = transitionThresholds;
    const index = this.count;
    const slot = this.slot(index);
    if (index === 0) {
      slot.path.fill(0);
      slot.step = 0;
      slot.stepsSoFar = 0;
      slot.unexplainedStep = 0;
    } else {
      const previous = this.slot(index - 1);
      let step = 0;
      for (let p = 0; p < SMALL_PIXELS; p += 1) {
        const change = Math.abs((luma[p] ?? 0) - (previous.luma[p] ?? 0));
        slot.path[p] = (previous.path[p] ?? 0) + change;
        step += change;
      }
      slot.step = step / SMALL_PIXELS;
      slot.stepsSoFar = previous.stepsSoFar + slot.step;
      slot.unexplainedStep = slot.step > 0 ? Number.NaN : 0;
    }
    slot.luma.set(luma);
    this.count += 1;
    this.checkFlashes(index, luma);
    for (let frames = t.minFrames; frames <= t.maxFrames && frames <= index; frames += 1) this.tryWindow(index - frames, index);
  }

  /** Passing windows, one per transition, in time order. */
  gradual(): GradualTransition[] {
    const chosen: GradualTransition[] = [];
    for (const candidate of [...this.candidates].sort((a, b) => b.strength - a.strength)) {
      if (chosen.some((c) => candidate.fromFrame < c.toFrame && candidate.toFrame > c.fromFrame)) continue;
      chosen.push({ fromFrame: candidate.fromFrame, toFrame: candidate.toFrame, distance: candidate.distance });
    }
    return chosen.sort((a, b) => a.fromFrame - b.fromFrame);
  }

  /** Frames whose jump from the frame before is a flash: the picture from before it is back within `flashFrames`. */
  flashes(): number[] {
    const flashes: number[] = [];
    this.returnShares.forEach((share, frame) => {
      if (share <= transitionThresholds.flashReturnShare) flashes.push(frame);
    });
    return flashes;
  }

  private slot(index: number): Slot {
    return this.ring[index % this.ring.length] as Slot;
  }

  private checkFlashes(index: number, luma: Float32Array): void {
    if (index > 0) this.pendingFlashChecks.push({ frame: index, jump: this.slot(index).step, closest: Infinity });
    for (const check of this.pendingFlashChecks) {
      if (check.frame === index) continue;
      const before = this.slot(check.frame - 1).luma;
      check.closest = Math.min(check.closest, meanAbsDifference(luma, before));
    }
    while (this.pendingFlashChecks.length > 0 && (this.pendingFlashChecks[0]?.frame ?? 0) + transitionThresholds.flashFrames <= index) {
      const done = this.pendingFlashChecks.shift();
      if (done) this.returnShares[done.frame] = done.jump > 0 ? done.closest / done.jump : Infinity;
    }
  }

  private tryWindow(from: number, to: number): void {
    const t = transitionThresholds;
    const first = this.slot(from);
    const last = this.slot(to);
    // The mean path is the sum of the mean steps, and no pixel moves further than its path: a
    // window whose steps add up to less than minDistance cannot pass (most windows of most shots).
    if (last.stepsSoFar - first.stepsSoFar < t.minDistance) return;
    let distance = 0;
    let path = 0;
    for (let p = 0; p < SMALL_PIXELS; p += 1) {
      distance += Math.abs((last.luma[p] ?? 0) - (first.luma[p] ?? 0));
      path += (last.path[p] ?? 0) - (first.path[p] ?? 0);
    }
    distance /= SMALL_PIXELS;
    path /= SMALL_PIXELS;
    if (distance < t.minDistance || path <= 0) return;
    const directness = distance / path;
    if (directness < t.minDirectness) return;
    let largestStep = 0;
    let steps = 0;
    let unexplained = 0;
    for (let i = from + 1; i <= to; i += 1) {
      const slot = this.slot(i);
      largestStep = Math.max(largestStep, slot.step);
      steps += slot.step;
    }
    if (largestStep > t.maxStepShare * distance) return;
    for (let i = from + 1; i <= to; i += 1) {
      const slot = this.slot(i);
      if (Number.isNaN(slot.unexplainedStep)) slot.unexplainedStep = motionCompensatedDifference(this.slot(i - 1).luma, slot.luma);
      unexplained += slot.unexplainedStep;
    }
    const unexplainedShare = steps > 0 ? unexplained / steps : 0;
    if (unexplainedShare < t.minUnexplained) return;
    this.candidates.push({ fromFrame: from, toFrame: to, distance, strength: distance * directness * unexplainedShare });
  }
}

/** 2x2 means of a 64x36 luma plane: the detector's 32x18 picture. */
export function halveLuma(luma: Uint8Array, width: number, out: Float32Array): Float32Array {
  for (let y = 0; y < SMALL_HEIGHT; y += 1) {
    for (let x = 0; x < SMALL_WIDTH; x += 1) {
      const i = 2 * y * width + 2 * x;
      out[y * SMALL_WIDTH + x] = ((luma[i] ?? 0) + (luma[i + 1] ?? 0) + (luma[i + width] ?? 0) + (luma[i + width + 1] ?? 0)) / 4;
    }
  }
  return out;
}
