/** Speech spans when a transcriber ran: where it heard words, not the heuristic's guess. */
import { describe, expect, it } from 'vitest';
import type { AudioSignals, SourceSignals, TranscriptSegment } from '../../../../functions/domain/engine/signals.js';
import { withTranscript } from '../../../../functions/domain/engine/transcript-speech.js';

const audio: AudioSignals = {
  loudness: [],
  integratedLufs: -20,
  loudPeaks: [],
  silence: [],
  // A music bed the heuristic took for speech, and a span where someone talks.
  speech: [
    { startMs: 0, endMs: 8_000 },
    { startMs: 12_000, endMs: 14_000 },
  ],
  music: [{ startMs: 0, endMs: 8_000 }],
};
const signals: Omit<SourceSignals, 'transcript'> = { mediaKind: 'audio', durationMs: 20_000, window: { startMs: 0, endMs: 20_000 }, video: null, audio };
const segment = (startMs: number, endMs: number): TranscriptSegment => ({ startMs, endMs, text: 'hello there', speaker: null, words: [] });

describe('withTranscript', () => {
  it('speech is where the transcriber heard words, touching segments merged; the rest of the signals unchanged', () => {
    const result = withTranscript(signals, [segment(12_100, 13_000), segment(13_000, 14_200), segment(16_000, 17_000)]);
    expect(result.audio!.speech).toEqual([
      { startMs: 12_100, endMs: 14_200 },
      { startMs: 16_000, endMs: 17_000 },
    ]);
    expect(result.audio!.music).toEqual(audio.music);
    expect(result.transcript).toHaveLength(3);
  });

  it('a transcriber that heard nothing: no speech at all', () => {
    expect(withTranscript(signals, []).audio!.speech).toEqual([]);
  });

  it('no transcriber (null) or no audio: the signals as measured', () => {
    expect(withTranscript(signals, null)).toEqual({ ...signals, transcript: null });
    expect(withTranscript({ ...signals, audio: null }, [segment(0, 1_000)]).audio).toBeNull();
  });
});
