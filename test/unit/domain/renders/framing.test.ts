import { describe, expect, test } from 'vitest';
import { cropAround, planFrame } from '../../../../functions/domain/renders/framing.js';
import { renderArgs, renderFilterGraph } from '../../../../functions/adapters/renders/ffmpeg-render.js';
import { renderedMsOf, segmentsOf } from '../../../../functions/domain/renders/model.js';

const source = { width: 1920, height: 1080 };

describe('framing geometry', () => {
  test('auto: a centred crop of the output aspect, scaled to the exact output size', () => {
    const plan = planFrame(source, { width: 1080, height: 1920 }, 'auto');
    expect(plan.output).toEqual({ width: 1080, height: 1920 });
    expect(plan.panels).toEqual([{ crop: { x: 657, y: 0, width: 606, height: 1080 }, place: { x: 0, y: 0, width: 1080, height: 1920 } }]);
  });

  test('auto at the source aspect keeps the whole frame', () => {
    expect(planFrame(source, { width: 1920, height: 1080 }, 'auto').panels[0]?.crop).toEqual({ x: 0, y: 0, width: 1920, height: 1080 });
  });

  test('original: the source size, made even', () => {
    expect(planFrame({ width: 641, height: 361 }, null, 'auto').output).toEqual({ width: 640, height: 360 });
  });

  test('stacked: the left half above the right half, each filling half the output', () => {
    const plan = planFrame(source, { width: 1080, height: 1920 }, 'stacked');
    const [top, bottom] = plan.panels;
    expect(top?.place).toEqual({ x: 0, y: 0, width: 1080, height: 960 });
    expect(bottom?.place).toEqual({ x: 0, y: 960, width: 1080, height: 960 });
    expect(top && top.crop.x + top.crop.width).toBeLessThanOrEqual(960);
    expect(bottom?.crop.x).toBeGreaterThanOrEqual(960);
    // Each panel crop has the panel's aspect (1080:960), within rounding to even pixels.
    for (const panel of plan.panels) expect(Math.abs(panel.crop.width / panel.crop.height - 1080 / 960)).toBeLessThan(0.01);
  });

  test('a crop centre from a detector is honoured and clamped inside the frame', () => {
    const region = { x: 0, y: 0, ...source };
    expect(cropAround(region, { width: 9, height: 16 }, { x: 1900, y: 540 }).x).toBe(1920 - 606);
    expect(cropAround(region, { width: 9, height: 16 }, { x: 400, y: 540 }).x).toBe(97);
  });
});

describe('cutting a moment', () => {
  const moment = { start_ms: 10_000, end_ms: 20_000, edit: { mode: 'continuous', subclips: [] } };
  const tight = {
    ...moment,
    edit: {
      mode: 'subclips',
      subclips: [
        { start_ms: 10_000, end_ms: 12_000 },
        { start_ms: 15_000, end_ms: 20_000 },
      ],
    },
  };

  test('continuous moments are one span; subclips are concatenated', () => {
    expect(segmentsOf(moment)).toEqual([{ startMs: 10_000, endMs: 20_000 }]);
    expect(renderedMsOf(moment)).toBe(10_000);
    expect(segmentsOf(tight)).toEqual([
      { startMs: 10_000, endMs: 12_000 },
      { startMs: 15_000, endMs: 20_000 },
    ]);
    expect(renderedMsOf(tight)).toBe(7_000);
  });

  test('the ffmpeg command seeks the input to the first span and trims each span relative to it', () => {
    const plan = planFrame(source, { width: 1080, height: 1920 }, 'auto');
    const args = renderArgs({ sourceUrl: 'https://bucket/key?sig', segments: segmentsOf(tight) }, plan, true, '/tmp/out.mp4');
    expect(args.slice(args.indexOf('-ss'), args.indexOf('-ss') + 4)).toEqual(['-ss', '10.000', '-t', '10.000']);
    expect(args).toEqual(expect.arrayContaining(['libx264', 'aac', '+faststart']));
    const graph = renderFilterGraph(segmentsOf(tight), plan, true);
    expect(graph).toContain('[0:v]trim=start=0.000:end=2.000');
    expect(graph).toContain('[0:a]atrim=start=5.000:end=10.000');
    expect(graph).toContain('concat=n=2:v=1:a=1');
    expect(graph).toContain('scale=1080:1920');
  });

  test("a source without audio gets silence of each span's length; stacked output uses vstack", () => {
    const plan = planFrame(source, { width: 1080, height: 1920 }, 'stacked');
    const graph = renderFilterGraph(segmentsOf(moment), plan, false);
    expect(graph).toContain('anullsrc=r=48000:cl=stereo,atrim=duration=10.000');
    expect(graph).toContain('vstack=inputs=2');
  });
});
