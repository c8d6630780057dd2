import { beforeAll, describe, expect, it } from 'vitest';
import { testLocalAnalyzer as localAnalyzer, testMeaning } from '../../../helpers/local-analyzer.js';
import { enforceContract } from '../../../../functions/domain/engine/contract.js';
import type { SourceSignals } from '../../../../functions/domain/engine/signals.js';
import type { ScannerDefinition } from '../../../../functions/domain/scanners/model.js';

// The NLP model loads once per file: seconds on a loaded machine, more than a test's own timeout.
beforeAll(() => testMeaning(), 120_000);

/** 30 s of video: cuts at 10 s and 20 s, black 12-14 s, a loud burst 15-16 s, silence 25-28 s. */
const video: SourceSignals = {
  mediaKind: 'video',
  durationMs: 30_000,
  window: { startMs: 0, endMs: 30_000 },
  video: {
    width: 320,
    height: 180,
    frameRate: 25,
    sceneCuts: [
      { atMs: 10_000, score: 0.9 },
      { atMs: 20_000, score: 0.8 },
    ],
    motion: [],
    black: [{ startMs: 12_000, endMs: 14_000 }],
    frozen: [],
    dominantColor: '#336699',
    visual: null,
  },
  audio: {
    loudness: [
      { atMs: 5_000, lufs: -30 },
      { atMs: 15_500, lufs: -8 },
    ],
    integratedLufs: -24,
    loudPeaks: [{ startMs: 15_000, endMs: 16_000, level: 1 }],
    silence: [{ startMs: 25_000, endMs: 28_000 }],
    speech: [],
    music: [{ startMs: 0, endMs: 25_000 }],
  },
  transcript: null,
};
const audioOnly: SourceSignals = { ...video, mediaKind: 'audio', video: null };

const scanner = (type: ScannerDefinition['type'], instructions: string, extra: Partial<ScannerDefinition> = {}): ScannerDefinition => ({
  name: 't',
  type,
  instructions,
  ...extra,
});

async function observe(def: ScannerDefinition, signals: SourceSignals) {
  const result = await localAnalyzer.analyze({ scanner: def, signals });
  const source = { startMs: 0, endMs: signals.durationMs };
  return enforceContract(result, { scanner: def, mediaKind: signals.mediaKind, source, window: signals.window, maxObservations: 50, hasTranscript: false });
}

describe('local analyzer', () => {
  it("ends a chunk's last scene at the chunk's end, not at the end of the source", async () => {
    // The first of two 30 s chunks of a 60 s source: its last cut opens a scene the next chunk closes.
    const firstChunk: SourceSignals = { ...video, durationMs: 60_000, window: { startMs: 0, endMs: 30_000 } };
    const result = await localAnalyzer.analyze({ scanner: scanner('find_moments', 'Find the scene changes'), signals: firstChunk });
    expect(result.status).toBe('answered');
    const ends = result.status === 'answered' ? result.findings.map((f) => (f as { end_ms: number }).end_ms) : [];
    expect(ends).toEqual([20_000, 30_000]);
  });

  it('finds moments that start at the true cuts', async () => {
    const out = await observe(scanner('find_moments', 'Find the scene changes', { min_seconds: 5, max_seconds: 8 }), video);
    expect(out.map((o) => o.evidence.start_ms).sort((a, b) => a - b)).toEqual([10_000, 20_000]);
    expect(out.every((o) => o.evidence.duration_ms === 8_000)).toBe(true);
    expect(out[0]!.evidence.signals).toEqual(['scene_cuts']);
  });

  it('answers a monitor with the matching span, and one false observation when nothing matches', async () => {
    const loud = await observe(scanner('monitor', 'Is there a loud burst?'), video);
    expect(loud).toHaveLength(1);
    expect(loud[0]).toMatchObject({ value: true, evidence: { start_ms: 15_000, end_ms: 16_000 } });

    const calm = await observe(scanner('monitor', 'Is there any frozen picture?'), video);
    expect(calm).toHaveLength(1);
    expect(calm[0]).toMatchObject({ value: false, evidence: { start_ms: 0, end_ms: 30_000 } });
  });

  it('gives zero observations for instructions outside its vocabulary, never a guess', async () => {
    expect(await observe(scanner('monitor', 'Is there a cat?'), video)).toEqual([]);
    expect(await observe(scanner('find_moments', 'Find the funniest jokes'), video)).toEqual([]);
    // A visual concept in an audio-only source cannot be grounded either.
    expect(await observe(scanner('monitor', 'Any black frames?'), audioOnly)).toEqual([]);
  });

  it('classifies by the best-present label, else other', async () => {
    const labels = { output: { labels: ['music', 'speech'] } };
    expect((await observe(scanner('classifier', 'What is it?', labels), video))[0]?.value).toBe('music');
    const absent = { output: { labels: ['speech', 'frozen picture'] } };
    expect((await observe(scanner('classifier', 'What is it?', absent), video))[0]?.value).toBe('other');
  });

  it('scores by the share of the recording a concept covers', async () => {
    const [o] = await observe(scanner('scorer', 'How much silence is there?'), video);
    expect(o?.value).toBeCloseTo(0.1, 5);
  });

  it('extracts only what it can measure and leaves the rest null', async () => {
    const [o] = await observe(
      scanner('extractor', 'Measure it', { output: { fields: ['scene_count', 'loudest_moment_ms', 'dominant_color', 'speaker_names'] } }),
      video,
    );
    expect(o?.value).toEqual({ scene_count: 3, loudest_moment_ms: 15_500, dominant_color: '#336699', speaker_names: null });
  });

  it('summarises what it measured', async () => {
    const [o] = await observe(scanner('summarizer', 'Summarise'), video);
    expect(o?.value).toMatch(/2 scene cut\(s\) at 10\.0 s, 20\.0 s/);
    expect(o?.value).toMatch(/loudest moment at 15\.5 s/);
    expect(o?.evidence).toMatchObject({ start_ms: 0, end_ms: 30_000 });
  });
});

describe('local analyzer, a monitor with nothing to report', () => {
  it('cites the signals it consulted in its single false observation', async () => {
    const [o] = await observe(scanner('monitor', 'Is the picture frozen?'), video);
    expect(o).toMatchObject({ value: false, summary: 'No frozen was measured in the recording.', evidence: { signals: ['frozen'] } });
  });
});
