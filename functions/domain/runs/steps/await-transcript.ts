import { transcribesByJob, type SourceSignals } from '../../engine/signals.js';
import { withTranscript } from '../../engine/transcript-speech.js';
import { nowIso } from '../../clock.js';
import type { Chunk } from '../model.js';
import type { AnalysisRef } from '../ports.js';
import { getRun } from '../queries.js';
import { signalsKeyOf } from './artifacts.js';
import type { PipelineDeps } from './deps.js';

/**
 * The transcription job of a chunk is still not done this long after the workflow began waiting
 * for it (the run then fails and is refunded, as when the job fails): more than any run may take
 * to leave Transcribe's queue and finish, so only a stuck job or a quota that never frees reaches it.
 */
export const TRANSCRIPT_WAIT_LIMIT_MS = 4 * 60 * 60 * 1000;

/** The chunk's transcription job outlasted TRANSCRIPT_WAIT_LIMIT_MS. */
export class TranscriptionNotReady extends Error {
  override readonly name = 'TranscriptionNotReady';
}

/**
 * One poll of a chunk's transcription job (the AwaitTranscript state, between Wait states): once
 * the job is done its transcript is merged into the chunk's signals, where AnalyzeChunk reads
 * them. `waitingSince` is what the previous poll answered; signals that already have a
 * transcript (merged by an earlier attempt, or a window without audio) are ready as they are.
 */
export async function awaitChunkTranscript(
  deps: PipelineDeps,
  ref: AnalysisRef,
  chunk: Chunk,
  waitingSince: string | undefined,
): Promise<{ ready: boolean; waitingSince: string }> {
  const speech = deps.transcriber;
  if (!transcribesByJob(speech)) throw new Error('AwaitTranscript runs only for chunks planned with transcription jobs');
  const since = waitingSince ?? nowIso();
  const signalsKey = signalsKeyOf(ref, chunk);
  const signals = await deps.artifacts.getJson<SourceSignals>(signalsKey);
  if (signals.transcript) return { ready: true, waitingSince: since };
  const run = await getRun(deps.runs, ref.accountId, ref.runId);
  const transcript = await speech.transcript({ objectKey: run.objectKey, window: { startMs: chunk.startMs, endMs: chunk.endMs } });
  if (transcript) {
    await deps.artifacts.putJson(signalsKey, withTranscript(signals, transcript));
    return { ready: true, waitingSince: since };
  }
  if (Date.now() - Date.parse(since) > TRANSCRIPT_WAIT_LIMIT_MS) {
    throw new TranscriptionNotReady(
      `The transcription job of chunk ${chunk.index} of run ${ref.runId} is not done after ${TRANSCRIPT_WAIT_LIMIT_MS / 60_000} minutes`,
    );
  }
  return { ready: false, waitingSince: since };
}
