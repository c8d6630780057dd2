import { ScanCommand, type DynamoDBDocumentClient, type ScanCommandInput } from '@aws-sdk/lib-dynamodb';
import { batchEntity } from '../adapters/table/entities/batch.js';
import { renderEntity } from '../adapters/table/entities/render.js';
import { runEntity } from '../adapters/table/entities/run.js';
import type { BatchRef, BatchWorkflowStarter } from '../domain/batches/ports.js';
import { nowIso } from '../domain/clock.js';
import { unfinishedRunStatuses, type RunRecord } from '../domain/runs/model.js';
import type { AnalysisRef, SlotStore, WorkflowStarter } from '../domain/runs/ports.js';
import type { RenderRef, RenderWorkflowStarter } from '../domain/renders/model.js';

type RunState = AnalysisRef & Pick<RunRecord, 'status' | 'slot' | 'capacity'>;

const unfinished = (run: RunState) => (unfinishedRunStatuses as readonly string[]).includes(run.status);
/** `:queued, :dispatched, ...`: the unfinished statuses as expression values. */
const unfinishedValues = Object.fromEntries(unfinishedRunStatuses.map((status) => [`:${status}`, status]));

async function scanAll<T>(doc: DynamoDBDocumentClient, input: Omit<ScanCommandInput, 'ExclusiveStartKey' | 'ConsistentRead'>): Promise<T[]> {
  const found: T[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(new ScanCommand({ ...input, ConsistentRead: true, ExclusiveStartKey: startKey }));
    found.push(...((page.Items ?? []) as T[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return found;
}

/** Every run that is unfinished or still holds a slot or capacity (a stop can fall between settling and releasing). */
const runsToReconcile = (doc: DynamoDBDocumentClient, tableName: string) =>
  scanAll<RunState>(doc, {
    TableName: tableName,
    FilterExpression: `#entity = :run AND (#status IN (${Object.keys(unfinishedValues).join(', ')}) OR slot = :held OR #capacity = :held)`,
    ProjectionExpression: 'accountId, runId, analysisId, #status, slot, #capacity',
    ExpressionAttributeNames: { '#entity': 'entity', '#status': 'status', '#capacity': 'capacity' },
    ExpressionAttributeValues: { ':run': runEntity.name, ...unfinishedValues, ':held': 'held' },
  });

/**
 * Restarts the workflow of every batch not yet settled, oldest first, after the runs: its steps
 * find spawned items spawned (no second run) and settled items settled, so no item is lost or doubled.
 */
export async function reconcileBatches(doc: DynamoDBDocumentClient, tableName: string, workflows: BatchWorkflowStarter): Promise<number> {
  const batches = await scanAll<BatchRef>(doc, {
    TableName: tableName,
    FilterExpression: '#entity = :batch AND completedAt = :null',
    ProjectionExpression: 'accountId, batchId',
    ExpressionAttributeNames: { '#entity': 'entity' },
    ExpressionAttributeValues: { ':batch': batchEntity.name, ':null': null },
  });
  batches.sort((a, b) => a.batchId.localeCompare(b.batchId));
  for (const batch of batches) await workflows.startBatch(batch);
  return batches.length;
}

/**
 * Start-up reconciliation of the local host. Slots and capacity held by runs that already ended go
 * back, each account's in-use count and the deployment's admitted count are recomputed from the
 * runs, and the workflow of every unfinished run is
 * started again, oldest first. Every step of the analysis workflow is safe to repeat, so each run
 * finishes, charged or refunded exactly once, and nothing stays stuck. (On AWS, executions outlive
 * any process, and an EventBridge rule settles those that end abnormally.)
 */
export async function reconcileRuns(doc: DynamoDBDocumentClient, tableName: string, slots: SlotStore, workflows: WorkflowStarter): Promise<number> {
  const runs = await runsToReconcile(doc, tableName);
  for (const run of runs.filter((r) => !unfinished(r))) await slots.release(run, nowIso());
  const holding = new Map<string, number>();
  for (const run of runs) {
    const holds = unfinished(run) && run.slot === 'held' ? 1 : 0;
    holding.set(run.accountId, (holding.get(run.accountId) ?? 0) + holds);
  }
  for (const [accountId, inUse] of holding) await slots.recount(accountId, inUse, nowIso());
  await slots.recountCapacity(runs.filter((run) => unfinished(run) && run.capacity === 'held').length, nowIso());
  const resumed = runs.filter(unfinished).sort((a, b) => a.runId.localeCompare(b.runId));
  for (const run of resumed) await workflows.startAnalysis({ accountId: run.accountId, runId: run.runId, analysisId: run.analysisId });
  return resumed.length;
}

/**
 * Restarts the workflow of every render not yet settled, oldest first: a moment whose asset is
 * recorded is not rendered again, the others are, and the render is settled once.
 */
export async function reconcileRenders(doc: DynamoDBDocumentClient, tableName: string, workflows: RenderWorkflowStarter): Promise<number> {
  const renders = await scanAll<RenderRef & { momentIds: string[] }>(doc, {
    TableName: tableName,
    FilterExpression: '#entity = :render AND #status IN (:queued, :processing)',
    ProjectionExpression: 'accountId, renderId, momentIds',
    ExpressionAttributeNames: { '#entity': 'entity', '#status': 'status' },
    ExpressionAttributeValues: { ':render': renderEntity.name, ':queued': 'queued', ':processing': 'processing' },
  });
  renders.sort((a, b) => a.renderId.localeCompare(b.renderId));
  for (const render of renders) await workflows.startRender(render);
  return renders.length;
}
