import { describe, expect, it } from 'vitest';
import { mergeSignals } from '../../../../functions/domain/engine/merge-signals.js';
import type { AudioSignals, SourceSignals, Span, VideoSignals } from '../../../../functions/domain/engine/signals.js';

const DURATION_MS = 1_500_000;

function chunkSignals(window: Span, video: Partial<VideoSignals>, audio: Partial<AudioSignals>): SourceSignals {
  return {
    mediaKind: 'video',
    durationMs: DURATION_MS,
    window,
    video: { width: 64, height: 36, frameRate: 1, sceneCuts: [], motion: [], black: [], frozen: [], dominantColor: '#808080', visual: null, ...video },
    audio: { loudness: [], integratedLufs: -40, loudPeaks: [], silence: [], speech: [], music: [], ...audio },
    transcript: null,
  };
}

const total = (spans: Span[]) => spans.reduce((sum, s) => sum + s.endMs - s.startMs, 0);

describe('mergeSignals', () => {
  // A loud burst 598-602 s over a 600 s boundary; silence, speech, music, black and frozen
  // picture running across it; and spans of each kind that stop short of it.
  const first = chunkSignals(
    { startMs: 0, endMs: 600_000 },
    { black: [{ startMs: 590_000, endMs: 600_000 }], frozen: [{ startMs: 100_000, endMs: 110_000 }] },
    {
      loudPeaks: [
        { startMs: 300_000, endMs: 302_000, level: 0.5 },
        { startMs: 598_000, endMs: 600_000, level: 1 },
      ],
      silence: [{ startMs: 500_000, endMs: 600_000 }],
      speech: [{ startMs: 10_000, endMs: 20_000 }],
      music: [{ startMs: 550_000, endMs: 600_000 }],
    },
  );
  const second = chunkSignals(
    { startMs: 600_000, endMs: 1_200_000 },
    { black: [{ startMs: 600_000, endMs: 605_000 }], frozen: [{ startMs: 605_000, endMs: 1_200_000 }] },
    {
      loudPeaks: [{ startMs: 600_000, endMs: 602_000, level: 0.7 }],
      silence: [{ startMs: 600_000, endMs: 601_000 }],
      speech: [{ startMs: 600_500, endMs: 610_000 }],
      music: [{ startMs: 600_000, endMs: 1_200_000 }],
    },
  );
  const third = chunkSignals(
    { startMs: 1_200_000, endMs: DURATION_MS },
    { frozen: [{ startMs: 1_200_000, endMs: 1_300_000 }] },
    { music: [{ startMs: 1_200_000, endMs: 1_210_000 }] },
  );

  const merged = mergeSignals([third, first, second]);

  it('joins spans that meet at a boundary, so an event across it is counted once', () => {
    expect(merged.audio?.loudPeaks).toEqual([
      { startMs: 300_000, endMs: 302_000, level: 0.5 },
      { startMs: 598_000, endMs: 602_000, level: 1 },
    ]);
    expect(merged.audio?.silence).toEqual([{ startMs: 500_000, endMs: 601_000 }]);
    expect(merged.audio?.music).toEqual([{ startMs: 550_000, endMs: 1_210_000 }]);
    expect(merged.video?.black).toEqual([{ startMs: 590_000, endMs: 605_000 }]);
    expect(merged.video?.frozen).toEqual([
      { startMs: 100_000, endMs: 110_000 },
      { startMs: 605_000, endMs: 1_300_000 },
    ]);
    // A span that does not meet the boundary stays apart.
    expect(merged.audio?.speech).toEqual([
      { startMs: 10_000, endMs: 20_000 },
      { startMs: 600_500, endMs: 610_000 },
    ]);
  });

  it('covers exactly what the chunks covered: nothing at a boundary is counted twice', () => {
    for (const kind of ['silence', 'speech', 'music'] as const) {
      expect(total(merged.audio![kind])).toBe(total([first, second, third].flatMap((c) => c.audio![kind])));
    }
    expect(total(merged.audio!.loudPeaks)).toBe(total([first, second, third].flatMap((c) => c.audio!.loudPeaks)));
    expect(total(merged.video!.frozen)).toBe(total([first, second, third].flatMap((c) => c.video!.frozen)));
  });

  it('takes the chunks in time order, whatever order they come in', () => {
    expect(merged.window).toEqual({ startMs: 0, endMs: DURATION_MS });
    expect(merged.durationMs).toBe(DURATION_MS);
  });
});
