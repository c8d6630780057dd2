/**
 * Following faces between detector passes (trackFace), and which samples the detector looks at
 * (observeSubjects with detectEvery): every n-th, the first after a cut, and any whose faces
 * could not be followed.
 */
import { describe, expect, it } from 'vitest';
import { observeSubjects, trackFace, type Face, type RgbFrame, type SubjectDetector } from '../../../../functions/domain/renders/subjects.js';

const SIZE = { width: 320, height: 180 };
const PATCH = 48;

/** A deterministic texture: the "face" (a patch of its own pattern) drawn at (x, y) over a background of another. */
function picture(x: number, y: number, background = 0): Uint8Array {
  const luma = new Uint8Array(SIZE.width * SIZE.height);
  for (let py = 0; py < SIZE.height; py++) {
    for (let px = 0; px < SIZE.width; px++) {
      const inFace = px >= x && px < x + PATCH && py >= y && py < y + PATCH;
      luma[py * SIZE.width + px] = inFace ? 40 + ((((px - x) * 7) ^ ((py - y) * 13)) % 180) : (background + ((px >> 3) + (py >> 3)) * 9) % 120;
    }
  }
  return luma;
}

const rgbOf = (luma: Uint8Array, timeMs: number): RgbFrame => {
  const rgb = new Uint8Array(luma.length * 3);
  luma.forEach((v, i) => rgb.set([v, v, v], i * 3));
  return { ...SIZE, timeMs, rgb };
};

describe('trackFace', () => {
  it('follows a face that moved, to the pixel', () => {
    const face = { x: 100, y: 60, width: PATCH, height: PATCH };
    const moved = trackFace(picture(100, 60), picture(131, 53), SIZE, face, 48);
    expect(moved).toEqual({ ...face, x: 131, y: 53 });
  });

  it('gives up when the face moved further than the search, or the picture cut to another', () => {
    const face = { x: 100, y: 60, width: PATCH, height: PATCH };
    expect(trackFace(picture(100, 60), picture(200, 60), SIZE, face, 48)).toBeNull();
    expect(
      trackFace(
        picture(100, 60),
        picture(100, 60, 57).map((v) => 255 - v),
        SIZE,
        face,
        48,
      ),
    ).toBeNull();
  });
});

describe('observeSubjects with detectEvery', () => {
  /** A detector that finds the face where the frames say it is, and notes which frames it saw. */
  function scriptedDetector(positions: { x: number; y: number }[]): SubjectDetector & { seen: number[] } {
    const seen: number[] = [];
    return {
      name: 'scripted',
      seen,
      detect: (frame) => {
        const index = frame.timeMs / 500;
        seen.push(index);
        const at = positions[index];
        return Promise.resolve(at ? [{ ...at, width: PATCH, height: PATCH, score: 0.9 } satisfies Face] : []);
      },
    };
  }

  it('looks at every third sample and follows the face in between', async () => {
    const positions = Array.from({ length: 7 }, (_, i) => ({ x: 60 + 12 * i, y: 60 }));
    const detector = scriptedDetector(positions);
    const frames = positions.map((p, i) => rgbOf(picture(p.x, p.y), i * 500));
    const track = await observeSubjects(frames, { detector, source: SIZE, intervalMs: 500, cutsMs: [], detectEvery: 3 });
    expect(detector.seen).toEqual([0, 3, 6]);
    expect(track.samples.map((s) => s.faces[0]?.x)).toEqual(positions.map((p) => p.x));
    expect(track.samples.every((s) => s.faces[0]?.score === 0.9)).toBe(true);
  });

  it('looks again right after a cut, and wherever the face cannot be followed', async () => {
    const positions = [
      { x: 60, y: 60 },
      { x: 70, y: 60 },
      { x: 200, y: 100 }, // a jump too far to follow
      { x: 205, y: 100 },
      { x: 40, y: 40 }, // after the cut at 1.9 s
    ];
    const detector = scriptedDetector(positions);
    const frames = positions.map((p, i) => rgbOf(picture(p.x, p.y, i === 4 ? 60 : 0), i * 500));
    const track = await observeSubjects(frames, { detector, source: SIZE, intervalMs: 500, cutsMs: [1900], detectEvery: 10 });
    expect(detector.seen).toEqual([0, 2, 4]);
    expect(track.samples.map((s) => s.faces[0]?.x)).toEqual(positions.map((p) => p.x));
    expect(track.samples[4]?.cut).toBe(true);
  });
});
