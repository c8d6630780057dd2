import { describe, expect, it } from 'vitest';
import {
  AudioFrameAnalyzer,
  PCM_SAMPLE_RATE,
  pulseRegularity,
  speechSpans,
  syllableRateShare,
  toneSpans,
} from '../../../../functions/adapters/signals/audio-features.js';

/** s16le PCM at the analyser's rate from a sample function of time (s). */
function pcm(seconds: number, sample: (t: number) => number): Buffer {
  const count = Math.round(seconds * PCM_SAMPLE_RATE);
  const buffer = Buffer.alloc(count * 2);
  for (let i = 0; i < count; i += 1) {
    buffer.writeInt16LE(Math.round(Math.max(-1, Math.min(1, sample(i / PCM_SAMPLE_RATE))) * 32767), i * 2);
  }
  return buffer;
}

/** Deterministic white noise in -1..1. */
function noise(seed = 1): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return (state / 2 ** 31) * 2 - 1;
  };
}

const tone = (t: number) => 0.1 * Math.sin(2 * Math.PI * 440 * t);

/** Harmonics of 150 Hz inside 300-3000 Hz with a little noise, gated at ~4 syllables/s. */
function speechLike(): (t: number) => number {
  const hiss = noise(7);
  return (t) => {
    let voice = 0;
    for (let k = 2; k <= 20; k += 1) voice += Math.sin(2 * Math.PI * 150 * k * t + k) / k;
    const syllables = Math.max(0, Math.sin(2 * Math.PI * 4 * t + 1.5 * Math.sin(2 * Math.PI * 0.4 * t))) ** 2;
    return syllables * (0.3 * voice + 0.05 * hiss());
  };
}

function analyse(...parts: Buffer[]) {
  const analyzer = new AudioFrameAnalyzer();
  analyzer.push(Buffer.concat(parts));
  return analyzer.result();
}

describe('AudioFrameAnalyzer', () => {
  it('measures 32 ms frames and is indifferent to how the stream is chunked (odd byte splits)', () => {
    const bytes = pcm(1, speechLike());
    const whole = analyse(bytes);
    const chunked = new AudioFrameAnalyzer();
    for (let offset = 0; offset < bytes.length; offset += 333) chunked.push(bytes.subarray(offset, offset + 333));
    expect(whole.levelDb).toHaveLength(31);
    expect(chunked.result()).toEqual(whole);
  });

  it('reads a -20 dBFS sine as about -23 dB mean power, and digital silence as the -120 floor', () => {
    const frames = analyse(
      pcm(0.5, tone),
      pcm(0.5, () => 0),
    );
    expect(frames.levelDb[3]).toBeCloseTo(-23, 0);
    expect(frames.levelDb.at(-1)).toBe(-120);
  });
});

describe('tone (music-like) and speech-like spans', () => {
  it('finds a steady tone and no speech in it', () => {
    const frames = analyse(pcm(4, tone));
    expect(toneSpans(frames)).toEqual([{ startMs: 0, endMs: 4000 }]);
    expect(speechSpans(frames)).toEqual([]);
  });

  it('finds speech-like sound and no tone in it', () => {
    const frames = analyse(pcm(5, speechLike()));
    expect(speechSpans(frames)).toEqual([{ startMs: 0, endMs: 5000 }]);
    expect(toneSpans(frames)).toEqual([]);
  });

  it('finds neither in steady noise nor in silence', () => {
    const hiss = noise(3);
    const frames = analyse(
      pcm(3, () => 0.2 * hiss()),
      pcm(3, () => 0),
    );
    expect(toneSpans(frames)).toEqual([]);
    expect(speechSpans(frames)).toEqual([]);
  });

  it('separates a tone followed by speech to within a second', () => {
    const frames = analyse(pcm(4, tone), pcm(6, speechLike()));
    const [tonal] = toneSpans(frames);
    const [speech] = speechSpans(frames);
    expect(tonal?.startMs).toBe(0);
    expect(Math.abs((tonal?.endMs ?? 0) - 4000)).toBeLessThanOrEqual(1000);
    expect(Math.abs((speech?.startMs ?? 0) - 4000)).toBeLessThanOrEqual(1000);
    expect(speech?.endMs).toBe(10_000);
  });
});

describe('syllableRateShare', () => {
  const envelope = (hz: number) => Array.from({ length: 62 }, (_, i) => 10 * Math.sin((2 * Math.PI * hz * i) / 31.25));

  it('is high for a 4 Hz envelope and low for a slow swell or a step', () => {
    expect(syllableRateShare(envelope(4))).toBeGreaterThan(0.9);
    expect(syllableRateShare(envelope(1))).toBeLessThan(0.1);
    expect(syllableRateShare(Array.from({ length: 62 }, (_, i) => (i < 31 ? 0 : 20)))).toBeLessThan(0.45);
    expect(syllableRateShare(Array.from({ length: 62 }, () => 5))).toBe(0);
  });
});

describe('pulseRegularity', () => {
  const frames = (seconds: number) => Array.from({ length: Math.round(seconds * 31.25) }, (_, i) => i / 31.25);

  it('a steady tremolo or a beat repeats (>= 0.85); syllables at uneven times do not', () => {
    expect(pulseRegularity(frames(4).map((t) => 10 * Math.sin(2 * Math.PI * 5 * t)))).toBeGreaterThanOrEqual(0.85);
    expect(pulseRegularity(frames(4).map((t) => (t % 0.5 < 0.1 ? 0 : -30)))).toBeGreaterThanOrEqual(0.85);
    // Syllables of 120-300 ms with pauses of 50-250 ms, in a fixed but uneven order.
    const lengths = [0.18, 0.3, 0.12, 0.22, 0.27, 0.15, 0.2, 0.29, 0.13, 0.24, 0.17, 0.26];
    const pauses = [0.08, 0.2, 0.05, 0.25, 0.1, 0.15, 0.06, 0.22, 0.12, 0.09, 0.18, 0.07];
    const onsets = lengths.map((_, i) => lengths.slice(0, i).reduce((s, l, j) => s + l + pauses[j]!, 0));
    const speaking = (t: number) => onsets.some((o, i) => t >= o && t < o + lengths[i]!);
    expect(pulseRegularity(frames(4).map((t) => (speaking(t) ? 0 : -30)))).toBeLessThan(0.85);
  });

  it('sound starting after silence is a step, not a pulse', () => {
    expect(pulseRegularity(frames(4).map((t) => (t < 2 ? -40 : 0)))).toBeLessThan(0.85);
  });
});
