import { logger } from '../shared/logger.js';

/**
 * Runs a workflow task as a container's whole process: its input is the JSON in TASK_INPUT (an
 * ECS container override on AWS, the child's environment locally) and, since ECS hands no output
 * back to the state machine, its exit status is its result: 0 done, 1 failed (Retry and Catch
 * then see States.TaskFailed). Only the error's name and message are logged; they are sanitised
 * where they are made (signed URLs never reach a message).
 */
export async function runContainerTask(task: (input: unknown) => Promise<unknown>): Promise<never> {
  try {
    const result = await task(JSON.parse(process.env.TASK_INPUT ?? 'null'));
    logger.info('Container task done', { result });
    // Explicitly: pooled SDK sockets must not keep a finished task (and its Fargate bill) alive.
    process.exit(0);
  } catch (error) {
    const { name, message } = error instanceof Error ? error : new Error(String(error));
    logger.error('Container task failed', { errorName: name, errorMessage: message });
    process.exit(1);
  }
}
