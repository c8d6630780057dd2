import * as z from '../shared/zod.js';
import { logger } from '../shared/logger.js';
import { publishMetrics } from '../shared/metrics.js';

const id = z.string().check(z.minLength(1));

/** The input every analysis task receives from the state machine. */
export const analysisRefSchema = z.object({ accountId: id, runId: id, analysisId: id });

/** The input of every batch task, and of each item's. */
export const batchRefSchema = z.object({ accountId: id, batchId: id });
export const batchItemRefSchema = z.extend(batchRefSchema, { index: z.int().check(z.minimum(0)) });

/**
 * EventBridge "Step Functions Execution Status Change" for an execution that ended early; its
 * own input (a JSON string) names what it was processing, parsed with `input`.
 */
export const executionEndedSchema = <S extends z.ZodMiniType>(input: S) =>
  z.object({
    detail: z.object({
      status: z.enum(['FAILED', 'TIMED_OUT', 'ABORTED']),
      input: z.pipe(
        z.string(),
        z.transform((text: string, ctx): z.infer<S> => {
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          const result = input.safeParse(parsed);
          if (result.success) return result.data;
          ctx.issues.push({ code: 'custom', message: 'the execution input is not what this workflow takes', input: text });
          return z.NEVER;
        }),
      ),
    }),
  });

export const chunkSchema = z.object({ index: z.int().check(z.minimum(0)), startMs: z.int().check(z.minimum(0)), endMs: z.int().check(z.minimum(1)) });

/**
 * Builds a workflow step: parse the state's input, run the step's use case with its deps (the
 * composition's, built once per process). Its function exports it as `handler`, its container
 * (functions/containers) runs it the same way. Errors propagate so the state machine's Retry and
 * Catch decide what happens next.
 */
export function taskHandler<S extends z.ZodMiniType, D, R>(schema: S, deps: () => D, step: (input: z.infer<S>, deps: D) => Promise<R>) {
  return async (event: unknown): Promise<R> => {
    const input = schema.parse(event);
    try {
      return await step(input, deps());
    } catch (error) {
      logger.error('Workflow task failed', { error: error as Error });
      throw error;
    } finally {
      publishMetrics();
    }
  };
}
