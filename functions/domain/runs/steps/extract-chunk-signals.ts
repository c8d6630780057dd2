import { transcribesByJob } from '../../engine/signals.js';
import { withTranscript } from '../../engine/transcript-speech.js';
import type { Chunk } from '../model.js';
import type { AnalysisRef } from '../ports.js';
import { getRun } from '../queries.js';
import { signalsKeyOf } from './artifacts.js';
import type { PipelineDeps } from './deps.js';

/** The one implementation of signal extraction, whichever runner runs it. */
export async function extractChunkSignals(deps: PipelineDeps, ref: AnalysisRef, chunk: Chunk): Promise<{ signalsKey: string }> {
  const run = await getRun(deps.runs, ref.accountId, ref.runId);
  const url = await deps.signSourceUrl(run.objectKey);
  const window = { startMs: chunk.startMs, endMs: chunk.endMs };
  const speech = deps.transcriber;
  const input = { url, objectKey: run.objectKey, window };
  const [{ signals }, transcript] = await Promise.all([
    deps.extractor.extract({ url, mediaKind: run.mediaKind, durationMs: run.sourceDurationMs, window }),
    // A job's transcript is merged by AwaitTranscript; a window without audio has no speech to wait for.
    transcribesByJob(speech) ? speech.stageAudio(input).then((staged) => (staged ? null : [])) : speech.transcribe(input),
  ]);
  const signalsKey = signalsKeyOf(ref, chunk);
  await deps.artifacts.putJson(signalsKey, withTranscript(signals, transcript));
  return { signalsKey };
}
