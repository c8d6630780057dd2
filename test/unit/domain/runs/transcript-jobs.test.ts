/**
 * Speech from a transcription job (Amazon Transcribe): the signals step stores its signals and
 * stages the chunk's audio without waiting; AwaitTranscript, polled by the state machine between
 * Wait states, merges the transcript once the job is done. Nothing done is ever thrown away.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SourceSignals, TranscriptionJobs, TranscriptSegment } from '../../../../functions/domain/engine/signals.js';
import { awaitChunkTranscript, TRANSCRIPT_WAIT_LIMIT_MS, TranscriptionNotReady } from '../../../../functions/domain/runs/steps/await-transcript.js';
import { extractChunkSignals } from '../../../../functions/domain/runs/steps/extract-chunk-signals.js';
import type { PipelineDeps } from '../../../../functions/domain/runs/steps/deps.js';
import { audioSignals } from '../../adapters/engines/fixtures.js';

const ref = { accountId: 'acct_1', runId: 'run_1', analysisId: 'ana_1' };
const chunk = { index: 0, startMs: 0, endMs: 60_000 };
const SIGNALS_KEY = 'artifacts/acct_1/ana_1/chunks/0/signals.json';
const run = { objectKey: 'accounts/acct_1/uploads/upl_1', mediaKind: 'audio', sourceDurationMs: 60_000, window: null };
const segment: TranscriptSegment = {
  startMs: 42_000,
  endMs: 44_000,
  text: 'Liftoff.',
  speaker: 'spk_0',
  words: [{ startMs: 42_000, endMs: 44_000, text: 'Liftoff' }],
};

/** The steps' deps with in-memory artifacts, the measured signals of audioSignals(), and a job whose answers the test sets. */
function pipelineWith(options: { audio?: boolean } = {}) {
  const artifacts = new Map<string, string>();
  const stageAudio = vi.fn<TranscriptionJobs['stageAudio']>(() => Promise.resolve(options.audio ?? true));
  const transcript = vi.fn<TranscriptionJobs['transcript']>(() => Promise.resolve(null));
  const deps = {
    runs: { getRun: () => Promise.resolve(run) },
    signSourceUrl: () => Promise.resolve('https://signed.example/source'),
    extractor: { extract: () => Promise.resolve({ signals: audioSignals(), stills: [] }) },
    transcriber: { stageAudio, transcript },
    artifacts: {
      putJson: (key: string, value: unknown) => Promise.resolve(void artifacts.set(key, JSON.stringify(value))),
      getJson: (key: string) => Promise.resolve(JSON.parse(artifacts.get(key)!) as unknown),
    },
  } as unknown as PipelineDeps;
  const stored = () => JSON.parse(artifacts.get(SIGNALS_KEY)!) as SourceSignals;
  return { deps, stageAudio, transcript, stored };
}

afterEach(() => vi.useRealTimers());

describe('extractChunkSignals with a transcription job', () => {
  it('stores the signals at once and stages the chunk’s audio; it never waits for, nor starts, the job', async () => {
    const { deps, stageAudio, transcript, stored } = pipelineWith();

    await extractChunkSignals(deps, ref, chunk);

    expect(stageAudio).toHaveBeenCalledWith({ url: 'https://signed.example/source', objectKey: run.objectKey, window: { startMs: 0, endMs: 60_000 } });
    expect(transcript).not.toHaveBeenCalled();
    expect(stored()).toEqual(audioSignals(null));
  });

  it('a window without audio has no speech: an empty transcript, and AwaitTranscript is ready without asking the job', async () => {
    const { deps, transcript, stored } = pipelineWith({ audio: false });

    await extractChunkSignals(deps, ref, chunk);

    expect(stored().transcript).toEqual([]);
    expect(await awaitChunkTranscript(deps, ref, chunk, undefined)).toMatchObject({ ready: true });
    expect(transcript).not.toHaveBeenCalled();
  });
});

describe('awaitChunkTranscript', () => {
  it('answers not ready while the job runs, keeping the first poll’s time; once done, merges the transcript into the stored signals', async () => {
    const { deps, transcript, stored } = pipelineWith();
    await extractChunkSignals(deps, ref, chunk);

    const first = await awaitChunkTranscript(deps, ref, chunk, undefined);
    expect(first.ready).toBe(false);
    expect(Date.now() - Date.parse(first.waitingSince)).toBeLessThan(60_000);
    expect(await awaitChunkTranscript(deps, ref, chunk, first.waitingSince)).toEqual(first);
    expect(stored().transcript).toBeNull();

    transcript.mockResolvedValue([segment]);
    expect(await awaitChunkTranscript(deps, ref, chunk, first.waitingSince)).toEqual({ ready: true, waitingSince: first.waitingSince });
    // Speech is where the transcriber heard words; the measured signals are otherwise as extracted.
    expect(stored()).toEqual({ ...audioSignals([segment]), audio: { ...audioSignals().audio!, speech: [{ startMs: 42_000, endMs: 44_000 }] } });
    expect(transcript).toHaveBeenCalledWith({ objectKey: run.objectKey, window: { startMs: 0, endMs: 60_000 } });
  });

  it('a retry after the merge finds the merged signals and asks the job nothing', async () => {
    const { deps, transcript, stored } = pipelineWith();
    await extractChunkSignals(deps, ref, chunk);
    transcript.mockResolvedValue([segment]);
    await awaitChunkTranscript(deps, ref, chunk, undefined);
    const merged = stored();

    expect(await awaitChunkTranscript(deps, ref, chunk, undefined)).toMatchObject({ ready: true });
    expect(transcript).toHaveBeenCalledTimes(1);
    expect(stored()).toEqual(merged);
  });

  it('gives up (TranscriptionNotReady, which fails and refunds the run) once the job has kept it waiting past the limit', async () => {
    const { deps } = pipelineWith();
    await extractChunkSignals(deps, ref, chunk);
    vi.useFakeTimers({ now: Date.parse('2026-11-28T12:00:00Z') });
    const since = new Date(Date.now() - TRANSCRIPT_WAIT_LIMIT_MS + 60_000).toISOString();

    await expect(awaitChunkTranscript(deps, ref, chunk, since)).resolves.toEqual({ ready: false, waitingSince: since });
    vi.advanceTimersByTime(2 * 60_000);
    await expect(awaitChunkTranscript(deps, ref, chunk, since)).rejects.toThrow(TranscriptionNotReady);
  });
});
