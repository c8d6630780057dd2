import type { SFNClient } from '@aws-sdk/client-sfn';
import type { TaskTokenCallbacks } from '../../domain/runs/ports.js';

/**
 * Step Functions callbacks. A token whose wait already ended (the execution stopped, or the
 * wait timed out and re-armed with a new token) is not an error: the grant is recorded in the
 * table, and the re-armed wait finds it there.
 */
export function sfnTaskCallbacks(sfn: SFNClient): TaskTokenCallbacks {
  return {
    async succeed(taskToken, output) {
      // Loaded at the first callback: a function that never wakes a workflow never loads the client.
      const { InvalidToken, SendTaskSuccessCommand, TaskDoesNotExist, TaskTimedOut } = await import('@aws-sdk/client-sfn');
      try {
        await sfn.send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify(output) }));
      } catch (error) {
        if (!(error instanceof TaskTimedOut || error instanceof TaskDoesNotExist || error instanceof InvalidToken)) throw error;
      }
    },
  };
}
