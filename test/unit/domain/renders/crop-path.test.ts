import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  autoPath,
  followedFaces,
  pathFor,
  positionAt,
  stackedPaths,
  DEFAULT_PATH_OPTIONS,
  type CropKey,
} from '../../../../functions/domain/renders/crop-path.js';
import { planFrame } from '../../../../functions/domain/renders/framing.js';
import {
  cutsIn,
  isCut,
  salientRegion,
  type ObservedFace,
  type RgbFrame,
  type SubjectSample,
  type SubjectTrack,
} from '../../../../functions/domain/renders/subjects.js';
import { pathExpression, renderFilterGraph, sampleArgs } from '../../../../functions/adapters/renders/ffmpeg-render.js';

const source = { width: 640, height: 360 };
const crop = { width: 202, height: 360 };
const INTERVAL = 500;

const face = (cx: number, size = 80, extra: Partial<ObservedFace> = {}): ObservedFace => ({
  x: cx - size / 2,
  y: 100,
  width: size,
  height: size,
  score: 0.95,
  activity: 0,
  ...extra,
});
const sample = (i: number, faces: ObservedFace[], extra: Partial<SubjectSample> = {}): SubjectSample => ({
  timeMs: i * INTERVAL,
  faces,
  salient: null,
  cut: false,
  ...extra,
});
const track = (samples: SubjectSample[]): SubjectTrack => ({ source, intervalMs: INTERVAL, samples, detector: 'test' });
const centreAt = (keys: CropKey[], ms: number) => positionAt(keys, ms).x + crop.width / 2;

describe('crop path', () => {
  test('a subject that only jitters in place: the window holds still (one key)', () => {
    const keys = autoPath(track(Array.from({ length: 20 }, (_, i) => sample(i, [face(400 + (i % 2 ? 4 : -4))]))), crop);
    expect(new Set(keys.map((k) => k.x)).size).toBe(1);
    expect(Math.abs(centreAt(keys, 5000) - 400)).toBeLessThan(DEFAULT_PATH_OPTIONS.deadZone * crop.width + 1);
  });

  test('a subject that moves follows without lag and ends on it', () => {
    const at = (i: number) => 200 + 15 * i;
    const keys = autoPath(track(Array.from({ length: 20 }, (_, i) => sample(i, [face(at(i))]))), crop);
    for (let i = 0; i < 20; i++)
      expect(Math.abs(centreAt(keys, i * INTERVAL) - at(i)), `sample ${i}`).toBeLessThanOrEqual(DEFAULT_PATH_OPTIONS.deadZone * crop.width + 1);
  });

  test('a subject that moves faster than the window may: the pan is bounded by maxSpeed, and it catches up', () => {
    const samples = Array.from({ length: 20 }, (_, i) => sample(i, [face(Math.min(500, 100 + 100 * Math.max(0, i - 5)))]));
    const keys = autoPath(track(samples), crop);
    const maxPerSecond = DEFAULT_PATH_OPTIONS.maxSpeed * crop.width;
    for (let ms = 0; ms < 9500; ms += 100) expect(Math.abs(centreAt(keys, ms + 100) - centreAt(keys, ms))).toBeLessThanOrEqual(maxPerSecond / 10 + 1);
    expect(centreAt(keys, 9500)).toBeGreaterThan(480);
  });

  test('another face in place of the followed one for less than switchAfterMs: the window holds', () => {
    const samples = Array.from({ length: 10 }, (_, i) => sample(i, [face(i === 4 ? 520 : 150)]));
    const keys = autoPath(track(samples), crop);
    expect(keys.every((k) => !k.jump)).toBe(true);
    for (let ms = 0; ms <= 4500; ms += 250) expect(centreAt(keys, ms)).toBeLessThan(160);
  });

  test('a cut: the window jumps at the cut, never pans across it', () => {
    const samples = Array.from({ length: 20 }, (_, i) => sample(i, [face(i < 10 ? 150 : 500)], i === 10 ? { cut: true, cutAtMs: 4800 } : {}));
    const keys = autoPath(track(samples), crop);
    expect(centreAt(keys, 4790)).toBeLessThan(160 + 1);
    expect(centreAt(keys, 4800)).toBeGreaterThan(490);
    expect(keys.filter((k) => k.jump).map((k) => k.timeMs)).toEqual([4800]);
  });

  test('the window stays inside the frame, and a shot with nothing seen is a centre crop', () => {
    const edge = autoPath(track(Array.from({ length: 6 }, (_, i) => sample(i, [face(5)]))), crop);
    expect(edge.every((k) => k.x === 0)).toBe(true);
    const empty = autoPath(track(Array.from({ length: 6 }, (_, i) => sample(i, []))), crop);
    expect(empty).toEqual([
      { timeMs: 0, x: 219, y: 0 },
      { timeMs: 2500, x: 219, y: 0 },
    ]);
  });

  test('no face: the salient region is followed', () => {
    const keys = autoPath(track(Array.from({ length: 6 }, (_, i) => sample(i, [], { salient: { x: 480, y: 100, width: 60, height: 60 } }))), crop);
    expect(Math.round(centreAt(keys, 1000))).toBe(510);
  });

  test('speaker-aware: of two faces the talking one is followed, and a switch is a jump after a hold', () => {
    const samples = Array.from({ length: 16 }, (_, i) => {
      const leftTalks = i < 8;
      return sample(i, [face(150, 80, { activity: leftTalks ? 20 : 1 }), face(500, 80, { activity: leftTalks ? 1 : 20 })]);
    });
    const followed = followedFaces(samples, INTERVAL);
    expect(followed.slice(0, 8).every((f) => f.face?.x === 110)).toBe(true);
    // Two samples (1 s) of the other face talking before the window goes to it.
    expect(followed.findIndex((f) => f.switched)).toBe(8 + Math.ceil(DEFAULT_PATH_OPTIONS.switchAfterMs / INTERVAL) - 1);
    const keys = autoPath(track(samples), crop);
    expect(centreAt(keys, 1000)).toBeLessThan(160);
    expect(centreAt(keys, 7000)).toBeGreaterThan(490);
    expect(keys.some((k) => k.jump)).toBe(true);
  });

  test('stacked: the two most prominent faces, left one on top, else null (halves)', () => {
    const panel = { width: 404, height: 360 };
    const two = track(Array.from({ length: 6 }, (_, i) => sample(i, [face(520, 90), face(130, 80), face(330, 20)])));
    const paths = stackedPaths(two, panel);
    expect(paths).not.toBeNull();
    const [top, bottom] = paths ?? [[], []];
    expect(positionAt(top, 1000).x + panel.width / 2).toBeLessThanOrEqual(202 + 1); // clamped as far left as it goes
    expect(positionAt(bottom, 1000).x + panel.width / 2).toBeGreaterThanOrEqual(438 - 1);
    expect(stackedPaths(track(Array.from({ length: 6 }, (_, i) => sample(i, [face(300)]))), panel)).toBeNull();
    const plan = planFrame({ width: 1280, height: 360 }, { width: 1080, height: 1920 }, 'stacked', { ...two, source: { width: 1280, height: 360 } });
    expect(plan.panels.map((p) => p.place.y)).toEqual([0, 960]);
  });

  test('planFrame auto with a track: the crop starts on the subject; without one, centred', () => {
    const moving = track(Array.from({ length: 10 }, (_, i) => sample(i, [face(150 + 30 * i)])));
    const plan = planFrame(source, { width: 1080, height: 1920 }, 'auto', moving);
    expect(plan.panels[0]?.path?.length).toBeGreaterThan(1);
    expect(Math.abs((plan.panels[0]?.crop.x ?? 0) + crop.width / 2 - 150)).toBeLessThan(12);
    expect(planFrame(source, { width: 1080, height: 1920 }, 'auto').panels[0]?.path).toBeUndefined();
  });

  test('the ffmpeg expression of a path is the path: same position at every time', () => {
    const keyList = fc.array(fc.record({ dt: fc.integer({ min: 1, max: 3000 }), x: fc.integer({ min: 0, max: 438 }), jump: fc.boolean() }), {
      minLength: 1,
      maxLength: 30,
    });
    fc.assert(
      fc.property(keyList, fc.integer({ min: 0, max: 100_000 }), (list, probe) => {
        let t = 0;
        const keys: CropKey[] = list.map((k, i) => ({ timeMs: (t += i === 0 ? 0 : k.dt), x: k.x, y: 0, ...(k.jump && i > 0 ? { jump: true } : {}) }));
        const ms = probe % ((keys.at(-1)?.timeMs ?? 0) + 2000);
        expect(evaluate(pathExpression(keys, 'x'), ms / 1000)).toBeCloseTo(positionAt(keys, ms).x, 0);
      }),
      { numRuns: 300 },
    );
  });

  test('a moving panel renders as a crop whose x and y are expressions of t; sampling cuts the same segments', () => {
    const moving = track(Array.from({ length: 10 }, (_, i) => sample(i, [face(150 + 30 * i)])));
    const plan = planFrame(source, { width: 1080, height: 1920 }, 'auto', moving);
    const graph = renderFilterGraph([{ startMs: 1000, endMs: 6000 }], plan, true);
    expect(graph).toContain(`crop=202:360:'${pathExpression(plan.panels[0]?.path ?? [], 'x')}':'0',scale=1080:1920`);
    const args = sampleArgs(
      {
        sourceUrl: 'https://example.test/s.mp4',
        segments: [
          { startMs: 1000, endMs: 3000 },
          { startMs: 5000, endMs: 6000 },
        ],
      },
      {
        fps: 2,
        size: { width: 320, height: 180 },
        cutFps: 25,
        cutSize: { width: 64, height: 36 },
      },
    );
    const complex = args[args.indexOf('-filter_complex') + 1] ?? '';
    expect(complex).toContain('[0:v]trim=start=0.000:end=2.000');
    expect(complex).toContain('[0:v]trim=start=4.000:end=5.000');
    expect(complex).toContain('fps=fps=2:round=up,scale=320:180,format=rgb24[samples]');
    expect(args.slice(-14)).toEqual([
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
    ]);
  });

  test('pathFor with explicit breaks keeps each shot to itself', () => {
    const samples = Array.from({ length: 8 }, (_, i) => sample(i, []));
    const targets = samples.map((_, i) => ({ x: i < 4 ? 120 : 520, y: 180 }));
    const keys = pathFor(
      track(samples),
      crop,
      targets,
      samples.map((_, i) => i === 4),
    );
    expect(keys.filter((k) => k.jump)).toHaveLength(1);
  });
});

/** Evaluates the only forms pathExpression writes (a constant, `D*gte(t,T)`, `D*clip((t-F)/L,0,1)`), failing on anything else. */
function evaluate(expression: string, t: number): number {
  const term = /([+-]?\d+(?:\.\d+)?)(?:\*(?:gte\(t,([\d.]+)\)|clip\(\(t-([\d.]+)\)\/([\d.]+),0,1\)))?/gy;
  let value = 0;
  let consumed = 0;
  for (const [whole, d, gteAt, from, length] of expression.matchAll(term)) {
    consumed += whole.length;
    const delta = Number(d);
    if (gteAt !== undefined) value += t >= Number(gteAt) ? delta : 0;
    else if (from !== undefined) value += delta * Math.min(1, Math.max(0, (t - Number(from)) / Number(length)));
    else value += delta;
  }
  expect(consumed, expression).toBe(expression.length);
  return value;
}

/** A frame of grey noise (seeded) with an optional coloured square. */
function frame(width: number, height: number, seed: number, square?: { x: number; y: number; size: number; rgb: [number, number, number] }): RgbFrame {
  const rgb = new Uint8Array(width * height * 3);
  let s = seed;
  for (let i = 0; i < width * height; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    const v = 100 + (s % 40);
    rgb.set([v, v, v], i * 3);
  }
  if (square) {
    for (let y = square.y; y < square.y + square.size; y++) for (let x = square.x; x < square.x + square.size; x++) rgb.set(square.rgb, (y * width + x) * 3);
  }
  return { width, height, timeMs: 0, rgb };
}

const luma = (f: RgbFrame) => {
  const out = new Uint8Array(f.width * f.height);
  for (let i = 0; i < out.length; i++) out[i] = f.rgb[i * 3] ?? 0;
  return out;
};

describe('saliency and cuts', () => {
  test('a coloured subject on a grey textured background is the salient region; plain texture has none', () => {
    const region = salientRegion(frame(320, 180, 7, { x: 220, y: 60, size: 48, rgb: [230, 40, 60] }), null);
    expect(region).not.toBeNull();
    const cx = (region?.x ?? 0) + (region?.width ?? 0) / 2;
    expect(Math.abs(cx - 244)).toBeLessThan(24);
    expect(salientRegion(frame(320, 180, 7), null)).toBeNull();
  });

  test('a cut is a change of the whole picture, not of a moving subject', () => {
    const a = frame(64, 36, 1, { x: 10, y: 10, size: 8, rgb: [200, 200, 200] });
    const b = frame(64, 36, 1, { x: 20, y: 10, size: 8, rgb: [200, 200, 200] });
    const c = frame(64, 36, 1);
    for (let i = 0; i < c.rgb.length; i++) c.rgb[i] = 255 - (c.rgb[i] ?? 0) / 3;
    expect(isCut(luma(a), luma(b), 64, 36)).toBe(false);
    expect(isCut(luma(b), luma(c), 64, 36)).toBe(true);
    expect(cutsIn([luma(a), luma(b), luma(c), luma(c)], { width: 64, height: 36 }, 40)).toEqual([80]);
  });
});
