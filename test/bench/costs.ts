import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { observeDynamoDbRequests, type DynamoDbRequest } from '../../functions/adapters/dynamodb-clients.js';
import { logger } from '../../functions/shared/logger.js';
import { startLocalHost, type LocalHost } from '../../functions/local/host.js';
import { submitBatch, waitForBatch, type BatchRecord } from './batches.js';
import { call, prepareRun, round, runToCompletion, type RunInputs } from './client.js';
import { longRunSource, shortClip } from './media.js';

export interface CostFigure {
  scenario: string;
  /** Billable Step Functions transitions (LocalWorkflows.stateTransitionsOf) of every execution the scenario started. */
  stateTransitions: number;
  dynamoDbWriteRequests: number;
  dynamoDbItemsWritten: number;
  /** Write requests by operation, `(n items)` where a request writes several. */
  writesByOperation: string;
}

/** What a scenario did: its label, and the names of the executions it started. */
interface Scenario {
  scenario: string;
  executions: string[];
}

/**
 * Counts what a scenario costs on the in-process host: the DynamoDB writes sent from its start
 * until every workflow has ended, and the state transitions of the executions it names; all
 * divided by `units` (a batch's items).
 */
async function measure(host: LocalHost, units: number, act: () => Promise<Scenario>): Promise<CostFigure> {
  const writes: DynamoDbRequest[] = [];
  const stopObserving = observeDynamoDbRequests((request) => {
    if (request.itemsWritten > 0) writes.push(request);
  });
  let done: Scenario;
  try {
    done = await act();
    // Trailing writes (a released slot) land after the run reads as completed.
    await host.workflows.settle();
  } finally {
    stopObserving();
  }
  const byOperation = new Map<string, { requests: number; items: number }>();
  for (const { operation, itemsWritten } of writes) {
    const counted = byOperation.get(operation) ?? { requests: 0, items: 0 };
    byOperation.set(operation, { requests: counted.requests + 1, items: counted.items + itemsWritten });
  }
  const perUnit = (value: number) => round(value / units);
  return {
    scenario: done.scenario,
    stateTransitions: perUnit(done.executions.reduce((sum, name) => sum + host.workflows.stateTransitionsOf(name), 0)),
    dynamoDbWriteRequests: perUnit(writes.length),
    dynamoDbItemsWritten: perUnit(writes.reduce((sum, write) => sum + write.itemsWritten, 0)),
    writesByOperation: [...byOperation]
      .map(([operation, { requests, items }]) => `${operation} ${perUnit(requests)}${items === requests ? '' : ` (${perUnit(items)} items)`}`)
      .join(', '),
  };
}

/** One run to completion (its analysis is its one execution), labelled with its chunk count as planned. */
function runCost(host: LocalHost, label: string, inputs: RunInputs): Promise<CostFigure> {
  return measure(host, 1, async () => {
    const { analysisId } = await runToCompletion(host, inputs);
    const { chunks_total } = await call<{ chunks_total: number }>(host, 'GET', `/v1/analyses/${analysisId}/progress`);
    return { scenario: `${label}, ${chunks_total} chunk(s)`, executions: [analysisId] };
  });
}

const BATCH_SIZE = 10;

/**
 * Issue #8: the AWS cost drivers of one run, counted for real on the local host, which runs the
 * same ASL and the same DynamoDB code: Step Functions state transitions and DynamoDB writes.
 * The host runs in this process (its workflow runner and SDK clients are the ones observed);
 * every POST carries an Idempotency-Key, whose record is 2 of the writes.
 */
export async function benchCosts(): Promise<CostFigure[]> {
  // The host's log lines, and those of its container tasks (they inherit this environment), would bury the table.
  process.env.LOG_LEVEL = 'SILENT';
  logger.setLogLevel('SILENT');
  const clip = await shortClip();
  const longFile = await longRunSource();
  const dataDir = await mkdtemp(join(tmpdir(), 'mss-bench-costs-'));
  const host = await startLocalHost({ dataDir, port: 0 });
  try {
    const clipInputs = await prepareRun(host, clip);
    const short = await runCost(host, '(a) 5 s run', clipInputs);
    const long = await runCost(host, '(b) 30 min run', await prepareRun(host, longFile));
    const batch = await measure(host, BATCH_SIZE, async () => {
      const submitted = await submitBatch(host, clipInputs, BATCH_SIZE);
      await waitForBatch(host, submitted.batch_id);
      const settled = await call<BatchRecord>(host, 'GET', `/v1/scanner-batches/${submitted.batch_id}`);
      const runs = settled.items.flatMap((item) => (item.analysis_id ? [item.analysis_id] : []));
      return { scenario: `(c) ${BATCH_SIZE}-item batch of 5 s runs, per item`, executions: [settled.batch_id, ...runs] };
    });
    return [short, long, batch];
  } finally {
    await host.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
