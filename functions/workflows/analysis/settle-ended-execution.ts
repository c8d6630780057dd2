import { z } from 'zod';
import { analysisRefSchema, taskHandler } from '../task.js';
import { failAndAnnounce } from './fail-and-announce.js';

/** EventBridge "Step Functions Execution Status Change": the execution's own input names the run. */
const executionEnded = z.object({
  detail: z.object({
    status: z.enum(['FAILED', 'TIMED_OUT', 'ABORTED']),
    input: z.string().transform((text, ctx) => {
      try {
        return analysisRefSchema.parse(JSON.parse(text));
      } catch {
        ctx.addIssue({ code: 'custom', message: 'execution input is not an analysis reference' });
        return z.NEVER;
      }
    }),
  }),
});

const errorOf = { FAILED: 'States.TaskFailed', TIMED_OUT: 'States.Timeout', ABORTED: 'States.Aborted' } as const;

/** A run whose execution ended is failed and refunded once, and its slot released; a run already settled is left as it is. */
export const handler = taskHandler(executionEnded, ({ detail }, services) => failAndAnnounce(services, detail.input, { Error: errorOf[detail.status] }));
