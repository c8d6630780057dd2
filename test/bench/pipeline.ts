import { longSource } from '../helpers/ground-truth-media.js';
import { prepareRun, round, runToCompletion } from './client.js';
import { benchHost } from './host.js';
import { bareDecode, timed } from './signals.js';

export interface PipelineBenchResult {
  sourceSeconds: number;
  decodeSeconds: number;
  runSeconds: number;
  ratio: number;
  xRealtime: number;
}

/**
 * Issue 4 #11: wall time of a whole scanner run on a generated 10-minute 1280x720 H.264 file,
 * against one bare `ffmpeg -i file -f null -` decode of the same file (goal: ratio <= 1.5).
 */
export async function benchPipeline(options: { minutes?: number } = {}): Promise<PipelineBenchResult> {
  const minutes = options.minutes ?? 10;
  const file = await longSource({ minutes });
  const decode = await timed(() => bareDecode(file));
  const host = await benchHost();
  try {
    const { seconds: runSeconds } = await runToCompletion(host, await prepareRun(host, file));
    return {
      sourceSeconds: minutes * 60,
      decodeSeconds: round(decode.wall),
      runSeconds: round(runSeconds),
      ratio: round(runSeconds / decode.wall),
      xRealtime: round((minutes * 60) / runSeconds),
    };
  } finally {
    await host.stop();
  }
}
