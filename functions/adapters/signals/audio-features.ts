import type { Span } from '../../domain/engine/signals.js';
import { dropShorterThan, flagsToSpans, mergeSpans } from '../../domain/engine/spans.js';

/**
 * Speech-like and music-like (tonal) activity from a low-rate mono PCM stream that ffmpeg writes
 * next to its filter output. ffmpeg 4.1 has no spectral-statistics filter, so the short-time
 * spectra are computed here: 8 kHz mono keeps this to a 256-point FFT every 32 ms (about 0.4 s
 * of CPU per 10 minutes of audio) and still covers the 300-3400 Hz speech band.
 *
 * What it measures, and its limits (these are heuristics, not recognition). The classes are
 * measured independently and may overlap: music under speech is both.
 * - steady spectrum: per FFT bin, the power of (nearly) the quietest frame of the window (see
 *   steadySpectrum). What holds through the window (a held note, a chord, a drone, hum, steady
 *   noise) stays; speech, bangs and anything else that comes and goes drops out.
 * - speech: over a 2 s window, with the window's steady spectrum taken off every frame, most of
 *   the remaining energy lies in 300-3400 Hz, the band's envelope swings by several dB, and that
 *   swing is mostly at syllable rate (2-8 Hz). Taking the steady part off is what lets speech over
 *   a music bed or noise keep its pauses. Rhythmic content in the same band (percussion or
 *   strummed chords at 2-8 beats/s, a fast-ticking noise) passes that far; what tells it from a
 *   voice is that it repeats regularly (pulseRegularity over 4 s): tremolo, vibrato, pulsing pads,
 *   beats and gated noise do, syllables do not. Speech read to a strict beat (a chant) would be
 *   missed. It does not tell one voice from several.
 * - music (tone): over a 1 s window the steady spectrum is audible (above -50 dBFS) and peaky
 *   (spectral flatness <= 0.1: energy in a few partials). Sound over the top does not change it,
 *   so music is found under speech and bangs. Percussive or broadband music (drums, distorted
 *   guitars) and notes shorter than about a second are not detected; a steady hum or test tone
 *   is; a held sung vowel would be.
 * Boundaries are good to about a bucket (0.5 s) for tone and about a second for speech.
 */
export const PCM_SAMPLE_RATE = 8000;
const FRAME = 256;
const FRAMES_PER_SECOND = PCM_SAMPLE_RATE / FRAME;
const BIN_HZ = PCM_SAMPLE_RATE / FRAME;
const bin = (hz: number) => Math.round(hz / BIN_HZ);
const FULL_BAND = [bin(60), bin(3900)] as const;
const SPEECH_BAND = [bin(300), bin(3400)] as const;
const FLOOR_DB = -120;
const EPS = 1e-12;

/** Decisions are made per 0.5 s bucket; spans are runs of buckets. */
const ACTIVITY_BUCKET_MS = 500;

const activityThresholds = {
  /** Below this mean level (dBFS) a window is treated as quiet: neither speech nor tone. */
  activeDb: -50,
  speechWindowS: 2,
  /** Share of the 60-3900 Hz energy above the steady spectrum that lies in 300-3400 Hz. */
  speechBandShare: 0.5,
  /** Standard deviation of the band envelope (dB, floored 40 dB under its peak). */
  speechEnvelopeDepthDb: 4,
  /**
   * Share of the envelope's modulation energy at 2-8 Hz (of 0.5-15 Hz). Syllables give 0.8-0.95;
   * a steady or stepped envelope (a tone starting, a burst) stays under 0.45.
   */
  syllableRateShare: 0.6,
  /** Window and ceiling of pulseRegularity: above it, the swing is a regular pulse, not syllables. */
  pulseWindowS: 4,
  maxPulseRegularity: 0.85,
  toneWindowS: 1,
  /** Spectral flatness (geometric / arithmetic mean) of the steady spectrum. */
  toneMaxFlatness: 0.1,
  minSpanMs: 1000,
  maxGapMs: 500,
} as const;

/** Per-frame (32 ms) measurements. */
export interface AudioFrames {
  /** Mean power of the frame, dBFS. */
  levelDb: number[];
  /** Power per FFT bin of 60-3900 Hz (FULL_BAND), for what holds steady under other sound. */
  spectrum: Float32Array[];
}

const toDb = (power: number) => Math.max(FLOOR_DB, 10 * Math.log10(power + EPS));
const fromDb = (db: number) => 10 ** (db / 10);

const TWIDDLE_RE = Float64Array.from({ length: FRAME / 2 }, (_, k) => Math.cos((-2 * Math.PI * k) / FRAME));
const TWIDDLE_IM = Float64Array.from({ length: FRAME / 2 }, (_, k) => Math.sin((-2 * Math.PI * k) / FRAME));

function swap(values: Float64Array, i: number, j: number): void {
  const held = values[i] ?? 0;
  values[i] = values[j] ?? 0;
  values[j] = held;
}

/** In-place iterative radix-2 FFT of FRAME points. */
function fft(re: Float64Array, im: Float64Array): void {
  for (let i = 1, j = 0; i < FRAME; i += 1) {
    let bit = FRAME >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      swap(re, i, j);
      swap(im, i, j);
    }
  }
  for (let size = 2; size <= FRAME; size <<= 1) {
    const half = size >> 1;
    const stride = FRAME / size;
    for (let start = 0; start < FRAME; start += size) {
      for (let k = 0; k < half; k += 1) {
        const wr = TWIDDLE_RE[k * stride] ?? 1;
        const wi = TWIDDLE_IM[k * stride] ?? 0;
        const a = start + k;
        const b = a + half;
        const br = re[b] ?? 0;
        const bi = im[b] ?? 0;
        const tr = br * wr - bi * wi;
        const ti = br * wi + bi * wr;
        re[b] = (re[a] ?? 0) - tr;
        im[b] = (im[a] ?? 0) - ti;
        re[a] = (re[a] ?? 0) + tr;
        im[a] = (im[a] ?? 0) + ti;
      }
    }
  }
}

const HANN = Float64Array.from({ length: FRAME }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (FRAME - 1)));

/** Consumes s16le mono PCM as it streams in and keeps only per-frame measurements. */
export class AudioFrameAnalyzer {
  private readonly frame = new Float64Array(FRAME);
  private filled = 0;
  private carry: number | null = null;
  private readonly re = new Float64Array(FRAME);
  private readonly im = new Float64Array(FRAME);
  private readonly frames: AudioFrames = { levelDb: [], spectrum: [] };

  push(chunk: Uint8Array): void {
    let offset = 0;
    if (this.carry !== null && chunk.length > 0) {
      this.addSample(((chunk[0] ?? 0) << 8) | this.carry);
      this.carry = null;
      offset = 1;
    }
    const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    for (; offset + 1 < chunk.length; offset += 2) this.addSample(view.getInt16(offset, true));
    if (offset < chunk.length) this.carry = chunk[offset] ?? 0;
  }

  /** The frames so far (a trailing partial frame is dropped). */
  result(): AudioFrames {
    return this.frames;
  }

  private addSample(raw: number): void {
    // A sample assembled from a carried byte is unsigned 16-bit: fold it back to signed.
    const signed = raw > 0x7fff ? raw - 0x10000 : raw;
    this.frame[this.filled] = signed / 32768;
    this.filled += 1;
    if (this.filled === FRAME) {
      this.measureFrame();
      this.filled = 0;
    }
  }

  private measureFrame(): void {
    let power = 0;
    for (let i = 0; i < FRAME; i += 1) {
      const sample = this.frame[i] ?? 0;
      power += sample * sample;
      this.re[i] = sample * (HANN[i] ?? 0);
      this.im[i] = 0;
    }
    fft(this.re, this.im);
    const spectrum = new Float32Array(FULL_BAND[1] - FULL_BAND[0] + 1);
    for (let k = FULL_BAND[0]; k <= FULL_BAND[1]; k += 1) {
      spectrum[k - FULL_BAND[0]] = (this.re[k] ?? 0) ** 2 + (this.im[k] ?? 0) ** 2;
    }
    this.frames.levelDb.push(toDb(power / FRAME));
    this.frames.spectrum.push(spectrum);
  }
}

const meanDb = (values: readonly number[]) => toDb(values.reduce((sum, db) => sum + fromDb(db), 0) / Math.max(1, values.length));

function deviation(values: readonly number[]): number {
  const mean = values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length);
  return Math.sqrt(values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / Math.max(1, values.length));
}

/** Share of the envelope's modulation power (0.5-15 Hz) that lies at syllable rate (2-8 Hz). */
export function syllableRateShare(envelope: readonly number[], framesPerSecond = FRAMES_PER_SECOND): number {
  const n = envelope.length;
  const mean = envelope.reduce((sum, v) => sum + v, 0) / Math.max(1, n);
  let syllable = 0;
  let total = 0;
  for (let k = 1; k <= n / 2; k += 1) {
    const hz = (k * framesPerSecond) / n;
    if (hz < 0.5 || hz > 15) continue;
    let re = 0;
    let im = 0;
    for (let i = 0; i < n; i += 1) {
      const angle = (-2 * Math.PI * k * i) / n;
      const v = (envelope[i] ?? mean) - mean;
      re += v * Math.cos(angle);
      im += v * Math.sin(angle);
    }
    const power = re * re + im * im;
    total += power;
    if (hz >= 2 && hz <= 8) syllable += power;
  }
  return total > 0 ? syllable / total : 0;
}

const frameRange = (centreS: number, widthS: number, count: number): [number, number] => [
  Math.max(0, Math.round((centreS - widthS / 2) * FRAMES_PER_SECOND)),
  Math.min(count, Math.round((centreS + widthS / 2) * FRAMES_PER_SECOND)),
];

/**
 * Per bin, the power that holds through the window: its `STEADY_RANK` quantile over the
 * window's frames. Sustained notes, chords, drones and hum hold; speech, which moves its
 * harmonics with the pitch and stops between syllables, does not, and neither does anything
 * louder that comes and goes over the top. So music under speech keeps its steady spectrum.
 */
function steadySpectrum(frames: AudioFrames, from: number, to: number): Float64Array {
  const bins = FULL_BAND[1] - FULL_BAND[0] + 1;
  const keep = Math.floor(STEADY_RANK * (to - from)) + 1;
  // Per bin, the `keep` smallest values seen, ascending (keep is 1-2 for 1-2 s windows: no sort).
  // Frame by frame, so each frame's spectrum is read once, in order.
  const smallest = new Float64Array(bins * keep).fill(Infinity);
  for (let i = from; i < to; i += 1) {
    const spectrum = frames.spectrum[i];
    if (!spectrum) continue;
    for (let k = 0; k < bins; k += 1) {
      let value = spectrum[k] ?? 0;
      for (let r = k * keep, end = r + keep; r < end; r += 1) {
        const held = smallest[r] ?? Infinity;
        if (value < held) {
          smallest[r] = value;
          value = held;
        }
      }
    }
  }
  const steady = new Float64Array(bins);
  for (let k = 0; k < bins; k += 1) {
    const value = smallest[k * keep + keep - 1] ?? Infinity;
    steady[k] = Number.isFinite(value) ? value : 0;
  }
  return steady;
}

/**
 * The quietest frame of the window, nearly (3rd percentile: the least of 31 frames in a 1 s
 * window). Measured on espeak-ng speech alone, a 10th percentile still kept -37 dBFS of its
 * voice as "steady", the minimum under -75; a music bed under that speech kept -36 to -41.
 */
const STEADY_RANK = 0.03;
/** Bin power (Hann-windowed, one-sided) summed to the mean power of the samples it came from. */
const binPowerToSignal = (power: number) => (2 * power) / (0.375 * FRAME * FRAME);

/**
 * The 300-3400 Hz envelope (dB per frame, floored 40 dB under its peak so pauses count as
 * "quiet", not as arbitrarily deep dips) of what comes and goes on top of the window's steady
 * spectrum (a music bed, hum, steady noise), and the share of that moving energy in the band. So
 * a bed under speech neither hides its pauses nor adds to its band.
 */
function movingBand(frames: AudioFrames, from: number, to: number): { envelope: number[]; bandShare: number } {
  const steady = steadySpectrum(frames, from, to);
  const band: number[] = [];
  let bandPower = 0;
  let fullPower = 0;
  for (let i = from; i < to; i += 1) {
    const spectrum = frames.spectrum[i];
    let inBand = 0;
    let full = 0;
    for (let k = 0; k < steady.length; k += 1) {
      const rest = Math.max(0, (spectrum?.[k] ?? 0) - (steady[k] ?? 0));
      full += rest;
      const bin = k + FULL_BAND[0];
      if (bin >= SPEECH_BAND[0] && bin <= SPEECH_BAND[1]) inBand += rest;
    }
    band.push(toDb(inBand));
    bandPower += inBand;
    fullPower += full;
  }
  const floor = Math.max(...band) - 40;
  return { envelope: band.map((db) => Math.max(db, floor)), bandShare: bandPower / Math.max(EPS, fullPower) };
}

/**
 * How regularly the envelope repeats: the best correlation of it with itself shifted by 0.125-1 s
 * (a pulse of 1-8 per second). Tremolo, vibrato, pulsing pads, a beat or gated noise repeat at
 * their own rate: 0.88-1 over 4 s on the labelled fixtures; syllables do not: espeak-ng and flite
 * speech stayed under 0.3, the synthetic speech-like fixtures under 0.8.
 */
export function pulseRegularity(envelope: readonly number[], framesPerSecond = FRAMES_PER_SECOND): number {
  // Only the swing: the envelope less its 1 s moving mean, so a step (sound starting after
  // silence) or a slow fade does not count as repeating itself.
  const half = Math.round(framesPerSecond / 2);
  const swing = envelope.map((v, i) => {
    const around = envelope.slice(Math.max(0, i - half), i + half + 1);
    return v - around.reduce((sum, x) => sum + x, 0) / around.length;
  });
  let best = 0;
  for (let lag = Math.round(framesPerSecond / 8); lag <= Math.round(framesPerSecond); lag += 1) {
    const n = swing.length - lag;
    if (n < 2 * lag) break;
    let ab = 0;
    let aa = 0;
    let bb = 0;
    for (let i = 0; i < n; i += 1) {
      const a = swing[i] ?? 0;
      const b = swing[i + lag] ?? 0;
      ab += a * b;
      aa += a * a;
      bb += b * b;
    }
    best = Math.max(best, ab / Math.sqrt(aa * bb + EPS));
  }
  return best;
}

function isSpeechLike(frames: AudioFrames, from: number, to: number, regularFrom: (startFrame: number) => boolean): boolean {
  const t = activityThresholds;
  if (to - from < FRAMES_PER_SECOND) return false;
  if (meanDb(frames.levelDb.slice(from, to)) < t.activeDb) return false;
  const { envelope, bandShare } = movingBand(frames, from, to);
  if (bandShare < t.speechBandShare) return false;
  if (deviation(envelope) < t.speechEnvelopeDepthDb || syllableRateShare(envelope) < t.syllableRateShare) return false;
  // Syllable-rate swing that repeats like clockwork is music or machinery, not a voice: judged
  // over longer windows, where a voice's irregular timing shows. Any such window holding the
  // bucket will do, so a bucket next to the seam of two different pulses (whose windows across
  // the seam are irregular) is still judged by the window on its own side.
  const centre = Math.round((from + to) / 2);
  const wide = Math.round(t.pulseWindowS * FRAMES_PER_SECOND);
  const step = Math.round((ACTIVITY_BUCKET_MS / 1000) * FRAMES_PER_SECOND);
  for (let start = centre - wide + step; start < centre; start += step) if (regularFrom(start)) return false;
  return true;
}

/** Tonal: the steady spectrum (see steadySpectrum) is audible and peaky (energy in a few partials). */
function isTonal(frames: AudioFrames, from: number, to: number): boolean {
  const t = activityThresholds;
  if (to - from < FRAMES_PER_SECOND / 2) return false;
  const steady = steadySpectrum(frames, from, to);
  let sum = 0;
  let logSum = 0;
  for (const power of steady) {
    sum += power;
    logSum += Math.log(power + EPS);
  }
  if (toDb(binPowerToSignal(sum)) < t.activeDb) return false;
  const flatness = Math.exp(logSum / steady.length) / (sum / steady.length + EPS);
  return flatness <= t.toneMaxFlatness;
}

function activitySpans(frames: AudioFrames, decide: (from: number, to: number) => boolean, widthS: number): Span[] {
  const count = frames.levelDb.length;
  const buckets = Math.ceil(count / FRAMES_PER_SECOND / (ACTIVITY_BUCKET_MS / 1000));
  const flags = Array.from({ length: buckets }, (_, b) => decide(...frameRange((b + 0.5) * (ACTIVITY_BUCKET_MS / 1000), widthS, count)));
  const spans = mergeSpans(flagsToSpans(flags, ACTIVITY_BUCKET_MS), activityThresholds.maxGapMs);
  return dropShorterThan(spans, activityThresholds.minSpanMs);
}

/** Music-like (sustained tonal) spans, ms from the start of the PCM stream. */
export function toneSpans(frames: AudioFrames): Span[] {
  return activitySpans(frames, (from, to) => isTonal(frames, from, to), activityThresholds.toneWindowS);
}

/**
 * Speech-like spans, ms from the start of the PCM stream. Independent of the tone spans: speech
 * over a music bed is both.
 */
export function speechSpans(frames: AudioFrames): Span[] {
  const t = activityThresholds;
  const wide = Math.round(t.pulseWindowS * FRAMES_PER_SECOND);
  // Neighbouring buckets share their long windows: each is measured once.
  const regular = new Map<number, boolean>();
  const regularFrom = (start: number) => {
    const from = Math.max(0, start);
    const to = Math.min(frames.levelDb.length, start + wide);
    // A window the source's edge cuts short by more than a quarter says nothing.
    if (to - from < 0.75 * wide) return false;
    let known = regular.get(from);
    if (known === undefined) {
      known = pulseRegularity(movingBand(frames, from, to).envelope) >= t.maxPulseRegularity;
      regular.set(from, known);
    }
    return known;
  };
  return activitySpans(frames, (from, to) => isSpeechLike(frames, from, to, regularFrom), t.speechWindowS);
}
