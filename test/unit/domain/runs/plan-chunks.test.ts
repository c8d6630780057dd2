import { describe, expect, it, vi } from 'vitest';
import { chunksOf, planChunks, signalsRunnerFor } from '../../../../functions/domain/runs/steps/plan-chunks.js';
import type { PipelineDeps, SignalsRunnerSetting } from '../../../../functions/domain/runs/steps/deps.js';
import type { RunRecord } from '../../../../functions/domain/runs/model.js';
import type { Speech } from '../../../../functions/domain/engine/signals.js';
import { noTranscriber } from '../../../../functions/adapters/signals/no-transcriber.js';

const ref = { accountId: 'acct_1', runId: 'run_1', analysisId: 'ana_1' };

/** Just what PlanChunks reads: the run's analysed range, and where it records the plan. */
function depsFor(run: Pick<RunRecord, 'sourceDurationMs' | 'window'>, signalsRunner: SignalsRunnerSetting, transcriber: Speech = noTranscriber) {
  const recordChunkPlan = vi.fn(() => Promise.resolve());
  const deps = { runs: { getRun: () => Promise.resolve(run), recordChunkPlan }, chunkMs: 600_000, signalsRunner, transcriber } as unknown as PipelineDeps;
  return { deps, recordChunkPlan };
}

describe('signalsRunnerFor', () => {
  it.each([
    ['auto', 1, 'lambda'],
    ['auto', 2, 'container'],
    ['lambda', 5, 'lambda'],
    ['container', 1, 'container'],
  ] as const)('%s with %i chunk(s) runs on %s', (setting, chunks, runner) => {
    expect(signalsRunnerFor(setting, chunks)).toBe(runner);
  });
});

describe('chunksOf', () => {
  it('folds a remainder under a tenth of a chunk into the chunk before it, so no chunk is a sliver', () => {
    expect(chunksOf({ startMs: 0, endMs: 1_800_025 }, 600_000).map((c) => [c.startMs, c.endMs])).toEqual([
      [0, 600_000],
      [600_000, 1_200_000],
      [1_200_000, 1_800_025],
    ]);
    expect(chunksOf({ startMs: 0, endMs: 1_300_000 }, 600_000).map((c) => c.endMs)).toEqual([600_000, 1_200_000, 1_300_000]);
    expect(chunksOf({ startMs: 0, endMs: 30_000 }, 600_000)).toEqual([{ index: 0, startMs: 0, endMs: 30_000 }]);
  });
});

describe('planChunks', () => {
  it('auto: a source longer than one chunk puts every chunk on the container runner', async () => {
    const { deps, recordChunkPlan } = depsFor({ sourceDurationMs: 1_500_000, window: null }, 'auto');
    expect(await planChunks(deps, ref)).toEqual({
      chunks: [
        { index: 0, startMs: 0, endMs: 600_000, runner: 'container', transcription: 'step' },
        { index: 1, startMs: 600_000, endMs: 1_200_000, runner: 'container', transcription: 'step' },
        { index: 2, startMs: 1_200_000, endMs: 1_500_000, runner: 'container', transcription: 'step' },
      ],
    });
    expect(recordChunkPlan).toHaveBeenCalledWith(ref, 3, expect.any(String));
  });

  it('auto: a source of exactly one chunk stays on the function', async () => {
    const { deps } = depsFor({ sourceDurationMs: 600_000, window: null }, 'auto');
    expect(await planChunks(deps, ref)).toEqual({ chunks: [{ index: 0, startMs: 0, endMs: 600_000, runner: 'lambda', transcription: 'step' }] });
  });

  it('auto: decides on the analysed window, not the whole source', async () => {
    const { deps } = depsFor({ sourceDurationMs: 3_600_000, window: { startMs: 60_000, endMs: 300_000 } }, 'auto');
    expect(await planChunks(deps, ref)).toEqual({ chunks: [{ index: 0, startMs: 60_000, endMs: 300_000, runner: 'lambda', transcription: 'step' }] });
  });

  it.each(['lambda', 'container'] as const)('%s: every chunk of every source runs there', async (setting) => {
    for (const sourceDurationMs of [30_000, 1_500_000]) {
      const { chunks } = await planChunks(depsFor({ sourceDurationMs, window: null }, setting).deps, ref);
      expect(new Set(chunks.map((c) => c.runner))).toEqual(new Set([setting]));
    }
  });

  it('plans a wait for each chunk’s transcription job when speech comes from jobs (Amazon Transcribe)', async () => {
    const jobs: Speech = { stageAudio: () => Promise.resolve(true), transcript: () => Promise.resolve(null) };
    const { chunks } = await planChunks(depsFor({ sourceDurationMs: 1_500_000, window: null }, 'auto', jobs).deps, ref);
    expect(chunks.map((c) => c.transcription)).toEqual(['job', 'job', 'job']);
  });
});
