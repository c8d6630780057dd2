/** Voice activity spans from frame probabilities, and their shaping for the recogniser (pure). */
import { describe, expect, it } from 'vitest';
import { recognitionSegments, speechSpans, VAD_FRAME_MS } from '../../../../functions/adapters/transcribers/speech-segments.js';

const frames = (...runs: [probability: number, count: number][]) => runs.flatMap(([p, n]) => Array<number>(n).fill(p));
const ms = (frame: number) => Math.round(frame * VAD_FRAME_MS);

describe('speechSpans', () => {
  it('a span from the first confident frame (one frame early) to where the quiet began', () => {
    expect(speechSpans(frames([0.1, 10], [0.9, 20], [0.05, 20]))).toEqual([{ startMs: ms(9), endMs: ms(30) }]);
  });

  it('a short dip (a breath) does not end a span; a long one does', () => {
    expect(speechSpans(frames([0.9, 10], [0.1, 5], [0.9, 10], [0.1, 20]))).toHaveLength(1);
    expect(speechSpans(frames([0.9, 10], [0.1, 12], [0.9, 10], [0.1, 20]))).toHaveLength(2);
  });

  it('probabilities between the hold and start levels keep a span going but never start one', () => {
    expect(speechSpans(frames([0.4, 50]))).toEqual([]);
    expect(speechSpans(frames([0.9, 5], [0.4, 30], [0.1, 10]))).toEqual([{ startMs: 0, endMs: ms(35) }]);
  });

  it('clicks (under 3 confident frames) are not speech; speech running to the end closes at the end', () => {
    expect(speechSpans(frames([0.1, 5], [0.9, 2], [0.1, 20]))).toEqual([]);
    expect(speechSpans(frames([0.1, 5], [0.9, 10]))).toEqual([{ startMs: ms(4), endMs: ms(15) }]);
  });
});

describe('recognitionSegments', () => {
  const limits = { minMs: 1_500, maxGapMs: 2_000, maxMs: 20_000 };

  it('short spans join their nearer neighbour, repeatedly, across gaps up to maxGapMs', () => {
    const spans = [
      { startMs: 0, endMs: 500 },
      { startMs: 800, endMs: 1_200 },
      { startMs: 1_400, endMs: 1_900 },
      { startMs: 10_000, endMs: 14_000 },
    ];
    expect(recognitionSegments(spans, limits)).toEqual([
      { startMs: 0, endMs: 1_900 },
      { startMs: 10_000, endMs: 14_000 },
    ]);
  });

  it('a short span with no neighbour near enough stays alone; long spans are cut into equal parts within maxMs', () => {
    expect(recognitionSegments([{ startMs: 5_000, endMs: 5_600 }], limits)).toEqual([{ startMs: 5_000, endMs: 5_600 }]);
    expect(recognitionSegments([{ startMs: 0, endMs: 50_000 }], limits)).toEqual([
      { startMs: 0, endMs: 16_667 },
      { startMs: 16_667, endMs: 33_333 },
      { startMs: 33_333, endMs: 50_000 },
    ]);
  });

  it('never joins past maxMs', () => {
    const spans = [
      { startMs: 0, endMs: 19_500 },
      { startMs: 19_800, endMs: 20_300 },
    ];
    expect(recognitionSegments(spans, limits)).toEqual(spans);
  });
});
