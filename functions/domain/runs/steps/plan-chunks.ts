import { transcribesByJob, type Span } from '../../engine/signals.js';
import { nowIso } from '../../clock.js';
import { analysedRange, type Chunk } from '../model.js';
import type { AnalysisRef } from '../ports.js';
import { getRun } from '../queries.js';
import type { PipelineDeps, SignalsRunner, SignalsRunnerSetting } from './deps.js';

/** A chunk as PlanChunks hands it to the state machine, which routes its extraction by `runner`. */
interface PlannedChunk extends Chunk {
  runner: SignalsRunner;
  /**
   * `job`: the signals step stages the chunk's audio and the state machine then waits for its
   * transcription job (AwaitTranscript between Wait states); `step`: any transcript came with the signals.
   */
  transcription: 'job' | 'step';
}

/**
 * A remainder shorter than this share of a chunk joins the chunk before it: a 30-minute file a
 * few frames long must not cost a fourth extraction (a container task on AWS) for 25 ms.
 */
const TAIL_SHARE = 0.1;

/** Splits the analysed range into chunks of chunkMs; the last one takes the rest, up to 1.1 x chunkMs. */
export function chunksOf(range: Span, chunkMs: number): Chunk[] {
  const chunks: Chunk[] = [];
  for (let startMs = range.startMs, index = 0; startMs < range.endMs; startMs += chunkMs, index++) {
    const tail = range.endMs - (startMs + chunkMs);
    const endMs = tail > 0 && tail < chunkMs * TAIL_SHARE ? range.endMs : Math.min(range.endMs, startMs + chunkMs);
    chunks.push({ index, startMs, endMs });
    if (endMs === range.endMs) break;
  }
  return chunks;
}

/**
 * `auto`: a source long enough to be chunked is extracted in containers, which have no function
 * time limit; a single chunk stays on the function, which starts far sooner than a container task.
 */
export function signalsRunnerFor(setting: SignalsRunnerSetting, chunkCount: number): SignalsRunner {
  if (setting !== 'auto') return setting;
  return chunkCount > 1 ? 'container' : 'lambda';
}

/** One runner per run: every chunk of it is extracted the same way. */
export async function planChunks(deps: PipelineDeps, ref: AnalysisRef): Promise<{ chunks: PlannedChunk[] }> {
  const run = await getRun(deps.runs, ref.accountId, ref.runId);
  const chunks = chunksOf(analysedRange(run), deps.chunkMs);
  const runner = signalsRunnerFor(deps.signalsRunner, chunks.length);
  const transcription = transcribesByJob(deps.transcriber) ? 'job' : 'step';
  await deps.runs.recordChunkPlan(ref, chunks.length, nowIso());
  return { chunks: chunks.map((chunk) => ({ ...chunk, runner, transcription })) };
}
