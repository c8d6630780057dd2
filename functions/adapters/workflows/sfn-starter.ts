import { ExecutionAlreadyExists, StartExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import type { WorkflowStarter } from '../../domain/runs/ports.js';

/**
 * Step Functions: the execution is named after the analysis, so a retried start can never run
 * the same analysis twice.
 */
export function sfnWorkflowStarter(sfn: SFNClient, analysisStateMachineArn: string): WorkflowStarter {
  return {
    async startAnalysis(ref) {
      try {
        await sfn.send(new StartExecutionCommand({ stateMachineArn: analysisStateMachineArn, name: ref.analysisId, input: JSON.stringify(ref) }));
      } catch (error) {
        if (!(error instanceof ExecutionAlreadyExists)) throw error;
      }
    },
  };
}
