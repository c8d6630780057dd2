import { describe, expect, it } from 'vitest';
import { audioDefaults, integratedOrNull, loudPeaks, loudnessBuckets } from '../../../../functions/adapters/signals/audio-signals.js';
import { clampSpans, dropShorterThan, flagsToSpans, median, mergeSpans, subtractSpans } from '../../../../functions/domain/engine/spans.js';
import { Timeline } from '../../../../functions/adapters/signals/timeline.js';
import { meanColor, motionLevels, sceneCuts, videoDefaults } from '../../../../functions/adapters/signals/video-signals.js';

const span = (startMs: number, endMs: number) => ({ startMs, endMs });
const series = (values: number[], stepS = 0.1) => values.map((value, i) => ({ timeS: Math.round(i * stepS * 1000) / 1000, value }));

describe('spans', () => {
  it('merges overlapping spans and gaps up to maxGapMs', () => {
    expect(mergeSpans([span(5, 8), span(0, 2), span(1, 3)])).toEqual([span(0, 3), span(5, 8)]);
    expect(mergeSpans([span(0, 2), span(3, 4), span(10, 11)], 1)).toEqual([span(0, 4), span(10, 11)]);
  });

  it('subtracts, clamps, drops short spans', () => {
    expect(subtractSpans([span(0, 10)], [span(2, 3), span(5, 12)])).toEqual([span(0, 2), span(3, 5)]);
    expect(subtractSpans([span(0, 10)], [])).toEqual([span(0, 10)]);
    expect(clampSpans([span(-5, 5), span(8, 20), span(30, 40)], span(0, 10))).toEqual([span(0, 5), span(8, 10)]);
    expect(dropShorterThan([span(0, 999), span(0, 1000)], 1000)).toEqual([span(0, 1000)]);
  });

  it('turns runs of flagged buckets into spans', () => {
    expect(flagsToSpans([true, true, false, true], 500, 1000)).toEqual([span(1000, 2000), span(2500, 3000)]);
    expect(flagsToSpans([], 500)).toEqual([]);
  });

  it('median', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(median([])).toBeNaN();
  });
});

describe('Timeline', () => {
  const timeline = new Timeline(span(10_000, 20_000));

  it('maps stream seconds to source ms, inside the window', () => {
    expect(timeline.toSourceMs(2.5)).toBe(12_500);
    expect(timeline.toSourceMs(-0.1)).toBe(10_000);
    expect(timeline.toSourceMs(11)).toBe(20_000);
  });

  it('runs open spans, and spans ending within the tail, to the window end', () => {
    expect(
      timeline.spans(
        [
          { startS: 1, endS: 2 },
          { startS: 8, endS: 9.9 },
          { startS: 9.5, endS: null },
        ],
        100,
      ),
    ).toEqual([span(11_000, 12_000), span(18_000, 20_000), span(19_500, 20_000)]);
  });
});

describe('video post-processing', () => {
  const timeline = new Timeline(span(5_000, 15_000));

  it('keeps scores over the threshold as cuts, the stronger of two close ones', () => {
    const scores = [
      { timeS: 1, value: 0.9 },
      { timeS: 1.1, value: 0.95 }, // 100 ms later: the same transition
      { timeS: 3, value: 0.2 },
      { timeS: 4, value: 0.31 },
    ];
    expect(sceneCuts(scores, timeline, 0.3)).toEqual([
      { atMs: 6_100, score: 0.95 },
      { atMs: 9_000, score: 0.31 },
    ]);
  });

  it('normalises motion by the busiest second, skipping cut frames', () => {
    // Differences of frames 1..19 to their predecessors.
    const differences = series([4, 4, 4, 4, 4, 4, 4, 4, 4, 2, 2, 2, 2, 90, 2, 2, 2, 2, 2]).map((d) => ({ ...d, timeS: Math.round((d.timeS + 0.1) * 10) / 10 }));
    const levels = motionLevels(differences, new Set([1.4]), timeline);
    expect(levels).toEqual([
      { startMs: 5_000, endMs: 6_000, level: 1 },
      { startMs: 6_000, endMs: 7_000, level: 0.5 },
    ]);
  });

  it('keeps a still picture near 0 instead of stretching its noise to 1', () => {
    const levels = motionLevels(series([0.02, 0.03, 0.01]), new Set(), timeline);
    expect(levels[0]?.level).toBeLessThan(0.05);
    expect(videoDefaults.motionFloor).toBeGreaterThan(0);
  });

  it('converts mean YUV to #rrggbb', () => {
    expect(meanColor([16, 128, 128])).toBe('#000000');
    expect(meanColor([235, 128, 128])).toBe('#ffffff');
    // #c03020 in BT.601 limited range.
    expect(meanColor([92.6, 99.6, 192.4])).toBe('#c03020');
    expect(meanColor(null)).toBeNull();
  });
});

describe('audio post-processing', () => {
  const timeline = new Timeline(span(0, 10_000));

  it('buckets momentary loudness by the centre of its 400 ms window, median per bucket, floor -120', () => {
    // Readings at 0.1 .. 0.6 s centre in the first bucket, 0.8 .. 1.1 s in the second.
    const times = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 0.9, 1, 1.1];
    const values = [-30, -30, -30, -30, -30, -120.7, -120.7, -120.7, -120.7, -10];
    const momentary = times.map((timeS, i) => ({ timeS, value: values[i] ?? 0 }));
    expect(loudnessBuckets(momentary, timeline)).toEqual([
      { atMs: 0, lufs: -30 },
      { atMs: 500, lufs: -120 },
    ]);
  });

  it('drops buckets past the window end', () => {
    expect(loudnessBuckets([{ timeS: 10.5, value: -20 }], timeline)).toEqual([]);
  });

  it('finds bursts far above their surroundings and scales levels to the strongest', () => {
    const levels = Array.from({ length: 40 }, () => -30);
    levels[10] = -10; // +20 LU
    levels[11] = -12;
    levels[30] = -20; // +10 LU
    const buckets = levels.map((lufs, i) => ({ atMs: i * 500, lufs }));
    expect(loudPeaks(buckets, new Timeline(span(0, 20_000)))).toEqual([
      { startMs: 5_000, endMs: 6_000, level: 1 },
      { startMs: 15_000, endMs: 15_500, level: 0.5 },
    ]);
  });

  it('does not call a quiet tone returning after silence a peak', () => {
    const levels = [...Array.from({ length: 10 }, () => -34), ...Array.from({ length: 6 }, () => -120), ...Array.from({ length: 4 }, () => -34)];
    expect(
      loudPeaks(
        levels.map((lufs, i) => ({ atMs: i * 500, lufs })),
        new Timeline(span(0, 10_000)),
      ),
    ).toEqual([]);
  });

  it('never calls a quiet sound a peak', () => {
    const levels = Array.from({ length: 20 }, () => -80);
    levels[5] = audioDefaults.peakMinLufs - 1;
    expect(
      loudPeaks(
        levels.map((lufs, i) => ({ atMs: i * 500, lufs })),
        timeline,
      ),
    ).toEqual([]);
  });

  it('maps the no-measurement integrated value to null', () => {
    expect(integratedOrNull(-70)).toBeNull();
    expect(integratedOrNull(null)).toBeNull();
    expect(integratedOrNull(-23.4)).toBe(-23.4);
  });
});
