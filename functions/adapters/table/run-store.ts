import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { collections, indexKeys, keys } from './keys.js';
import { queryAll, queryPage, stripKeys, type TableContext } from './query-page.js';
import { conditionalWrite, getRecord, ledgerPut, putAll, transact } from './operations.js';
import { slotQueueEntryItem } from './slot-store.js';
import { outboxPuts } from './outbox.js';
import { itemTransitionWrites } from './batch-store.js';
import type { AnalysisRecord, MomentRecord, ObservationRecord, RunRecord } from '../../domain/runs/model.js';
import type { LedgerEntry } from '../../domain/accounts/model.js';
import type { TerminalError } from '../../domain/runs/model.js';
import type { RunStore } from '../../domain/runs/ports.js';
import type { Announcement } from '../../domain/events/model.js';

const unstarted = ({ startedAt: _started, completedAt: _completed, ...run }: RunRecord) => run;

export function dynamoRunStore(table: TableContext): RunStore {
  const { tableName } = table;
  const update = (input: ConstructorParameters<typeof UpdateCommand>[0]) => conditionalWrite(table, new UpdateCommand(input));

  /**
   * The account side of a reservation: a debit that never takes the balance below zero, or, for a
   * proof analysis, the claim of the account's one proof allowance.
   */
  const reservationUpdate = (run: RunRecord) =>
    run.oneOff?.proof
      ? {
          TableName: tableName,
          Key: keys.account(run.accountId),
          UpdateExpression: 'SET proofAnalysisId = :analysis, updatedAt = :now',
          ConditionExpression: 'attribute_not_exists(proofAnalysisId)',
          ExpressionAttributeValues: { ':analysis': run.analysisId, ':now': run.createdAt },
        }
      : {
          TableName: tableName,
          Key: keys.account(run.accountId),
          UpdateExpression: 'SET creditsBalance = creditsBalance - :credits, updatedAt = :now',
          ConditionExpression: 'creditsBalance >= :credits',
          ExpressionAttributeValues: { ':credits': run.credits, ':now': run.createdAt },
        };

  /** A proof analysis moves no credits, so it has no ledger entry. */
  const ledgerWrites = (run: RunRecord, entry: LedgerEntry) => (run.oneOff?.proof ? [] : [ledgerPut(table, run.accountId, entry)]);

  /** Gives back what the reservation took: the credits, or the proof allowance this analysis claimed. */
  const refundWrites = (run: RunRecord, refund: LedgerEntry, now: string) => [
    {
      Update: run.oneOff?.proof
        ? {
            TableName: tableName,
            Key: keys.account(run.accountId),
            UpdateExpression: 'REMOVE proofAnalysisId SET updatedAt = :now',
            ConditionExpression: 'proofAnalysisId = :analysis',
            ExpressionAttributeValues: { ':analysis': run.analysisId, ':now': now },
          }
        : {
            TableName: tableName,
            Key: keys.account(run.accountId),
            UpdateExpression: 'SET creditsBalance = creditsBalance + :credits, updatedAt = :now',
            ExpressionAttributeValues: { ':credits': run.credits, ':now': now },
          },
    },
    ...ledgerWrites(run, refund),
  ];


  type Condition = { expression: string; values: Record<string, string> };

  /**
   * Ends work with its reservation given back, in one transaction: the run failed (under its
   * condition), the analysis `failed` or `canceled` while the reservation is still held (so the
   * refund happens exactly once), the refund, and the run out of the slot queue.
   */
  async function endWithRefund(
    run: RunRecord,
    refund: LedgerEntry,
    now: string,
    end: {
      runCondition: Condition;
      analysis: { status: 'failed' | 'canceled'; showsError: boolean; condition: Condition };
      error: TerminalError;
      announcements: readonly Announcement[];
    },
  ): Promise<boolean> {
    const outcome = await transact(table, [
      {
        Update: {
          TableName: tableName,
          Key: keys.run(run.accountId, run.runId),
          UpdateExpression: 'SET #status = :failed, #error = :error, updatedAt = :now, completedAt = :now',
          ConditionExpression: end.runCondition.expression,
          ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
          ExpressionAttributeValues: { ':failed': 'failed', ':error': end.error, ':now': now, ...end.runCondition.values },
        },
      },
      {
        Update: {
          TableName: tableName,
          Key: keys.analysis(run.accountId, run.analysisId),
          UpdateExpression: `SET #status = :ended, billing = :refunded, updatedAt = :now${end.analysis.showsError ? ', #error = :error' : ''}`,
          ConditionExpression: end.analysis.condition.expression,
          ExpressionAttributeNames: { '#status': 'status', ...(end.analysis.showsError ? { '#error': 'error' } : {}) },
          ExpressionAttributeValues: {
            ':ended': end.analysis.status,
            ':refunded': 'refunded',
            ':reserved': 'reserved',
            ':now': now,
            ...(end.analysis.showsError ? { ':error': end.error } : {}),
            ...end.analysis.condition.values,
          },
        },
      },
      ...refundWrites(run, refund, now),
      // Work that ends while waiting leaves the queue with it.
      { Delete: { TableName: tableName, Key: keys.slotQueueEntry(run.accountId, run.runId) } },
      ...outboxPuts(table, run.accountId, end.announcements),
    ]);
    return outcome.ok;
  }

  return {
    async createWithReservation(run, analysis, entry) {
      const outcome = await transact(table, [
        { Update: reservationUpdate(run) },
        // startedAt and completedAt stay absent until set, so if_not_exists can set them once.
        { Put: { TableName: tableName, Item: { ...keys.run(run.accountId, run.runId), entity: 'run', ...unstarted(run) }, ConditionExpression: 'attribute_not_exists(PK)' } },
        {
          Put: {
            TableName: tableName,
            Item: { ...keys.analysis(run.accountId, analysis.analysisId), entity: 'analysis', ...analysis },
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
        ...ledgerWrites(run, entry),
        // The run waits for a slot from the moment it exists: queue order is submission order.
        { Put: { TableName: tableName, Item: slotQueueEntryItem(run.accountId, run.runId, run.analysisId) } },
        // A batch item becomes its run exactly once, and never after its batch was canceled.
        ...(run.batchItem ? itemTransitionWrites(table, run.batchItem, 'spawn', { runId: run.runId, analysisId: run.analysisId }, run.createdAt) : []),
      ]);
      if (outcome.ok) return 'created';
      if (outcome.failedIndex === 0) return run.oneOff?.proof ? 'proof_allowance_exhausted' : 'insufficient_credits';
      if (outcome.failedIndex === 1 || outcome.failedIndex === 2) return 'already_created';
      if (outcome.failedIndex >= 4 && run.batchItem) return 'item_not_waiting';
      throw new Error(`Run ${run.runId} could not be created (item ${outcome.failedIndex} exists)`);
    },

    async getRun(accountId, runId) {
      const run = await getRecord<RunRecord>(table, keys.run(accountId, runId));
      return run && { ...run, startedAt: run.startedAt ?? null, completedAt: run.completedAt ?? null };
    },
    getAnalysis: (accountId, analysisId) => getRecord<AnalysisRecord>(table, keys.analysis(accountId, analysisId)),

    async markProcessing(ref, now) {
      const outcome = await transact(table, [
        {
          Update: {
            TableName: tableName,
            Key: keys.run(ref.accountId, ref.runId),
            UpdateExpression: 'SET #status = :processing, updatedAt = :now, startedAt = if_not_exists(startedAt, :now)',
            // Compute starts only under a held slot. A retried step finds it processing already,
            // which is fine; a terminal run is not restarted.
            ConditionExpression: '#status IN (:dispatched, :processing) AND slot = :held',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':processing': 'processing', ':dispatched': 'dispatched', ':held': 'held', ':now': now },
          },
        },
        {
          Update: {
            TableName: tableName,
            Key: keys.analysis(ref.accountId, ref.analysisId),
            UpdateExpression: 'SET #status = :processing, updatedAt = :now',
            ConditionExpression: '#status IN (:queued, :dispatched, :processing)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':processing': 'processing', ':queued': 'queued', ':dispatched': 'dispatched', ':now': now },
          },
        },
      ]);
      return outcome.ok;
    },

    async recordChunkPlan(ref, chunksTotal, now) {
      await update({
        TableName: tableName,
        Key: keys.analysis(ref.accountId, ref.analysisId),
        UpdateExpression: 'SET chunksTotal = :total, chunksDone = :zero, updatedAt = :now',
        ExpressionAttributeValues: { ':total': chunksTotal, ':zero': 0, ':now': now },
      });
    },

    async recordChunkDone(ref, now) {
      // Bounded by chunksTotal so a retried chunk cannot push progress past 100%.
      await update({
        TableName: tableName,
        Key: keys.analysis(ref.accountId, ref.analysisId),
        UpdateExpression: 'SET chunksDone = chunksDone + :one, updatedAt = :now',
        ConditionExpression: 'chunksDone < chunksTotal',
        ExpressionAttributeValues: { ':one': 1, ':now': now },
      });
    },

    async putResults(ref, observations, moments) {
      const puts = [
        ...observations.map((o, rank) => ({
          ...keys.runObservation(ref.accountId, ref.runId, rank),
          ...indexKeys.accountObservation(ref.accountId, o.observation_id),
          entity: 'observation',
          ...o,
        })),
        ...moments.map((m) => ({ ...keys.moment(ref.accountId, ref.analysisId, m.rank), entity: 'moment', ...m })),
      ];
      await putAll(table, puts);
    },

    async complete(ref, observationCount, now, announcements) {
      const outcome = await transact(table, [
        {
          Update: {
            TableName: tableName,
            Key: keys.run(ref.accountId, ref.runId),
            UpdateExpression: 'SET #status = :completed, observationCount = :count, updatedAt = :now, completedAt = :now',
            ConditionExpression: '#status = :processing',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':completed': 'completed', ':processing': 'processing', ':count': observationCount, ':now': now },
          },
        },
        {
          Update: {
            TableName: tableName,
            Key: keys.analysis(ref.accountId, ref.analysisId),
            // Settlement: the reservation made at submission becomes the charge.
            UpdateExpression: 'SET #status = :completed, billing = :charged, updatedAt = :now',
            ConditionExpression: 'billing = :reserved',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':completed': 'completed', ':charged': 'charged', ':reserved': 'reserved', ':now': now },
          },
        },
        ...outboxPuts(table, ref.accountId, announcements),
      ]);
      return outcome.ok;
    },

    // A failure of a run that has not completed, and the cancel of one still waiting without a
    // slot (which exactly one of cancel and the slot grant wins): one refund each.
    failAndRefund: (run, error, refund, now, announcements) =>
      endWithRefund(run, refund, now, {
        runCondition: { expression: 'NOT #status IN (:completed, :failed)', values: { ':completed': 'completed' } },
        // The analysis carries the failure too; a canceled one has none.
        analysis: { status: 'failed', showsError: true, condition: { expression: 'billing = :reserved', values: {} } },
        error,
        announcements,
      }),

    cancelQueued: (run, error, refund, now, announcements) =>
      endWithRefund(run, refund, now, {
        runCondition: { expression: '#status = :queued AND attribute_not_exists(slot)', values: { ':queued': 'queued' } },
        analysis: { status: 'canceled', showsError: false, condition: { expression: 'billing = :reserved AND #status = :queued', values: { ':queued': 'queued' } } },
        error,
        announcements,
      }),

    async recordAcquiredSource(ref, source, now) {
      await transact(table, [
        {
          Update: {
            TableName: tableName,
            Key: keys.run(ref.accountId, ref.runId),
            UpdateExpression: 'SET sourceDurationMs = :duration, updatedAt = :now',
            ExpressionAttributeValues: { ':duration': source.durationMs, ':now': now },
          },
        },
        {
          Update: {
            TableName: tableName,
            Key: keys.analysis(ref.accountId, ref.analysisId),
            UpdateExpression: 'SET #source.duration_ms = :duration, #source.size_bytes = :size, updatedAt = :now',
            ExpressionAttributeNames: { '#source': 'source' },
            ExpressionAttributeValues: { ':duration': source.durationMs, ':size': source.sizeBytes, ':now': now },
          },
        },
      ]);
    },

    listAnalyses: (accountId, filter, page) =>
      queryPage(table, accountId, collections.analyses(accountId, filter.fromId), page, (item) => stripKeys(item) as unknown as AnalysisRecord, {
        keep: filter.keep,
      }),

    listRunObservations: (accountId, runId, page) =>
      queryPage(table, accountId, collections.runObservations(accountId, runId), page, (item) => stripKeys(item) as unknown as ObservationRecord, { order: 'oldestFirst' }),

    listAccountObservations: (accountId, filter, page) =>
      queryPage(table, accountId, collections.accountObservations(accountId, filter.fromId), page, (item) => stripKeys(item) as unknown as ObservationRecord, {
        keep: filter.keep,
      }),

    // Every page: with their words (a moment of 10 minutes holds about 80 KB of them), 50 moments pass a query's 1 MB.
    listMoments: (accountId, analysisId) => queryAll(table, collections.moments(accountId, analysisId), (item) => stripKeys(item) as unknown as MomentRecord),
  };
}

