import { type GradualTransition, halveLuma, SMALL_HEIGHT, SMALL_WIDTH, TransitionDetector } from './transitions.js';

/**
 * Motion, mean colour, gradual scene changes and flashes (transitions.ts) from thumbnails
 * ffmpeg streams next to its log: every analysed frame (10 fps) area-scaled to 64x36 yuv420p,
 * 3456 bytes. ffmpeg 4.1's per-frame statistics filter (signalstats) cost more than all other
 * filters together at 160 px; thumbnails cost nothing measurable there and a few µs per frame
 * here (about 0.3 s per 10 minutes with the transition detector).
 */
export const THUMB_WIDTH = 64;
export const THUMB_HEIGHT = 36;
const LUMA_BYTES = THUMB_WIDTH * THUMB_HEIGHT;
const CHROMA_BYTES = LUMA_BYTES / 4;
export const THUMB_BYTES = LUMA_BYTES + 2 * CHROMA_BYTES;

export interface VideoFrames {
  /** Frames seen. */
  count: number;
  /** Mean absolute luma difference (0..255) of frame i+1 to frame i. */
  differences: number[];
  /** Mean Y, U, V (8-bit) over every pixel of every frame; null without frames. */
  meanYuv: [number, number, number] | null;
  /** Dissolves, fades and wipes, as analysed-frame index ranges (see transitions.ts). */
  gradual: GradualTransition[];
  /** Frames whose jump from the frame before is a flash, not a change of shot. */
  flashes: number[];
}

export class VideoFrameAnalyzer {
  private readonly frame = new Uint8Array(THUMB_BYTES);
  private readonly previousLuma = new Uint8Array(LUMA_BYTES);
  private filled = 0;
  private count = 0;
  private readonly differences: number[] = [];
  private ySum = 0;
  private uSum = 0;
  private vSum = 0;
  private readonly transitions = new TransitionDetector();
  private readonly small = new Float32Array(SMALL_WIDTH * SMALL_HEIGHT);

  push(chunk: Uint8Array): void {
    let offset = 0;
    while (offset < chunk.length) {
      const take = Math.min(THUMB_BYTES - this.filled, chunk.length - offset);
      this.frame.set(chunk.subarray(offset, offset + take), this.filled);
      this.filled += take;
      offset += take;
      if (this.filled === THUMB_BYTES) {
        this.measureFrame();
        this.filled = 0;
      }
    }
  }

  result(): VideoFrames {
    const pixels = this.count * LUMA_BYTES;
    const chroma = this.count * CHROMA_BYTES;
    return {
      count: this.count,
      differences: this.differences,
      meanYuv: this.count === 0 ? null : [this.ySum / pixels, this.uSum / chroma, this.vSum / chroma],
      gradual: this.transitions.gradual(),
      flashes: this.transitions.flashes(),
    };
  }

  private measureFrame(): void {
    const { frame, previousLuma } = this;
    let luma = 0;
    let difference = 0;
    for (let i = 0; i < LUMA_BYTES; i += 1) {
      const y = frame[i] ?? 0;
      luma += y;
      difference += Math.abs(y - (previousLuma[i] ?? 0));
    }
    let u = 0;
    let v = 0;
    for (let i = 0; i < CHROMA_BYTES; i += 1) {
      u += frame[LUMA_BYTES + i] ?? 0;
      v += frame[LUMA_BYTES + CHROMA_BYTES + i] ?? 0;
    }
    if (this.count > 0) this.differences.push(difference / LUMA_BYTES);
    previousLuma.set(frame.subarray(0, LUMA_BYTES));
    this.transitions.push(halveLuma(frame, THUMB_WIDTH, this.small));
    this.ySum += luma;
    this.uSum += u;
    this.vSum += v;
    this.count += 1;
  }
}
