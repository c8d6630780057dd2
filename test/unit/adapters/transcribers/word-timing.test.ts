/** Word times without an aligner, and around words the aligner's dictionary lacks (pure). */
import { describe, expect, it } from 'vitest';
import { bareWord, fillByLength, spreadByLength } from '../../../../functions/adapters/transcribers/word-timing.js';

describe('spreadByLength', () => {
  it('shares the span by letters, in order, inside the span, with gaps between words', () => {
    const words = spreadByLength(['a', 'longer', 'word'], { startMs: 1_000, endMs: 2_400 });
    expect(words.map((w) => w.text)).toEqual(['a', 'longer', 'word']);
    expect(words[0]!.startMs).toBe(1_000);
    expect(words.at(-1)!.endMs).toBe(2_400);
    for (const [i, w] of words.entries()) {
      expect(w.endMs).toBeGreaterThan(w.startMs);
      if (i > 0) expect(w.startMs).toBeGreaterThan(words[i - 1]!.endMs);
    }
    expect(words[1]!.endMs - words[1]!.startMs).toBeGreaterThan(words[0]!.endMs - words[0]!.startMs);
  });
});

describe('fillByLength', () => {
  it('keeps aligned times and spreads the words without them between their neighbours', () => {
    const words = fillByLength(
      ['we', 'met', '1963', 'again'],
      [{ startMs: 100, endMs: 300 }, { startMs: 300, endMs: 500 }, null, { startMs: 1_500, endMs: 2_000 }],
      { startMs: 0, endMs: 2_500 },
    );
    expect(words).toEqual([
      { text: 'we', startMs: 100, endMs: 300 },
      { text: 'met', startMs: 300, endMs: 500 },
      { text: '1963', startMs: 500, endMs: 1_500 },
      { text: 'again', startMs: 1_500, endMs: 2_000 },
    ]);
  });

  it('words at the edges spread to the span edges', () => {
    const words = fillByLength(['uh', 'yes'], [null, { startMs: 800, endMs: 1_000 }], { startMs: 0, endMs: 1_000 });
    expect(words[0]).toEqual({ text: 'uh', startMs: 0, endMs: 800 });
  });
});

describe('bareWord', () => {
  it('trims punctuation at the edges only', () => {
    expect(['Hello,', '"world."', "don't", 'cold-hearted', '...'].map(bareWord)).toEqual(['Hello', 'world', "don't", 'cold-hearted', '']);
  });
});
