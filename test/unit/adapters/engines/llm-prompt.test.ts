import { describe, expect, it } from 'vitest';
import { parseAnswer, promptFor, MalformedModelAnswer } from '../../../../functions/adapters/analyzers/llm-prompt.js';
import type { SourceSignals } from '../../../../functions/domain/engine/signals.js';
import { scanner } from './fixtures.js';

const HOUR = 3_600_000;

/** Four hours of video, merged from every chunk: the size a whole-source answer is asked over. */
function fourHourSignals(): SourceSignals {
  const durationMs = 4 * HOUR;
  return {
    mediaKind: 'video',
    durationMs,
    window: { startMs: 0, endMs: durationMs },
    video: {
      width: 1920,
      height: 1080,
      frameRate: 30,
      // One cut every 3 s, the one at 2 h far stronger than the rest.
      sceneCuts: Array.from({ length: durationMs / 3_000 }, (_, i) => ({ atMs: i * 3_000, score: i * 3_000 === 2 * HOUR ? 0.99 : 0.3 + (i % 7) / 100 })),
      // Motion per second, with one burst of action at 3 h.
      motion: Array.from({ length: durationMs / 1_000 }, (_, i) => ({ startMs: i * 1_000, endMs: (i + 1) * 1_000, level: i === 3 * 3_600 ? 1 : 0.1 })),
      black: [],
      frozen: [],
      dominantColor: '#204060',
      visual: null,
    },
    audio: {
      loudness: Array.from({ length: durationMs / 500 }, (_, i) => ({ atMs: i * 500, lufs: -30 })),
      integratedLufs: -30,
      loudPeaks: [],
      silence: Array.from({ length: 500 }, (_, i) => ({ startMs: i * 20_000, endMs: i * 20_000 + 1_000 + (i === 250 ? 9_000 : 0) })),
      speech: [],
      music: [],
    },
    transcript: Array.from({ length: 4_000 }, (_, i) => ({
      startMs: i * 3_600,
      endMs: i * 3_600 + 3_000,
      text: `Sentence number ${i} of the long recording, said by one of the two hosts.`,
      speaker: i % 2 ? 'spk_1' : 'spk_0',
      words: [],
    })),
  };
}

/** The parts of the user message these tests read. */
interface Listed<T> {
  total: number;
  shown: number;
  items: T[];
}
interface Pooled {
  total: number;
  series: { start_ms: number; end_ms: number; max: number }[];
}
interface Question {
  signals: {
    video: { scene_cuts: Listed<{ at_ms: number; score: number }>; motion: Pooled };
    audio: { loudness: Pooled; silence: Listed<{ start_ms: number; end_ms: number }> };
    transcript: Listed<{ start_ms: number; speaker: string }>;
  };
}

describe('the prompt', () => {
  const { user } = promptFor(scanner('summarizer', 'Summarise the show'), fourHourSignals());
  const { video, audio, transcript } = (JSON.parse(user) as Question).signals;

  it('stays a bounded size for a four-hour source', () => {
    expect(user.length).toBeLessThan(120_000);
  });

  it('pools long series into at most 120 buckets that keep their peaks, times in ms', () => {
    expect(video.motion.total).toBe(14_400);
    expect(video.motion.series.length).toBeLessThanOrEqual(120);
    const peak = video.motion.series.find((bucket) => bucket.max === 1)!;
    expect(peak.start_ms).toBeLessThanOrEqual(3 * HOUR);
    expect(peak.end_ms).toBeGreaterThan(3 * HOUR);
    expect(audio.loudness.series.length).toBeLessThanOrEqual(120);
  });

  it('keeps the strongest scene cuts and the longest spans, says how many there were, in time order', () => {
    const cuts = video.scene_cuts;
    expect(cuts).toMatchObject({ total: 4_800, shown: 200 });
    expect(cuts.items).toContainEqual({ at_ms: 2 * HOUR, score: 0.99 });
    const times = cuts.items.map((c) => c.at_ms);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(audio.silence).toMatchObject({ total: 500, shown: 100 });
    expect(audio.silence.items).toContainEqual({ start_ms: 5_000_000, end_ms: 5_010_000 });
  });

  it('spreads a transcript over its budget evenly, from the start to near the end, with speakers', () => {
    expect(transcript.total).toBe(4_000);
    expect(transcript.shown).toBeGreaterThan(100);
    expect(transcript.shown).toBeLessThan(4_000);
    expect(transcript.items[0]).toMatchObject({ start_ms: 0, speaker: 'spk_0' });
    expect(transcript.items.at(-1)!.start_ms).toBeGreaterThan(3.5 * HOUR);
  });
});

describe('parseAnswer', () => {
  it('accepts an answered and an unsupported answer', () => {
    expect(parseAnswer('{"status":"answered","findings":[{"value":true,"relevance_score":1}]}')).toEqual({
      status: 'answered',
      findings: [{ value: true, relevance_score: 1 }],
    });
    expect(parseAnswer('{"status":"unsupported","reason":"no faces measured"}')).toEqual({ status: 'unsupported', reason: 'no faces measured' });
  });

  it.each([
    ['prose', 'The answer is yes.'],
    ['truncated JSON', '{"status":"answered","findings":[{"value":tr'],
    ['an unknown status', '{"status":"maybe","findings":[]}'],
    ['findings that are not objects', '{"status":"answered","findings":["yes"]}'],
    ['an empty reason', '{"status":"unsupported","reason":" "}'],
  ])('refuses %s with MalformedModelAnswer', (_, reply) => {
    expect(() => parseAnswer(reply)).toThrow(MalformedModelAnswer);
  });
});
