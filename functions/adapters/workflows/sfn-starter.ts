import type { SFNClient } from '@aws-sdk/client-sfn';
import type { BatchWorkflowStarter } from '../../domain/batches/ports.js';
import type { WorkflowStarter } from '../../domain/runs/ports.js';
import type { RenderWorkflowStarter } from '../../domain/renders/model.js';

/**
 * Executions are named after what they process (the analysis, the batch), so a retried start
 * can never run the same work twice: Step Functions refuses a second execution of one name.
 */
async function startNamed(sfn: SFNClient, stateMachineArn: string, name: string, input: object): Promise<void> {
  // Loaded at the first start: a function that never starts a workflow never loads the client.
  const { ExecutionAlreadyExists, StartExecutionCommand } = await import('@aws-sdk/client-sfn');
  try {
    await sfn.send(new StartExecutionCommand({ stateMachineArn, name, input: JSON.stringify(input) }));
  } catch (error) {
    if (!(error instanceof ExecutionAlreadyExists)) throw error;
  }
}

export function sfnWorkflowStarter(sfn: SFNClient, analysisStateMachineArn: string): WorkflowStarter {
  return { startAnalysis: (ref) => startNamed(sfn, analysisStateMachineArn, ref.analysisId, ref) };
}

export function sfnBatchWorkflowStarter(sfn: SFNClient, batchStateMachineArn: string): BatchWorkflowStarter {
  return { startBatch: (ref) => startNamed(sfn, batchStateMachineArn, ref.batchId, ref) };
}

export function sfnRenderWorkflowStarter(sfn: SFNClient, renderStateMachineArn: string): RenderWorkflowStarter {
  return { startRender: (ref) => startNamed(sfn, renderStateMachineArn, ref.renderId, ref) };
}
