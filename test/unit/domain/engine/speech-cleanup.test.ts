import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AudioSignals, Span, TranscriptSegment } from '../../../../functions/domain/engine/signals.js';
import { tightSubclips } from '../../../../functions/domain/engine/speech-cleanup.js';

const span = (startMs: number, endMs: number): Span => ({ startMs, endMs });

function audio(silence: Span[] = [], loudPeaks: Span[] = []): AudioSignals {
  return { loudness: [], integratedLufs: null, loudPeaks: loudPeaks.map((p) => ({ ...p, level: 1 })), silence, speech: [], music: [] };
}

/** One segment whose words have the given spans. */
const said = (...words: Span[]): TranscriptSegment[] => [
  {
    startMs: words[0]!.startMs,
    endMs: words.at(-1)!.endMs,
    text: words.map(() => 'word').join(' '),
    speaker: null,
    words: words.map((w) => ({ ...w, text: 'word' })),
  },
];

const moment = span(0, 10_000);

describe('tightSubclips', () => {
  it('keeps the moment whole when nothing pauses for 0.4 s', () => {
    expect(tightSubclips(moment, { audio: audio(), transcript: null })).toEqual([moment]);
    expect(tightSubclips(moment, { audio: audio([span(2_000, 2_399)]), transcript: null })).toEqual([moment]);
    expect(tightSubclips(moment, { audio: null, transcript: null })).toEqual([moment]);
  });

  it('cuts a measured silence, keeping 100 ms of sound on each side of the cut', () => {
    expect(tightSubclips(moment, { audio: audio([span(2_000, 3_000)]), transcript: null })).toEqual([span(0, 2_100), span(2_900, 10_000)]);
  });

  it('cuts a gap of 0.4 s or more between words, across segments too', () => {
    const transcript = [...said(span(0, 1_000), span(1_200, 2_000)), ...said(span(2_500, 4_000)), ...said(span(4_300, 10_000))];
    expect(tightSubclips(moment, { audio: null, transcript })).toEqual([span(0, 2_100), span(2_400, 10_000)]);
  });

  it('takes word times from the segment when the transcriber gave none', () => {
    const transcript: TranscriptSegment[] = [
      { startMs: 0, endMs: 4_000, text: 'first', speaker: null, words: [] },
      { startMs: 5_000, endMs: 10_000, text: 'second', speaker: null, words: [] },
    ];
    expect(tightSubclips(moment, { audio: null, transcript })).toEqual([span(0, 4_100), span(4_900, 10_000)]);
  });

  it('does not cut a word gap filled by a loud burst (laughter is not transcribed)', () => {
    const transcript = said(span(0, 3_000), span(5_000, 10_000));
    expect(tightSubclips(moment, { audio: audio([], [span(3_100, 4_900)]), transcript })).toEqual([moment]);
  });

  it('never cuts a word that silence detection called quiet', () => {
    const transcript = said(span(0, 2_000), span(2_100, 2_600), span(2_700, 10_000));
    expect(tightSubclips(moment, { audio: audio([span(2_000, 3_000)]), transcript })).toEqual([moment]);
  });

  it('measures touching silence and word gaps as one pause', () => {
    // 250 ms of word gap then 250 ms of silence: one 0.5 s pause.
    const transcript = said(span(0, 2_000), span(2_500, 10_000));
    const cut = tightSubclips(moment, { audio: audio([span(2_250, 2_500)]), transcript });
    expect(cut).toEqual([span(0, 2_100), span(2_400, 10_000)]);
  });

  it('drops a sliver of sound shorter than 100 ms between two pauses', () => {
    expect(tightSubclips(moment, { audio: audio([span(2_000, 3_000), span(3_050, 4_000)]), transcript: null })).toEqual([span(0, 2_100), span(3_900, 10_000)]);
  });

  it('cuts a pause at the edge of the moment without leaving silence there', () => {
    const within = span(1_000, 9_000);
    expect(tightSubclips(within, { audio: audio([span(0, 2_000), span(8_500, 12_000)]), transcript: null })).toEqual([span(1_900, 8_600)]);
  });

  it('keeps a moment that is all pause as it is', () => {
    expect(tightSubclips(moment, { audio: audio([span(0, 10_000)]), transcript: null })).toEqual([moment]);
  });

  it('honours another pause threshold', () => {
    expect(tightSubclips(moment, { audio: audio([span(2_000, 2_700)]), transcript: null }, 1_000)).toEqual([moment]);
  });

  it('always answers ordered, non-overlapping, non-empty integer subclips inside the moment', () => {
    const spanArb = fc
      .tuple(fc.double({ min: -2_000, max: 22_000, noNaN: true }), fc.double({ min: 0, max: 3_000, noNaN: true }))
      .map(([start, length]) => span(start, start + length));
    fc.assert(
      fc.property(
        fc.array(spanArb, { maxLength: 12 }),
        fc.array(spanArb, { maxLength: 20 }),
        fc.array(spanArb, { maxLength: 4 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 1, max: 10_000 }),
        (silence, words, peaks, start, length) => {
          const m = span(start, start + length);
          const transcript = words.length ? said(...[...words].sort((a, b) => a.startMs - b.startMs)) : null;
          const subclips = tightSubclips(m, { audio: audio(silence, peaks), transcript });
          expect(subclips.length).toBeGreaterThan(0);
          subclips.forEach((s, i) => {
            expect(Number.isInteger(s.startMs) && Number.isInteger(s.endMs)).toBe(true);
            expect(s.endMs).toBeGreaterThan(s.startMs);
            expect(s.startMs).toBeGreaterThanOrEqual(m.startMs);
            expect(s.endMs).toBeLessThanOrEqual(m.endMs);
            if (i > 0) expect(s.startMs).toBeGreaterThan(subclips[i - 1]!.endMs);
          });
        },
      ),
    );
  });
});
