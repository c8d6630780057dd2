/**
 * Scanner runs through the local host's HTTP API (SPEC Run, Observation, result semantics 1-4,
 * Moment; DESIGN §7; docs/local-analyzer.md), on generated media whose content is known
 * (test/helpers/ground-truth-media.ts): all six scanner types on a video and an audio upload,
 * find_moments windows, the upload and scanner gates of run submission, and version pinning.
 * Billing, failure refunds, idempotency and reads before completion: runs-billing.test.ts.
 */
import { beforeAll, describe, expect, inject, test } from 'vitest';
import { clientFor, createAccount, createScanner, expectError, type Client, type MetadataValue, type Scanner, type ScannerType } from '../helpers/api.js';
import { groundTruthAudio, groundTruthVideo, type GroundTruthMedia } from '../helpers/ground-truth-media.js';
import { fixture } from '../helpers/media-fixtures.js';
import {
  analysisIdPattern,
  createPendingUpload,
  momentIdPattern,
  momentsOf,
  observationIdPattern,
  observationsOf,
  putBytes,
  runIdPattern,
  startRun,
  submitRun,
  toneWav,
  typeTable,
  uploadFile,
  waitForCompleted,
  type Observation,
  type Run,
  type Upload,
} from '../helpers/runs.js';

/** How far a reported time may be from the ground truth. */
const TOLERANCE_MS = 500;

let client: Client;
/** The seeded default account of the shared host: "another account" for ownership checks. */
let stranger: Client;
let video: GroundTruthMedia;
let audio: GroundTruthMedia;
let videoUpload: Upload;
let audioUpload: Upload;
/** 3 s of a steady tone: measurable silence is absent. */
let toneUpload: Upload;
/** 11 minutes of a steady tone: longer than one analysis chunk (10 min, DESIGN §7). */
let longToneUpload: Upload;
const LONG_TONE_SECONDS = 660;

beforeAll(async () => {
  const [account, v, a, tone, longTone] = await Promise.all([
    createAccount({ plan: 'creator', credits: 1000 }),
    groundTruthVideo(),
    groundTruthAudio(),
    toneWav(3),
    toneWav(LONG_TONE_SECONDS),
  ]);
  client = clientFor(account.apiKey);
  stranger = clientFor(inject('apiKey'));
  video = v;
  audio = a;
  [videoUpload, audioUpload, toneUpload, longToneUpload] = await Promise.all([
    uploadFile(client, v.path),
    uploadFile(client, a.path),
    uploadFile(client, tone),
    uploadFile(client, longTone),
  ]);
  expect(videoUpload.media_kind).toBe('video');
  expect(audioUpload.media_kind).toBe('audio');
  expect(toneUpload.media_kind).toBe('audio');
});

const near = (actual: number, expected: number, tolerance = TOLERANCE_MS) => Math.abs(actual - expected) <= tolerance;

/** Every SPEC Run field of an accepted or polled run. */
function expectRunShape(run: Run, scanner: Scanner, upload: Upload): void {
  expect(run.run_id).toMatch(runIdPattern);
  expect(run.analysis_id).toMatch(analysisIdPattern);
  expect(run.source_kind).toBe('upload');
  expect(run.media_kind).toBe(upload.media_kind);
  expect(run.scanner_id).toBe(scanner.scanner_id);
  expect(run.scanner_version).toBe(scanner.version);
  expect(['queued', 'dispatched', 'processing', 'completed', 'failed']).toContain(run.status);
}

/**
 * What every observation of a completed run must be (SPEC Observation table, the type table,
 * evidence kinds), and that the list is ranked by relevance_score.
 */
function expectObservations(observations: Observation[], run: Run, type: ScannerType, metadata: Record<string, MetadataValue>): void {
  expect(run.status).toBe('completed');
  expect(run.observation_count).toBe(observations.length);
  const durationMs = run.source.duration_ms;
  for (const o of observations) {
    const context = JSON.stringify(o);
    for (const field of [
      'observation_id',
      'scanner_id',
      'scanner_version',
      'run_id',
      'type',
      'value_type',
      'semantics',
      'value',
      'title',
      'summary',
      'relevance_score',
      'evidence',
      'source_metadata',
    ]) {
      expect(o, `${field} missing in ${context}`).toHaveProperty(field);
    }
    expect(o.observation_id).toMatch(observationIdPattern);
    expect(o.scanner_id).toBe(run.scanner_id);
    expect(o.scanner_version).toBe(run.scanner_version);
    expect(o.run_id).toBe(run.run_id);
    expect(o.type).toBe(type);
    expect({ value_type: o.value_type, semantics: o.semantics }).toEqual(typeTable[type]);
    const jsType = o.value_type === 'object' ? 'object' : o.value_type;
    expect(typeof o.value, context).toBe(jsType);
    expect(o.value, context).not.toBeNull();
    expect(o.title, context).toBeTypeOf('string');
    expect(o.title.length, context).toBeGreaterThan(0);
    expect(o.summary, context).toBeTypeOf('string');
    expect(Number.isFinite(o.relevance_score), context).toBe(true);
    expect(o.relevance_score).toBeGreaterThanOrEqual(0);
    expect(o.relevance_score).toBeLessThanOrEqual(1);

    const e = o.evidence;
    expect(Object.keys(e).sort()).toEqual(['duration_ms', 'end_ms', 'evidence_kind', 'media_kind', 'signals', 'speaker', 'start_ms', 'transcript_excerpt']);
    expect(e.media_kind).toBe(run.media_kind);
    if (run.media_kind === 'video') expect(e.evidence_kind).toBe('visual');
    else expect(['transcript', 'audio', 'audio_and_transcript']).toContain(e.evidence_kind);
    for (const ms of [e.start_ms, e.end_ms, e.duration_ms]) expect(Number.isInteger(ms), context).toBe(true);
    expect(e.start_ms).toBeGreaterThanOrEqual(0);
    expect(e.end_ms).toBeGreaterThan(e.start_ms);
    expect(e.end_ms).toBeLessThanOrEqual(durationMs);
    expect(e.duration_ms).toBe(e.end_ms - e.start_ms);
    expect(e.transcript_excerpt === null || typeof e.transcript_excerpt === 'string').toBe(true);
    expect(e.speaker === null || typeof e.speaker === 'string').toBe(true);
    expect(Array.isArray(e.signals)).toBe(true);
    for (const signal of e.signals) expect(signal).toBeTypeOf('string');
    expect(o.source_metadata).toEqual(metadata);
  }
  // Ranked by relevance_score, best first.
  const scores = observations.map((o) => o.relevance_score);
  expect(scores).toEqual([...scores].sort((a, b) => b - a));
}

interface Outcome {
  scanner: Scanner;
  run: Run;
  observations: Observation[];
  metadata: Record<string, MetadataValue>;
}

/** Creates a scanner, runs it on an upload with fresh metadata, checks the shapes, returns the result. */
async function scan(body: Record<string, unknown> & { type: ScannerType }, upload: Upload, extra: { start?: number; end?: number } = {}): Promise<Outcome> {
  const scanner = await createScanner(client, { name: `${body.type} on ${upload.media_kind}`, ...body });
  const metadata: Record<string, MetadataValue> = { customer: 'acme', episode: 42, reviewed: false, note: null, scanner: body.type };
  const accepted = await startRun(client, scanner.scanner_id, {
    upload_id: upload.upload_id,
    metadata,
    ...(extra.start !== undefined ? { analysis_start_seconds: extra.start } : {}),
    ...(extra.end !== undefined ? { analysis_end_seconds: extra.end } : {}),
  });
  expectRunShape(accepted, scanner, upload);
  expect(['queued', 'dispatched', 'processing']).toContain(accepted.status);
  const run = await waitForCompleted(client, accepted.run_id);
  expectRunShape(run, scanner, upload);
  expect(run.run_id).toBe(accepted.run_id);
  expect(run.analysis_id).toBe(accepted.analysis_id);
  expect(run.metadata).toEqual(metadata);
  const observations = await observationsOf(client, run.run_id);
  expectObservations(observations, run, body.type, metadata);
  return { scanner, run, observations, metadata };
}

/** The observation range is the whole source, [0, duration]. */
function expectFullRange(o: Observation, run: Run, media: GroundTruthMedia): void {
  expect(o.evidence.start_ms).toBe(0);
  expect(o.evidence.end_ms).toBe(run.source.duration_ms);
  expect(near(run.source.duration_ms, media.durationMs, 100)).toBe(true);
}

const overlaps = (o: Observation, span: { startMs: number; endMs: number }) => o.evidence.start_ms < span.endMs && o.evidence.end_ms > span.startMs;

describe.concurrent('all six scanner types on a video upload (ground truth: cuts at 10, 12, 14, 20 s; burst 15-16 s; black 12-14 s; no speech)', () => {
  test('find_moments "Find the scene changes": moments start at the true cuts, carry a Moment ID, and the moments endpoint lists them ranked', async () => {
    const { run, observations } = await scan({ type: 'find_moments', instructions: 'Find the scene changes', min_seconds: 5, max_seconds: 10 }, videoUpload);
    const cuts = video.video?.cutsMs ?? [];
    expect(observations.length).toBeGreaterThanOrEqual(2);
    const found = new Set<number>();
    for (const o of observations) {
      const value = o.value as { moment_id: string; event_type: string };
      expect(Object.keys(value).sort()).toEqual(['event_type', 'moment_id']);
      expect(value.moment_id).toMatch(momentIdPattern);
      // SPEC rule 4: an observation ID is not a Moment ID.
      expect(value.moment_id).not.toBe(o.observation_id);
      expect(value.event_type).toBeTypeOf('string');
      expect(value.event_type.length).toBeGreaterThan(0);
      const cut = cuts.find((c) => near(o.evidence.start_ms, c));
      expect(cut, `moment at ${o.evidence.start_ms} ms is not at a cut (${cuts.join(', ')})`).toBeDefined();
      if (cut !== undefined) found.add(cut);
      // Sized to the scanner's min_seconds / max_seconds.
      expect(o.evidence.duration_ms).toBeGreaterThanOrEqual(5_000);
      expect(o.evidence.duration_ms).toBeLessThanOrEqual(10_000);
      expect(o.evidence.signals).toContain('scene_cuts');
    }
    expect(found.size).toBe(observations.length); // one moment per cut, no duplicates
    expect(found.size).toBeGreaterThanOrEqual(2);

    const list = await momentsOf(client, run.analysis_id);
    expect(list.analysis_id).toBe(run.analysis_id);
    expect(list.count).toBe(list.moments.length);
    expect(list.count).toBe(observations.length);
    const scores = list.moments.map((m) => m.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    for (const moment of list.moments) {
      expect(moment.id).toMatch(momentIdPattern);
      const observation = observations.find((o) => (o.value as { moment_id: string }).moment_id === moment.id);
      expect(observation, `moment ${moment.id} has no observation`).toBeDefined();
      if (!observation) continue;
      expect({ start_ms: moment.start_ms, end_ms: moment.end_ms, duration_ms: moment.duration_ms }).toEqual({
        start_ms: observation.evidence.start_ms,
        end_ms: observation.evidence.end_ms,
        duration_ms: observation.evidence.duration_ms,
      });
      expect(moment.event_type).toBe((observation.value as { event_type: string }).event_type);
      expect(moment.title).toBeTypeOf('string');
      expect(moment.score).toBeTypeOf('number');
      expect(moment.transcript_excerpt).toBeTypeOf('string');
      expect(moment.edit.mode).toBe('continuous');
      expect(moment.edit.subclips.length).toBeGreaterThan(0);
      for (const clip of moment.edit.subclips) {
        expect(clip.start_ms).toBeGreaterThanOrEqual(moment.start_ms);
        expect(clip.end_ms).toBeLessThanOrEqual(moment.end_ms);
        expect(clip.end_ms).toBeGreaterThan(clip.start_ms);
      }
    }
  });

  test('find_moments with max_observations 2: at most two moments, the best ranked, and the moments endpoint agrees', async () => {
    const { run, observations } = await scan(
      { type: 'find_moments', instructions: 'Find the scene changes', min_seconds: 5, max_seconds: 5, max_observations: 2 },
      videoUpload,
    );
    expect(observations).toHaveLength(2);
    const list = await momentsOf(client, run.analysis_id);
    expect(list.count).toBe(2);
    expect(list.moments.map((m) => m.id)).toEqual(observations.map((o) => (o.value as { moment_id: string }).moment_id));
  });

  test('monitor "Is there a loud burst?": true observations at the true burst, and nowhere else', async () => {
    const { observations } = await scan({ type: 'monitor', instructions: 'Is there a loud burst?' }, videoUpload);
    const bursts = video.audio?.loudBursts ?? [];
    expect(observations.length).toBeGreaterThan(0);
    for (const o of observations) {
      expect(o.value).toBe(true);
      expect(
        bursts.some((b) => overlaps(o, b)),
        `true observation ${o.evidence.start_ms}-${o.evidence.end_ms} ms is not at a burst`,
      ).toBe(true);
      expect(o.evidence.signals).toContain('loudness');
    }
    for (const burst of bursts) {
      expect(
        observations.some((o) => near(o.evidence.start_ms, burst.startMs) && near(o.evidence.end_ms, burst.endMs)),
        `burst at ${burst.startMs} ms not reported`,
      ).toBe(true);
    }
  });

  test('monitor on a measurable but absent concept ("Is anyone talking?"): exactly one false observation over the full source', async () => {
    expect(video.audio?.speech).toEqual([]);
    const { run, observations } = await scan({ type: 'monitor', instructions: 'Is anyone talking?' }, videoUpload);
    expect(observations).toHaveLength(1);
    const [o] = observations;
    if (!o) return;
    expect(o.value).toBe(false);
    expectFullRange(o, run, video);
  });

  test('monitor outside the vocabulary ("Is there a cat?"): completed with zero observations, never false', async () => {
    const { run, observations } = await scan({ type: 'monitor', instructions: 'Is there a cat?' }, videoUpload);
    expect(run.status).toBe('completed');
    expect(run.observation_count).toBe(0);
    expect(observations).toEqual([]);
  });

  test('classifier: the configured label whose concept covers most of the recording', async () => {
    const labels = ['black screen', 'scene cuts', 'frozen picture'];
    const { observations } = await scan({ type: 'classifier', instructions: 'What kind of picture is it?', output: { labels } }, videoUpload);
    expect(observations).toHaveLength(1);
    // Scenes opened by cuts cover 10-30 s; black and frozen 2 s each.
    expect(observations[0]?.value).toBe('scene cuts');
  });

  test('classifier: `other` when no configured label is observed', async () => {
    const { observations } = await scan(
      { type: 'classifier', instructions: 'Who is on screen?', output: { labels: ['people talking', 'dialogue'] } },
      videoUpload,
    );
    expect(observations).toHaveLength(1);
    expect(observations[0]?.value).toBe('other');
  });

  test('scorer: a number in [0, 1], the share of the recording that is black (2 of 30 s)', async () => {
    const { observations } = await scan({ type: 'scorer', instructions: 'How much of it is a black screen?' }, videoUpload);
    expect(observations).toHaveLength(1);
    const [o] = observations;
    if (!o) return;
    const value = o.value as number;
    expect(value).toBeGreaterThanOrEqual(0);
    expect(value).toBeLessThanOrEqual(1);
    const black = (video.video?.black ?? []).reduce((sum, s) => sum + s.endMs - s.startMs, 0) / video.durationMs;
    expect(Math.abs(value - black)).toBeLessThanOrEqual(0.02);
    expect(o.relevance_score).toBeCloseTo(value, 6);
  });

  test('summarizer: one string observation over the full recording, stating what was measured', async () => {
    const { run, observations } = await scan({ type: 'summarizer', instructions: 'Summarize the video.' }, videoUpload);
    expect(observations).toHaveLength(1);
    const [o] = observations;
    if (!o) return;
    expect(o.value).toBeTypeOf('string');
    expect((o.value as string).length).toBeGreaterThan(0);
    expect(o.value).toMatch(/320x180/);
    expect(o.value).toMatch(new RegExp(`\\b${video.video?.cutsMs.length ?? -1} scene cut`));
    expectFullRange(o, run, video);
  });

  test('extractor: exactly the requested fields; measured ones right, unmeasurable ones null', async () => {
    const fields = ['duration_seconds', 'scene_count', 'speaker_names'];
    const { run, observations } = await scan({ type: 'extractor', instructions: 'Describe the file.', output: { fields } }, videoUpload);
    expect(observations).toHaveLength(1);
    const value = observations[0]?.value as Record<string, unknown>;
    expect(Object.keys(value).sort()).toEqual([...fields].sort());
    expect(Math.abs((value.duration_seconds as number) - video.durationMs / 1000)).toBeLessThanOrEqual(0.1);
    expect(value.scene_count).toBe((video.video?.cutsMs.length ?? 0) + 1);
    expect(value.speaker_names).toBeNull();
    expect(run.observation_count).toBe(1);
  });
});

describe.concurrent('all six scanner types on an audio upload (ground truth: silence 6-9 s, burst 10-11 s, speech 14-22 s)', () => {
  test('find_moments "Find the loud bursts": a timestamped moment at the burst, with no Moment ID and no renderable Moment', async () => {
    const { run, observations } = await scan({ type: 'find_moments', instructions: 'Find the loud bursts', min_seconds: 5, max_seconds: 10 }, audioUpload);
    const bursts = audio.audio?.loudBursts ?? [];
    expect(observations).toHaveLength(bursts.length);
    for (const o of observations) {
      const value = o.value as Record<string, unknown>;
      expect(value).not.toHaveProperty('moment_id');
      expect(Object.keys(value)).toEqual(['event_type']);
      expect(value.event_type).toBeTypeOf('string');
      expect(bursts.some((b) => near(o.evidence.start_ms, b.startMs))).toBe(true);
      expect(o.evidence.duration_ms).toBeGreaterThanOrEqual(5_000);
      expect(o.evidence.duration_ms).toBeLessThanOrEqual(10_000);
    }
    // Audio results are JSON only: nothing to render.
    const list = await momentsOf(client, run.analysis_id);
    expect(list).toMatchObject({ analysis_id: run.analysis_id, count: 0, moments: [] });
  });

  test('find_moments with a video-only concept on audio ("Find the scene changes"): zero observations', async () => {
    const { observations } = await scan({ type: 'find_moments', instructions: 'Find the scene changes', min_seconds: 5, max_seconds: 10 }, audioUpload);
    expect(observations).toEqual([]);
  });

  test('monitor "Is there a loud burst?": true observations at the true burst, and nowhere else', async () => {
    const { observations } = await scan({ type: 'monitor', instructions: 'Is there a loud burst?' }, audioUpload);
    const bursts = audio.audio?.loudBursts ?? [];
    expect(observations.length).toBeGreaterThan(0);
    for (const o of observations) {
      expect(o.value).toBe(true);
      expect(bursts.some((b) => overlaps(o, b))).toBe(true);
      expect(o.evidence.signals).toContain('loudness');
    }
    for (const burst of bursts) {
      expect(observations.some((o) => near(o.evidence.start_ms, burst.startMs) && near(o.evidence.end_ms, burst.endMs))).toBe(true);
    }
  });

  test('monitor on a measurable but absent concept (silence in a steady tone): exactly one false observation over the full source', async () => {
    const { run, observations } = await scan({ type: 'monitor', instructions: 'Is there any silence?' }, toneUpload);
    expect(observations).toHaveLength(1);
    const [o] = observations;
    if (!o) return;
    expect(o.value).toBe(false);
    expect(o.evidence.start_ms).toBe(0);
    expect(o.evidence.end_ms).toBe(run.source.duration_ms);
    expect(Math.abs(run.source.duration_ms - 3_000)).toBeLessThanOrEqual(100);
  });

  test('monitor outside the vocabulary ("Is there a cat?"), and a video-only concept ("black screen"): zero observations, never false', async () => {
    for (const instructions of ['Is there a cat?', 'Is there a black screen?']) {
      const { run, observations } = await scan({ type: 'monitor', instructions }, audioUpload);
      expect(run.observation_count).toBe(0);
      expect(observations).toEqual([]);
    }
  });

  test('classifier: the configured label observed most', async () => {
    const labels = ['people talking', 'dead air'];
    const { observations } = await scan({ type: 'classifier', instructions: 'What is this recording mostly?', output: { labels } }, audioUpload);
    expect(observations).toHaveLength(1);
    // Speech 14-22 s (8 s) against silence 6-9 s (3 s).
    expect(observations[0]?.value).toBe('people talking');
  });

  test('scorer: a number in [0, 1], the share that is silence (3 of 24 s)', async () => {
    const { observations } = await scan({ type: 'scorer', instructions: 'How much of it is silence?' }, audioUpload);
    expect(observations).toHaveLength(1);
    const [o] = observations;
    if (!o) return;
    const value = o.value as number;
    expect(value).toBeGreaterThanOrEqual(0);
    expect(value).toBeLessThanOrEqual(1);
    const silence = (audio.audio?.silence ?? []).reduce((sum, s) => sum + s.endMs - s.startMs, 0) / audio.durationMs;
    expect(Math.abs(value - silence)).toBeLessThanOrEqual(0.02);
  });

  test('summarizer: one string observation over the full recording', async () => {
    const { run, observations } = await scan({ type: 'summarizer', instructions: 'Summarize the recording.' }, audioUpload);
    expect(observations).toHaveLength(1);
    const [o] = observations;
    if (!o) return;
    expect((o.value as string).length).toBeGreaterThan(0);
    expect(o.value).toMatch(/audio/);
    expectFullRange(o, run, audio);
  });

  test('extractor: exactly the requested fields; scene_count and speaker_names are null on audio', async () => {
    const fields = ['duration_seconds', 'scene_count', 'speaker_names'];
    const { observations } = await scan({ type: 'extractor', instructions: 'Describe the file.', output: { fields } }, audioUpload);
    expect(observations).toHaveLength(1);
    const value = observations[0]?.value as Record<string, unknown>;
    expect(Object.keys(value).sort()).toEqual([...fields].sort());
    expect(Math.abs((value.duration_seconds as number) - audio.durationMs / 1000)).toBeLessThanOrEqual(0.1);
    expect(value.scene_count).toBeNull();
    expect(value.speaker_names).toBeNull();
  });
});

describe.concurrent('whole-source answers on a source longer than one analysis chunk (11 min of steady tone; chunks are 10 min)', () => {
  test('extractor: ONE observation whose duration_seconds is the whole source (660 s), not one per chunk', async () => {
    const fields = ['duration_seconds', 'music_share'];
    const { run, observations } = await scan({ type: 'extractor', instructions: 'Describe the file.', output: { fields } }, longToneUpload);
    expect(run.billing).toEqual({ credits: 11, state: 'charged' });
    expect(observations.map((o) => o.value)).toEqual([{ duration_seconds: LONG_TONE_SECONDS, music_share: expect.closeTo(1, 1) as unknown }]);
  }, 90_000);

  test('scorer: ONE score for the whole source, not one per chunk', async () => {
    const { observations } = await scan({ type: 'scorer', instructions: 'How much music is there?' }, longToneUpload);
    expect(observations).toHaveLength(1);
    expect(observations[0]?.value).toBeCloseTo(1, 1);
  }, 90_000);

  test('classifier: ONE label for the whole source, not one per chunk', async () => {
    const { observations } = await scan({ type: 'classifier', instructions: 'What is it?', output: { labels: ['music', 'silence'] } }, longToneUpload);
    expect(observations.map((o) => o.value)).toEqual(['music']);
  }, 90_000);

  test('summarizer: one summary, and it describes the whole 660 s, not the first chunk', async () => {
    const { observations } = await scan({ type: 'summarizer', instructions: 'Summarize the recording.' }, longToneUpload);
    expect(observations).toHaveLength(1);
    expect(observations[0]?.value).toMatch(/\b660(\.0)? s of audio/);
  }, 90_000);

  test('monitor on an absent concept: still exactly one false observation over the full 660 s', async () => {
    const { run, observations } = await scan({ type: 'monitor', instructions: 'Is there any silence?' }, longToneUpload);
    expect(observations).toHaveLength(1);
    expect(observations[0]?.value).toBe(false);
    expect(observations[0]?.evidence).toMatchObject({ start_ms: 0, end_ms: run.source.duration_ms });
    expect(run.source.duration_ms).toBe(LONG_TONE_SECONDS * 1000);
  }, 90_000);
});

describe.concurrent('find_moments window (analysis_start_seconds / analysis_end_seconds)', () => {
  test('a window on a video find_moments run: moments only inside it, at the cuts inside it', async () => {
    const { run, observations } = await scan({ type: 'find_moments', instructions: 'Find the scene changes', min_seconds: 5, max_seconds: 10 }, videoUpload, {
      start: 11,
      end: 25,
    });
    expect(run.window).toEqual({ analysis_start_seconds: 11, analysis_end_seconds: 25 });
    const inside = (video.video?.cutsMs ?? []).filter((c) => c >= 11_000 && c < 25_000);
    expect(observations.length).toBeGreaterThan(0);
    for (const o of observations) {
      expect(o.evidence.start_ms).toBeGreaterThanOrEqual(11_000);
      expect(o.evidence.end_ms).toBeLessThanOrEqual(25_000);
      expect(
        inside.some((c) => near(o.evidence.start_ms, c)),
        `moment at ${o.evidence.start_ms} ms`,
      ).toBe(true);
    }
    const list = await momentsOf(client, run.analysis_id);
    expect(list.count).toBe(observations.length);
    for (const m of list.moments) {
      expect(m.start_ms).toBeGreaterThanOrEqual(11_000);
      expect(m.end_ms).toBeLessThanOrEqual(25_000);
    }
  });

  test('both or neither: one bound alone is 400 validation_failed', async () => {
    const scanner = await createScanner(client, { name: 'window', type: 'find_moments', instructions: 'Find the scene changes' });
    const path = scanner.scanner_id;
    expectError(
      await submitRun(client, path, { upload_id: videoUpload.upload_id, analysis_start_seconds: 5 }),
      400,
      'validation_failed',
      'analysis_end_seconds',
    );
    expectError(
      await submitRun(client, path, { upload_id: videoUpload.upload_id, analysis_end_seconds: 5 }),
      400,
      'validation_failed',
      'analysis_start_seconds',
    );
  });

  test('a window on an audio run, or on a video run of another type, is 400 window_not_supported', async () => {
    const moments = await createScanner(client, { name: 'window audio', type: 'find_moments', instructions: 'Find the loud bursts' });
    expectError(
      await submitRun(client, moments.scanner_id, { upload_id: audioUpload.upload_id, analysis_start_seconds: 1, analysis_end_seconds: 5 }),
      400,
      'window_not_supported',
    );
    for (const type of ['monitor', 'classifier', 'scorer', 'summarizer', 'extractor'] as const) {
      const body: Record<string, unknown> = { name: `window ${type}`, type, instructions: 'Is there a loud burst?' };
      if (type === 'classifier') body.output = { labels: ['loud', 'quiet'] };
      if (type === 'extractor') body.output = { fields: ['duration_seconds'] };
      const scanner = await createScanner(client, body);
      expectError(
        await submitRun(client, scanner.scanner_id, { upload_id: videoUpload.upload_id, analysis_start_seconds: 1, analysis_end_seconds: 5 }),
        400,
        'window_not_supported',
      );
    }
  });

  test('an end past the upload, start >= end, or a negative start is 400 validation_failed; [0, duration] is allowed', async () => {
    const scanner = await createScanner(client, { name: 'window bounds', type: 'find_moments', instructions: 'Find the scene changes' });
    const end = (videoUpload.duration_ms ?? 0) / 1000 + 1;
    const cases: [number, number][] = [
      [0, end],
      [10, 10],
      [12, 11],
      [-1, 5],
    ];
    for (const [start, stop] of cases) {
      const response = await submitRun(client, scanner.scanner_id, {
        upload_id: videoUpload.upload_id,
        analysis_start_seconds: start,
        analysis_end_seconds: stop,
      });
      expectError(response, 400, 'validation_failed');
    }
    // The bounds themselves are allowed: [0, duration], fractional seconds kept as sent.
    const whole = (videoUpload.duration_ms ?? 0) / 1000;
    for (const [start, stop] of [
      [0, whole],
      [0.25, 6.5],
    ] as const) {
      const accepted = await startRun(client, scanner.scanner_id, {
        upload_id: videoUpload.upload_id,
        analysis_start_seconds: start,
        analysis_end_seconds: stop,
      });
      expect(accepted.window).toEqual({ analysis_start_seconds: start, analysis_end_seconds: stop });
      await waitForCompleted(client, accepted.run_id);
    }
  });
});

describe.concurrent('what a run may analyse', () => {
  let scanner: Scanner;
  beforeAll(async () => {
    scanner = await createScanner(client, { name: 'gate', type: 'monitor', instructions: 'Is there a loud burst?' });
  });

  test('an unknown upload_id is 400 upload_not_found', async () => {
    expectError(await submitRun(client, scanner.scanner_id, { upload_id: `upl_${'0'.repeat(32)}` }), 400, 'upload_not_found', 'upload_id');
    expectError(await submitRun(client, scanner.scanner_id, { upload_id: 'not-an-upload' }), 400, 'upload_not_found', 'upload_id');
  });

  test("another account's ready upload is 400 upload_not_found", async () => {
    const theirs = await uploadFile(stranger, await fixture('audio.wav'));
    expectError(await submitRun(client, scanner.scanner_id, { upload_id: theirs.upload_id }), 400, 'upload_not_found', 'upload_id');
  });

  test('a pending upload (created, even with its bytes sent, but not completed) is 400 upload_not_ready; a failed one too', async () => {
    const pending = await createPendingUpload(client, await fixture('audio.wav'));
    expectError(await submitRun(client, scanner.scanner_id, { upload_id: pending.upload_id }), 400, 'upload_not_ready', 'upload_id');
    const failing = await createPendingUpload(client, await fixture('random.bin'), 'audio/mpeg');
    await putBytes(failing, await fixture('random.bin'));
    const completed = await client.post<Upload>(`/v1/uploads/${failing.upload_id}/complete`);
    expect(completed.status).toBeLessThan(500);
    const read = await client.get<Upload>(`/v1/uploads/${failing.upload_id}`);
    expect(read.body.status).toBe('failed');
    expectError(await submitRun(client, scanner.scanner_id, { upload_id: failing.upload_id }), 400, 'upload_not_ready', 'upload_id');
  });

  test("an unknown scanner and another account's scanner are both 404 not_found", async () => {
    expectError(await submitRun(client, `scn_${'0'.repeat(32)}`, { upload_id: audioUpload.upload_id }), 404, 'not_found');
    const theirs = await createScanner(stranger, { name: 'theirs', type: 'monitor', instructions: 'Is there a loud burst?' });
    expectError(await submitRun(client, theirs.scanner_id, { upload_id: audioUpload.upload_id }), 404, 'not_found');
  });

  test("another account's run, its observations and its moments are 404; unknown ones too", async () => {
    const run = await startRun(client, scanner.scanner_id, { upload_id: audioUpload.upload_id });
    await waitForCompleted(client, run.run_id);
    // Without metadata, the observations' source_metadata is an empty object.
    const observations = await observationsOf(client, run.run_id);
    expect(observations.length).toBeGreaterThan(0);
    for (const o of observations) expect(o.source_metadata).toEqual({});
    expectError(await stranger.get(`/v1/runs/${run.run_id}`), 404, 'not_found');
    expectError(await stranger.get(`/v1/runs/${run.run_id}/observations`), 404, 'not_found');
    expectError(await stranger.get(`/v1/analyses/${run.analysis_id}/moments`), 404, 'not_found');
    expectError(await client.get(`/v1/runs/run_${'0'.repeat(32)}`), 404, 'not_found');
    expectError(await client.get(`/v1/runs/run_${'0'.repeat(32)}/observations`), 404, 'not_found');
    expectError(await client.get(`/v1/analyses/ana_${'0'.repeat(32)}/moments`), 404, 'not_found');
  });

  test('unknown body fields and a bad metadata value are 400 validation_failed', async () => {
    expectError(
      await client.post(`/v1/scanners/${scanner.scanner_id}/runs`, { upload_id: audioUpload.upload_id, source_url: 'https://example.com/a.mp4' }),
      400,
      'validation_failed',
    );
    expectError(
      await client.post(`/v1/scanners/${scanner.scanner_id}/runs`, { upload_id: audioUpload.upload_id, metadata: { nested: { a: 1 } } }),
      400,
      'validation_failed',
    );
    expectError(await client.post(`/v1/scanners/${scanner.scanner_id}/runs`, {}), 400, 'validation_failed', 'upload_id');
  });
});

describe.concurrent('the run record', () => {
  test('202 at submission and GET when completed: identity, source, billing, provenance, and created_at <= started_at <= completed_at', async () => {
    const scanner = await createScanner(client, { name: 'record', type: 'monitor', instructions: 'Is there a loud burst?' });
    const response = await submitRun(client, scanner.scanner_id, { upload_id: audioUpload.upload_id, metadata: { ref: 'r-1' } });
    expect(response.status, response.text).toBe(202);
    const accepted = response.body;
    expectRunShape(accepted, scanner, audioUpload);
    expect(accepted).toMatchObject({
      status: 'queued',
      upload_id: audioUpload.upload_id,
      window: null,
      metadata: { ref: 'r-1' },
      error: null,
      observation_count: null,
      completed_at: null,
      billing: { credits: 1, state: 'reserved' },
    });

    const run = await waitForCompleted(client, accepted.run_id);
    expect(run).toMatchObject({
      object: 'run',
      run_id: accepted.run_id,
      analysis_id: accepted.analysis_id,
      source_kind: 'upload',
      media_kind: 'audio',
      upload_id: audioUpload.upload_id,
      source: { kind: 'upload', upload_id: audioUpload.upload_id, media_kind: 'audio', duration_ms: audioUpload.duration_ms },
      window: null,
      metadata: { ref: 'r-1' },
      billing: { credits: 1, state: 'charged' },
      error: null,
      provenance: {
        scanner: { scanner_id: scanner.scanner_id, version: 1, definition: { name: 'record', type: 'monitor', instructions: 'Is there a loud burst?' } },
      },
    });
    expect(run.observation_count).toBe((await observationsOf(client, run.run_id)).length);
    const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
    for (const field of ['created_at', 'updated_at', 'started_at', 'completed_at'] as const)
      expect(String(run[field]), `${field} of ${JSON.stringify(run)}`).toMatch(iso);
    const [created, started, completed] = [run.created_at, run.started_at, run.completed_at].map((t) => Date.parse(t ?? ''));
    expect(started).toBeGreaterThanOrEqual(created ?? Infinity);
    expect(completed).toBeGreaterThanOrEqual(started ?? Infinity);
  });
});

describe('version pinning', () => {
  test('each run keeps the version and definition current at its submission, even when the scanner changes while it runs', async () => {
    const v1 = { name: 'pinned', type: 'monitor', instructions: 'Is there a loud burst?' } as const;
    const scanner = await createScanner(client, v1);
    expect(scanner.version).toBe(1);
    const first = await startRun(client, scanner.scanner_id, { upload_id: audioUpload.upload_id, metadata: { pass: 1 } });
    expect(first.scanner_version).toBe(1);

    // Changed while the first run may still be in flight.
    const patched = await client.patch<Scanner>(`/v1/scanners/${scanner.scanner_id}`, { instructions: 'Is there any silence?' });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.version).toBe(2);

    const second = await startRun(client, scanner.scanner_id, { upload_id: audioUpload.upload_id, metadata: { pass: 2 } });
    expect(second.scanner_version).toBe(2);

    const [run1, run2] = await Promise.all([waitForCompleted(client, first.run_id), waitForCompleted(client, second.run_id)]);
    expect(run1.scanner_version).toBe(1);
    expect(run1.provenance.scanner).toMatchObject({ scanner_id: scanner.scanner_id, version: 1, definition: { ...v1 } });
    expect(run2.scanner_version).toBe(2);
    expect(run2.provenance.scanner).toMatchObject({ scanner_id: scanner.scanner_id, version: 2, definition: { ...v1, instructions: 'Is there any silence?' } });

    // Each run answered its own version's question.
    const [obs1, obs2] = await Promise.all([observationsOf(client, run1.run_id), observationsOf(client, run2.run_id)]);
    expectObservations(obs1, run1, 'monitor', { pass: 1 });
    expectObservations(obs2, run2, 'monitor', { pass: 2 });
    expect(obs1.length).toBeGreaterThan(0);
    expect(obs2.length).toBeGreaterThan(0);
    for (const o of obs1) {
      expect(o.scanner_version).toBe(1);
      expect(o.value).toBe(true);
      expect(o.evidence.signals).toContain('loudness');
      expect((audio.audio?.loudBursts ?? []).some((b) => overlaps(o, b))).toBe(true);
    }
    for (const o of obs2) {
      expect(o.scanner_version).toBe(2);
      expect(o.value).toBe(true);
      expect(o.evidence.signals).toContain('silence');
      expect((audio.audio?.silence ?? []).some((s) => near(o.evidence.start_ms, s.startMs) && near(o.evidence.end_ms, s.endMs))).toBe(true);
    }

    // A third version later does not rewrite the first run's provenance.
    const again = await client.patch<Scanner>(`/v1/scanners/${scanner.scanner_id}`, { instructions: 'Is there music?' });
    expect(again.status).toBe(200);
    const reread = await client.get<Run>(`/v1/runs/${run1.run_id}`);
    expect(reread.body.scanner_version).toBe(1);
    expect(reread.body.provenance.scanner.definition).toMatchObject({ instructions: v1.instructions });
    expect((await observationsOf(client, run1.run_id)).map((o) => o.scanner_version)).toEqual(obs1.map(() => 1));
  });
});
