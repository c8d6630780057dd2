import * as z from '../../shared/zod.js';
import { awaitChunkTranscript } from '../../domain/runs/steps/await-transcript.js';
import { analysisRefSchema, chunkSchema, taskHandler } from '../task.js';
import { pipeline } from '../../composition/engine.js';
import { traced } from '../../composition/tracing.js';

/** The AwaitTranscript state: its previous answer (`transcript`, at the state's ResultPath) comes back with its input. */
export const handler = traced(
  taskHandler(
    z.extend(analysisRefSchema, { chunk: chunkSchema, transcript: z.optional(z.object({ waitingSince: z.iso.datetime() })) }),
    pipeline,
    ({ chunk, transcript, ...ref }, deps) => awaitChunkTranscript(deps, ref, chunk, transcript?.waitingSince),
  ),
);
