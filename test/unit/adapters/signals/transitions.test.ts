import { describe, expect, it } from 'vitest';
import { SMALL_HEIGHT, SMALL_WIDTH, TransitionDetector } from '../../../../functions/adapters/signals/transitions.js';

const PIXELS = SMALL_WIDTH * SMALL_HEIGHT;

/** A picture of large blocks (like a test card), deterministic per seed, wider than the frame so it can be panned. */
function blocks(seed: number, width = SMALL_WIDTH * 3): Float32Array {
  const picture = new Float32Array(width * SMALL_HEIGHT);
  for (let y = 0; y < SMALL_HEIGHT; y += 1) {
    for (let x = 0; x < width; x += 1) picture[y * width + x] = ((Math.floor(x / 6) * 97 + Math.floor(y / 6) * 53 + seed * 31) % 11) * 23;
  }
  return picture;
}

/** The SMALL_WIDTH-wide view of `picture` starting at column `x`. */
function view(picture: Float32Array, x: number, width = SMALL_WIDTH * 3): Float32Array {
  const frame = new Float32Array(PIXELS);
  for (let y = 0; y < SMALL_HEIGHT; y += 1) for (let i = 0; i < SMALL_WIDTH; i += 1) frame[y * SMALL_WIDTH + i] = picture[y * width + x + i] ?? 0;
  return frame;
}

const mix = (a: Float32Array, b: Float32Array, alpha: number) => a.map((value, p) => value * (1 - alpha) + (b[p] ?? 0) * alpha);

describe('TransitionDetector', () => {
  it('finds a 1 s dissolve between two pictures as one transition over its frames', () => {
    const a = view(blocks(1), 0);
    const b = view(blocks(4), 0);
    const detector = new TransitionDetector();
    for (let i = 0; i < 10; i += 1) detector.push(a);
    for (let i = 1; i <= 10; i += 1) detector.push(mix(a, b, i / 10));
    for (let i = 0; i < 10; i += 1) detector.push(b);
    const gradual = detector.gradual();
    expect(gradual).toHaveLength(1);
    expect(gradual[0]?.fromFrame).toBeGreaterThanOrEqual(7);
    expect(gradual[0]?.toFrame).toBeLessThanOrEqual(22);
    expect(gradual[0]!.fromFrame + gradual[0]!.toFrame).toBeGreaterThanOrEqual(2 * 9);
    expect(gradual[0]!.fromFrame + gradual[0]!.toFrame).toBeLessThanOrEqual(2 * 20);
  });

  it('finds a fade to black, but no transition in a pan across large shapes', () => {
    const fade = new TransitionDetector();
    const a = view(blocks(2), 0);
    for (let i = 0; i < 10; i += 1) fade.push(a);
    for (let i = 1; i <= 8; i += 1) fade.push(mix(a, new Float32Array(PIXELS), i / 8));
    for (let i = 0; i < 10; i += 1) fade.push(new Float32Array(PIXELS));
    expect(fade.gradual()).toHaveLength(1);

    const pan = new TransitionDetector();
    const wide = blocks(3);
    for (let x = 0; x <= SMALL_WIDTH * 2; x += 2) pan.push(view(wide, x));
    expect(pan.gradual()).toEqual([]);
  });

  it('marks a one-frame flash, not a cut that stays', () => {
    const a = view(blocks(5), 0);
    const b = view(blocks(6), 0);
    const white = new Float32Array(PIXELS).fill(255);
    const detector = new TransitionDetector();
    for (const frame of [a, a, a, white, a, a, a, a, b, b, b, b, b]) detector.push(frame);
    expect(detector.flashes()).toEqual([3]);
    expect(detector.gradual()).toEqual([]);
  });
});
