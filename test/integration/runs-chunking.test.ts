/**
 * A source longer than one analysis chunk, end to end through the local host (DESIGN §7, issue
 * "Runs at scale"): 25 minutes are analysed as three chunks of CHUNK_SECONDS (600 s, the
 * default) in parallel and merged into one result. A loud burst straddling the 600 s boundary
 * comes out as one moment covering both sides; ranks and max_observations apply to the merged
 * result; GET /v1/analyses/{id}/progress counts the chunks and never goes back.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import type { Span } from '../../functions/domain/engine/signals.js';
import { clientFor, createAccount, createScanner, type Client } from '../helpers/api.js';
import {
  generated,
  isTerminal,
  momentsOf,
  observationsOf,
  sleep,
  startRun,
  uploadFile,
  waitForCompleted,
  type MomentList,
  type Observation,
  type Run,
  type RunStatus,
} from '../helpers/runs.js';

const SOURCE_SECONDS = 1500;
const CHUNK_BOUNDARY_MS = 600_000;
/** 1 kHz bursts over the bed: strong ones (about 34 LU above it) and weak ones (about 17 LU). */
const STRADDLING: Span = { startMs: 598_000, endMs: 602_000 };
const strongBursts: Span[] = [STRADDLING, { startMs: 1_300_000, endMs: 1_302_000 }];
const weakBursts: Span[] = [
  { startMs: 300_000, endMs: 302_000 },
  { startMs: 1_400_000, endMs: 1_402_000 },
];
/** Fewer than the four bursts, so the cap bites on the merged result. */
const MAX_OBSERVATIONS = 3;
/** How far a reported time may be from the ground truth (loudness is measured in 0.5 s buckets). */
const TOLERANCE_MS = 600;

/**
 * 25 minutes of a still grey 64x36 picture at 1 fps (H.264 ultrafast) over a quiet 440 Hz bed
 * (-38 dBFS: sound, not silence) with the bursts above. PCM audio in QuickTime: nothing to
 * encode, so the file is made in well under a second.
 */
const burstsVideo = (): Promise<string> => {
  const during = (spans: Span[]) => spans.map((s) => `between(t,${s.startMs / 1000},${s.endMs / 1000})`).join('+');
  // sine's amplitude is 1/8; 100 ms audio frames put the burst edges on their times.
  const sine = (hz: number) => `sine=f=${hz}:r=8000:d=${SOURCE_SECONDS}:samples_per_frame=800`;
  const audio = [
    `${sine(440)},volume=0.1[bed]`,
    `${sine(1000)},volume='5*(${during(strongBursts)})+0.7*(${during(weakBursts)})':eval=frame[bursts]`,
    // amix halves each input.
    '[bed][bursts]amix=inputs=2,volume=2[audio]',
  ].join(';');
  return generated(`bursts-${SOURCE_SECONDS}s.mov`, (path) => [
    ...['-f', 'lavfi', '-i', `color=c=gray:s=64x36:r=1:d=${SOURCE_SECONDS}`],
    ...['-filter_complex', audio, '-map', '0:v', '-map', '[audio]'],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'pcm_s16le', '-f', 'mov', path],
  ]);
};

/** GET /v1/analyses/{analysis_id}/progress. */
interface AnalysisProgress {
  object: 'analysis_progress';
  analysis_id: string;
  run_id: string;
  status: RunStatus;
  queue_position: number | null;
  chunks_total: number | null;
  chunks_done: number;
  fraction: number;
}

/** Every progress reading from submission until the run ends, in order. */
async function watchProgress(client: Client, analysisId: string, timeoutMs = 80_000): Promise<AnalysisProgress[]> {
  const deadline = Date.now() + timeoutMs;
  const readings: AnalysisProgress[] = [];
  for (;;) {
    const response = await client.get<AnalysisProgress>(`/v1/analyses/${analysisId}/progress`);
    expect(response.status, response.text).toBe(200);
    readings.push(response.body);
    if (isTerminal(response.body.status)) return readings;
    if (Date.now() > deadline) throw new Error(`analysis ${analysisId} still ${response.body.status} after ${timeoutMs} ms`);
    await sleep(100);
  }
}

const nonDecreasing = (values: number[]) => values.every((v, i) => i === 0 || v >= values[i - 1]!);
const near = (actual: number, expected: number) => Math.abs(actual - expected) <= TOLERANCE_MS;
const isAt = (o: Observation, burst: Span) => near(o.evidence.start_ms, burst.startMs) && near(o.evidence.end_ms, burst.endMs);

let run: Run;
let observations: Observation[];
let moments: MomentList;
let progress: AnalysisProgress[];

beforeAll(async () => {
  const [account, path] = await Promise.all([createAccount({ plan: 'creator', credits: 100 }), burstsVideo()]);
  const client = clientFor(account.apiKey);
  const upload = await uploadFile(client, path, 'video/quicktime');
  expect(upload.duration_ms).toBe(SOURCE_SECONDS * 1000);
  const scanner = await createScanner(client, {
    name: 'bursts',
    type: 'find_moments',
    instructions: 'Find the loud bursts.',
    // No min_seconds: moments as long as the bursts, so each side of the straddling one would
    // be a moment of its own (not an overlap the contract drops) were they not joined.
    max_seconds: 30,
    max_observations: MAX_OBSERVATIONS,
  });
  const accepted = await startRun(client, scanner.scanner_id, { upload_id: upload.upload_id });
  progress = await watchProgress(client, accepted.analysis_id);
  run = await waitForCompleted(client, accepted.run_id);
  [observations, moments] = await Promise.all([observationsOf(client, run.run_id), momentsOf(client, run.analysis_id)]);
});

describe('a 25-minute source in three chunks', () => {
  test('the burst across the 600 s boundary is one moment covering both sides', () => {
    const atBurst = observations.filter((o) => o.evidence.start_ms < STRADDLING.endMs && o.evidence.end_ms > STRADDLING.startMs);
    expect(atBurst, JSON.stringify(observations.map((o) => o.evidence))).toHaveLength(1);
    const [moment] = atBurst;
    expect(isAt(moment!, STRADDLING), JSON.stringify(moment!.evidence)).toBe(true);
    expect(moment!.evidence.start_ms).toBeLessThan(CHUNK_BOUNDARY_MS - 1_000);
    expect(moment!.evidence.end_ms).toBeGreaterThan(CHUNK_BOUNDARY_MS + 1_000);
    expect(moment!.evidence.signals).toContain('loudness');
    expect(moment!.value).toMatchObject({ event_type: 'loud' });
  });

  test('max_observations caps the merged result, ranked by relevance: both strong bursts, then a weak one', () => {
    expect(run.observation_count).toBe(MAX_OBSERVATIONS);
    expect(observations).toHaveLength(MAX_OBSERVATIONS);
    const scores = observations.map((o) => o.relevance_score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    const [first, second, third] = observations;
    for (const burst of strongBursts)
      expect(
        [first, second].some((o) => isAt(o!, burst)),
        `strong burst at ${burst.startMs} ms`,
      ).toBe(true);
    expect(
      weakBursts.some((burst) => isAt(third!, burst)),
      JSON.stringify(third!.evidence),
    ).toBe(true);
    expect(third!.relevance_score).toBeLessThan(second!.relevance_score);
  });

  test('the moments are the observations, in rank order', () => {
    expect(moments.count).toBe(MAX_OBSERVATIONS);
    expect(moments.moments.map((m) => m.id)).toEqual(observations.map((o) => (o.value as { moment_id: string }).moment_id));
    expect(moments.moments.map((m) => [m.start_ms, m.end_ms, m.score])).toEqual(
      observations.map((o) => [o.evidence.start_ms, o.evidence.end_ms, o.relevance_score]),
    );
  });

  test('progress counts three chunks, never goes back, and ends complete', () => {
    for (const reading of progress) {
      expect(reading).toMatchObject({ object: 'analysis_progress', analysis_id: run.analysis_id, run_id: run.run_id });
      expect(reading.fraction).toBeGreaterThanOrEqual(0);
      expect(reading.fraction).toBeLessThanOrEqual(1);
      if (reading.chunks_total !== null) expect(reading.chunks_done).toBeLessThanOrEqual(reading.chunks_total);
    }
    expect(nonDecreasing(progress.map((r) => r.chunks_done)), JSON.stringify(progress)).toBe(true);
    expect(nonDecreasing(progress.map((r) => r.fraction)), JSON.stringify(progress)).toBe(true);
    // It moved while the run was watched, rather than jumping from nothing to done.
    expect(new Set(progress.map((r) => r.chunks_done)).size).toBeGreaterThan(1);
    expect(progress.at(-1)).toMatchObject({ status: 'completed', chunks_total: 3, chunks_done: 3, fraction: 1 });
  });
});
