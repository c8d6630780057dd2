/** The words a moment keeps for its captions (persistResults), and that the API never shows them. */
import { describe, expect, it } from 'vitest';
import { wordsWithin } from '../../../../functions/domain/runs/steps/persist-results.js';
import type { MomentRecord } from '../../../../functions/domain/runs/model.js';
import { presentMoment } from '../../../../functions/resources/analyses/presenter.js';

const segment = (words: [string, number, number][]) => ({
  startMs: words[0]![1],
  endMs: words.at(-1)![2],
  text: words.map(([t]) => t).join(' '),
  speaker: null,
  words: words.map(([text, startMs, endMs]) => ({ text, startMs, endMs })),
});

describe('wordsWithin', () => {
  it('keeps the words whose middle lies in the moment, in order, across segments, in whole milliseconds', () => {
    const transcript = [
      segment([
        ['before', 8_000, 9_000],
        // Its middle (9.75 s) is outside: a word the moment cuts mostly off is not shown.
        ['edge', 9_500, 10_000.4],
        ['inside', 10_100, 10_500],
      ]),
      segment([
        ['later', 12_000.6, 12_400],
        ['straddles', 19_800, 20_100],
        ['after', 20_100, 20_600],
      ]),
    ];
    expect(wordsWithin(transcript, { startMs: 10_000, endMs: 20_000 })).toEqual([
      { text: 'inside', start_ms: 10_100, end_ms: 10_500 },
      { text: 'later', start_ms: 12_001, end_ms: 12_400 },
      { text: 'straddles', start_ms: 19_800, end_ms: 20_100 },
    ]);
  });

  it('a segment without word times counts as one word; nobody speaking: no words', () => {
    expect(wordsWithin([{ startMs: 1_000, endMs: 3_000, text: ' hello there ', speaker: 'spk_0', words: [] }], { startMs: 0, endMs: 5_000 })).toEqual([
      { text: 'hello there', start_ms: 1_000, end_ms: 3_000 },
    ]);
    expect(wordsWithin([], { startMs: 0, endMs: 5_000 })).toEqual([]);
  });
});

describe('presentMoment', () => {
  it('never shows the words kept for captions', () => {
    const moment: MomentRecord = {
      object: 'moment',
      id: 'mom_1',
      analysis_id: 'ana_1',
      run_id: null,
      observation_id: null,
      rank: 0,
      start_ms: 0,
      end_ms: 5_000,
      duration_ms: 5_000,
      score: 0.5,
      title: 'A moment',
      event_type: 'scene_change',
      transcript_excerpt: '',
      edit: { mode: 'continuous', subclips: [{ start_ms: 0, end_ms: 5_000 }] },
      words: [{ text: 'secretly', start_ms: 100, end_ms: 400 }],
    };
    expect(presentMoment(moment)).not.toHaveProperty('words');
    expect(JSON.stringify(presentMoment(moment))).not.toContain('secretly');
  });
});
