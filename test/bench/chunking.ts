import { call, prepareRun, round, runToCompletion, stopwatch } from './client.js';
import { benchHost } from './host.js';
import { LONG_SOURCE_SECONDS, longRunSource } from './media.js';

export interface ChunkingFigure {
  variant: string;
  chunkSeconds: number;
  sourceSeconds: number;
  chunks: number;
  runSeconds: number;
  xRealtime: number;
}

export interface ChunkingBenchResult {
  /** Wall time of making the 30-minute source (near 0 when it was cached by an earlier run). */
  sourceGenerationSeconds: number;
  figures: ChunkingFigure[];
  /** One-chunk run time / chunked run time. */
  speedUp: number;
}

/** One find_moments run over the source on a host of its own with this CHUNK_SECONDS. */
async function timeVariant(file: string, variant: string, chunkSeconds: number): Promise<ChunkingFigure> {
  const host = await benchHost({ env: { CHUNK_SECONDS: String(chunkSeconds) } });
  try {
    const run = await runToCompletion(host, await prepareRun(host, file));
    const progress = await call<{ chunks_total: number }>(host, 'GET', `/v1/analyses/${run.analysisId}/progress`);
    return {
      variant,
      chunkSeconds,
      sourceSeconds: LONG_SOURCE_SECONDS,
      chunks: progress.chunks_total,
      runSeconds: round(run.seconds),
      xRealtime: round(LONG_SOURCE_SECONDS / run.seconds),
    };
  } finally {
    await host.stop();
  }
}

/**
 * Issue #8 (runs at scale): one 30-minute run with chunking on (3 chunks of 600 s extracted in
 * parallel, by child processes under the default SIGNALS_RUNNER=auto) and off (one chunk, in
 * the host's process), on this machine. Only as parallel as its cores allow.
 */
export async function benchChunking(): Promise<ChunkingBenchResult> {
  const { result: file, ms: generationMs } = await stopwatch(longRunSource);
  const chunked = await timeVariant(file, 'chunking on', 600);
  const oneChunk = await timeVariant(file, 'chunking off', 3_600);
  return {
    sourceGenerationSeconds: round(generationMs / 1000),
    figures: [chunked, oneChunk],
    speedUp: round(oneChunk.runSeconds / chunked.runSeconds),
  };
}
