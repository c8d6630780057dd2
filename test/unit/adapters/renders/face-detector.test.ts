/**
 * The render framing's face detector with its real model (BlazeFace from @vladmandic/human on the
 * TensorFlow.js WASM backend): faces found on a real photograph where they are, and the decoding
 * of the model's anchors on its own.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blazeFaceDetector, decodeFaces, resolveFaceDetectorFiles } from '../../../../functions/adapters/renders/face-detector.js';
import { ffmpegPath } from '../../../helpers/ground-truth-media.js';
import { toolOutput } from '../../../helpers/processes.js';

/** face-api's demo photo (1920x1280): the right-hand person's face box, from its own annotations in moving-subject.ts. */
const photo = join(dirname(createRequire(import.meta.url).resolve('@vladmandic/face-api/package.json')), 'demo', 'sample1.jpg');
const RIGHT_FACE = { x: 1422, y: 211, width: 282, height: 266 };

describe('blazeFaceDetector', () => {
  it('finds the faces of a photograph where they are, in the frame’s pixels', async () => {
    const size = { width: 480, height: 320 };
    const rgb = await toolOutput(ffmpegPath(), [
      '-v',
      'error',
      '-i',
      photo,
      '-vf',
      `scale=${size.width}:${size.height}`,
      '-f',
      'rawvideo',
      '-pix_fmt',
      'rgb24',
      '-',
    ]);
    const detector = blazeFaceDetector(resolveFaceDetectorFiles());
    const faces = await detector.detect({ ...size, timeMs: 0, rgb: new Uint8Array(rgb) });
    const scale = size.width / 1920;
    const centre = { x: (RIGHT_FACE.x + RIGHT_FACE.width / 2) * scale, y: (RIGHT_FACE.y + RIGHT_FACE.height / 2) * scale };
    const right = faces.find(
      (f) =>
        Math.abs(f.x + f.width / 2 - centre.x) < 0.25 * RIGHT_FACE.width * scale && Math.abs(f.y + f.height / 2 - centre.y) < 0.25 * RIGHT_FACE.height * scale,
    );
    expect(right, JSON.stringify(faces)).toBeDefined();
    expect(right?.score).toBeGreaterThan(0.6);
    expect(right?.width).toBeGreaterThan(0.5 * RIGHT_FACE.width * scale);
    expect(right?.width).toBeLessThan(1.5 * RIGHT_FACE.width * scale);
    expect(faces.length).toBeGreaterThanOrEqual(2);
    for (const face of faces) expect(face.score).toBeGreaterThanOrEqual(0.6);
  });

  it('sees no face in a picture without one', async () => {
    const size = { width: 320, height: 180 };
    const rgb = await toolOutput(ffmpegPath(), [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      `smptehdbars=s=${size.width}x${size.height}:d=0.04`,
      '-frames:v',
      '1',
      '-f',
      'rawvideo',
      '-pix_fmt',
      'rgb24',
      '-',
    ]);
    const faces = await blazeFaceDetector(resolveFaceDetectorFiles()).detect({ ...size, timeMs: 0, rgb: new Uint8Array(rgb) });
    expect(faces).toEqual([]);
  });
});

describe('decodeFaces', () => {
  const scores = new Float32Array(896);
  const boxes = new Float32Array(896 * 16);
  // Anchor 0 is the stride-16 cell at (8, 8) of the 256x256 input; 136 = cell (4, 4) of the same grid, anchor 0 (centre 72, 72).
  const place = (anchor: number, score: number, dx: number, dy: number, w: number, h: number) => {
    scores[anchor] = score;
    boxes.set([dx, dy, w, h], anchor * 16);
  };
  place(136, 0.9, 4, -2, 40, 48);
  place(137, 0.8, 5, -1, 42, 46); // the same face from the cell's second anchor
  place(0, 0.3, 0, 0, 20, 20); // below the score
  it('turns anchors into boxes scaled back from the letterboxed input, one per face', () => {
    // A 512x288 frame was padded to 512x512, then scaled by 1/2.
    const faces = decodeFaces(scores, boxes, { width: 512, height: 288 }, 0.6);
    expect(faces).toHaveLength(1);
    expect(faces[0]).toMatchObject({ score: expect.closeTo(0.9, 5) as number });
    expect(faces[0]?.x).toBeCloseTo((72 + 4 - 20) * 2, 3);
    expect(faces[0]?.y).toBeCloseTo((72 - 2 - 24) * 2, 3);
    expect(faces[0]?.width).toBeCloseTo(80, 3);
    expect(faces[0]?.height).toBeCloseTo(96, 3);
  });
});
