/**
 * Quality of the real extractor on labelled fixtures made at test time (ground-truth-media.ts:
 * transitionsVideo, overlappingSoundsAudio; truth is also written beside each file). The same
 * figures are printed by `npm run bench` (signals section).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { SourceSignals } from '../../../../functions/domain/engine/signals.js';
import { resolveFfprobePath } from '../../../../functions/adapters/ffmpeg-binaries.js';
import { FfmpegSignalExtractor } from '../../../../functions/adapters/signals/ffmpeg-signal-extractor.js';
import {
  ffmpegPath,
  overlappingSoundsAudio,
  pulsingSoundsAudio,
  transitionsVideo,
  type PulsingSoundsMedia,
  type SoundsMedia,
  type TransitionsMedia,
} from '../../../helpers/ground-truth-media.js';
import { scoreTransitions, spanIoU } from '../../../helpers/signal-scores.js';

const extractor = new FfmpegSignalExtractor({ ffmpegPath: ffmpegPath(), ffprobePath: resolveFfprobePath(process.env.FFPROBE_PATH) });

const measure = async (media: { path: string; durationMs: number }, mediaKind: 'video' | 'audio') =>
  (await extractor.extract({ url: media.path, mediaKind, durationMs: media.durationMs, window: { startMs: 0, endMs: media.durationMs } })).signals;

describe.each([
  { name: 'clean', degraded: false },
  { name: 'grainy, re-encoded at 120 kb/s', degraded: true },
])('scene changes on the transitions fixture ($name)', ({ degraded }) => {
  let media: TransitionsMedia;
  let signals: SourceSignals;

  beforeAll(async () => {
    media = await transitionsVideo({ degraded });
    signals = await measure(media, 'video');
  }, 120_000);

  it('finds cuts within 0.5 s and dissolves, fades and wipes inside their span (F1 >= 0.95)', () => {
    const reported = (signals.video?.sceneCuts ?? []).map((c) => c.atMs);
    const score = scoreTransitions(
      media.transitions,
      reported,
      media.noChange.map((n) => n.span),
    );
    expect(score, JSON.stringify(signals.video?.sceneCuts)).toMatchObject({ truths: 9 });
    expect(score.f1, JSON.stringify(score)).toBeGreaterThanOrEqual(0.95);
    expect(media.transitions.filter((t) => t.kind !== 'cut')).toHaveLength(7);
  });

  it('reports no change inside pans, zooms or a flash', () => {
    for (const { what, span } of media.noChange) {
      // Open at both ends: a shot that starts with a cut starts its camera move there.
      const inside = (signals.video?.sceneCuts ?? []).filter((c) => c.atMs > span.startMs && c.atMs < span.endMs);
      expect(inside, `${what} ${span.startMs}-${span.endMs}`).toEqual([]);
    }
    expect(media.noChange.map((n) => n.what).sort()).toEqual(['flash', 'pan', 'pan', 'zoom', 'zoom']);
  });
});

describe('overlapping sound classes (espeak-ng speech over a music bed and over noise, bangs, silence)', () => {
  let media: SoundsMedia;
  let signals: SourceSignals;

  beforeAll(async () => {
    media = await overlappingSoundsAudio();
    signals = await measure(media, 'audio');
  }, 120_000);

  it('measures each class where it holds, overlaps included (IoU >= 0.8 per class)', () => {
    const audio = signals.audio!;
    const iou = {
      speech: spanIoU(media.truth.speech, audio.speech),
      music: spanIoU(media.truth.music, audio.music),
      silence: spanIoU(media.truth.silence, audio.silence),
      loud: spanIoU(media.truth.loud, audio.loudPeaks),
    };
    for (const value of Object.values(iou)) expect(value, JSON.stringify({ iou, audio })).toBeGreaterThanOrEqual(0.8);
  });

  it('reports the music under the speech, not only where nobody speaks', () => {
    const underSpeech = media.truth.speech[0]!;
    const music = signals.audio!.music;
    expect(
      music.some((m) => m.startMs <= underSpeech.startMs && m.endMs >= underSpeech.endMs),
      JSON.stringify(music),
    ).toBe(true);
    const speechOverMusic = signals.audio!.speech.filter((s) => s.startMs < underSpeech.endMs && s.endMs > underSpeech.startMs);
    expect(speechOverMusic.length).toBeGreaterThan(0);
  });

  it('hears neither music in speech alone or in noise, nor speech in the music bed alone', () => {
    const music = signals.audio!.music;
    expect(music.filter((m) => m.startMs >= 27_000)).toEqual([]);
    expect(signals.audio!.speech.filter((s) => s.endMs <= media.truth.speech[0]!.startMs)).toEqual([]);
  });
});

describe('sound that pulses at syllable rate without a voice (tremolo, vibrato, a pumped pad, gated noise, drums), then speech over the tremolo', () => {
  let media: PulsingSoundsMedia;
  let signals: SourceSignals;

  beforeAll(async () => {
    media = await pulsingSoundsAudio();
    signals = await measure(media, 'audio');
  }, 120_000);

  it('hears no speech in any of them', () => {
    for (const { what, span } of media.truth.pulsing) {
      const heard = signals.audio!.speech.filter((s) => s.startMs < span.endMs && s.endMs > span.startMs);
      expect(heard, what).toEqual([]);
    }
  });

  it('still hears the speech over the pulsing chord (IoU >= 0.6: the 2 s speech test itself finds 0.67 of it over this bed)', () => {
    expect(spanIoU(media.truth.speech, signals.audio!.speech), JSON.stringify(signals.audio!.speech)).toBeGreaterThanOrEqual(0.6);
  });
});
