import { ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AnalysisRef, WorkflowStarter } from '../domain/runs/ports.js';

/**
 * Restarts the workflow of every run a previous local-host process left unfinished (stopped or
 * killed mid-run). Every step of the analysis workflow is safe to run again, so a restarted
 * execution finishes the run: it is never stuck, and it is charged or refunded exactly once.
 * (On AWS, Step Functions executions outlive any process, so this is the local host's concern.)
 */
export async function resumeUnfinishedRuns(doc: DynamoDBDocumentClient, tableName: string, workflows: WorkflowStarter): Promise<number> {
  const unfinished: AnalysisRef[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: '#entity = :run AND #status IN (:queued, :dispatched, :processing)',
        ProjectionExpression: 'accountId, runId, analysisId',
        ExpressionAttributeNames: { '#entity': 'entity', '#status': 'status' },
        ExpressionAttributeValues: { ':run': 'run', ':queued': 'queued', ':dispatched': 'dispatched', ':processing': 'processing' },
        ExclusiveStartKey: startKey,
      }),
    );
    unfinished.push(...((page.Items ?? []) as AnalysisRef[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  for (const ref of unfinished) await workflows.startAnalysis(ref);
  return unfinished.length;
}
