import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { queryAll, queryPage, type TableContext } from './query-page.js';
import { conditionalWrite, getRecord, ledgerPut, putAll, transact } from './operations.js';
import { outboxPuts } from './outbox.js';
import { itemTransitionWrites } from './batch-store.js';
import { accountEntity } from './entities/account.js';
import { analysesFrom, analysisEntity } from './entities/analysis.js';
import { momentEntity } from './entities/moment.js';
import { accountObservationsFrom, observationEntity } from './entities/observation.js';
import { runEntity } from './entities/run.js';
import { slotQueueEntryEntity } from './entities/slot-queue-entry.js';
import type { RunRecord } from '../../domain/runs/model.js';
import type { LedgerEntry } from '../../domain/accounts/model.js';
import type { TerminalError } from '../../domain/runs/model.js';
import type { RunStore } from '../../domain/runs/ports.js';
import type { Announcement } from '../../domain/events/model.js';

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
          Key: accountEntity.key(run),
          UpdateExpression: 'SET proofAnalysisId = :analysis, updatedAt = :now',
          ConditionExpression: 'attribute_not_exists(proofAnalysisId)',
          ExpressionAttributeValues: { ':analysis': run.analysisId, ':now': run.createdAt },
        }
      : {
          TableName: tableName,
          Key: accountEntity.key(run),
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
            Key: accountEntity.key(run),
            UpdateExpression: 'REMOVE proofAnalysisId SET updatedAt = :now',
            ConditionExpression: 'proofAnalysisId = :analysis',
            ExpressionAttributeValues: { ':analysis': run.analysisId, ':now': now },
          }
        : {
            TableName: tableName,
            Key: accountEntity.key(run),
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
          Key: runEntity.key(run),
          UpdateExpression: 'SET #status = :failed, #error = :error, updatedAt = :now, completedAt = :now',
          ConditionExpression: end.runCondition.expression,
          ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
          ExpressionAttributeValues: { ':failed': 'failed', ':error': end.error, ':now': now, ...end.runCondition.values },
        },
      },
      {
        Update: {
          TableName: tableName,
          Key: analysisEntity.key(run),
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
      { Delete: { TableName: tableName, Key: slotQueueEntryEntity.key(run) } },
      ...outboxPuts(table, run.accountId, end.announcements),
    ]);
    return outcome.ok;
  }

  return {
    async createWithReservation(run, analysis, entry) {
      const outcome = await transact(table, [
        { Update: reservationUpdate(run) },
        { Put: { TableName: tableName, Item: runEntity.item(run), ConditionExpression: 'attribute_not_exists(PK)' } },
        { Put: { TableName: tableName, Item: analysisEntity.item(analysis), ConditionExpression: 'attribute_not_exists(PK)' } },
        ...ledgerWrites(run, entry),
        // The run waits for a slot from the moment it exists: queue order is submission order.
        { Put: { TableName: tableName, Item: slotQueueEntryEntity.item(run) } },
        // A batch item becomes its run exactly once, and never after its batch was canceled.
        ...(run.batchItem ? itemTransitionWrites(table, run.batchItem, 'spawn', { runId: run.runId, analysisId: run.analysisId }, run.createdAt) : []),
      ]);
      if (outcome.ok) return 'created';
      if (outcome.failedIndex === 0) return run.oneOff?.proof ? 'proof_allowance_exhausted' : 'insufficient_credits';
      if (outcome.failedIndex === 1 || outcome.failedIndex === 2) return 'already_created';
      if (outcome.failedIndex >= 4 && run.batchItem) return 'item_not_waiting';
      throw new Error(`Run ${run.runId} could not be created (item ${outcome.failedIndex} exists)`);
    },

    getRun: (accountId, runId) => getRecord(table, runEntity, { accountId, runId }),
    getAnalysis: (accountId, analysisId) => getRecord(table, analysisEntity, { accountId, analysisId }),

    async markProcessing(ref, now) {
      const outcome = await transact(table, [
        {
          Update: {
            TableName: tableName,
            Key: runEntity.key(ref),
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
            Key: analysisEntity.key(ref),
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
        Key: analysisEntity.key(ref),
        UpdateExpression: 'SET chunksTotal = :total, chunksDone = :zero, updatedAt = :now',
        ExpressionAttributeValues: { ':total': chunksTotal, ':zero': 0, ':now': now },
      });
    },

    async recordChunkDone(ref, now) {
      // Bounded by chunksTotal so a retried chunk cannot push progress past 100%.
      await update({
        TableName: tableName,
        Key: analysisEntity.key(ref),
        UpdateExpression: 'SET chunksDone = chunksDone + :one, updatedAt = :now',
        ConditionExpression: 'chunksDone < chunksTotal',
        ExpressionAttributeValues: { ':one': 1, ':now': now },
      });
    },

    async putResults(ref, observations, moments) {
      await putAll(table, [
        ...observations.map((observation, rank) => observationEntity.item(ref, observation, rank)),
        ...moments.map((moment) => momentEntity.item(ref, moment)),
      ]);
    },

    async complete(ref, observationCount, now, announcements) {
      const outcome = await transact(table, [
        {
          Update: {
            TableName: tableName,
            Key: runEntity.key(ref),
            UpdateExpression: 'SET #status = :completed, observationCount = :count, updatedAt = :now, completedAt = :now',
            ConditionExpression: '#status = :processing',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':completed': 'completed', ':processing': 'processing', ':count': observationCount, ':now': now },
          },
        },
        {
          Update: {
            TableName: tableName,
            Key: analysisEntity.key(ref),
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
        analysis: {
          status: 'canceled',
          showsError: false,
          condition: { expression: 'billing = :reserved AND #status = :queued', values: { ':queued': 'queued' } },
        },
        error,
        announcements,
      }),

    async recordAcquiredSource(ref, source, now) {
      await transact(table, [
        {
          Update: {
            TableName: tableName,
            Key: runEntity.key(ref),
            UpdateExpression: 'SET sourceDurationMs = :duration, updatedAt = :now',
            ExpressionAttributeValues: { ':duration': source.durationMs, ':now': now },
          },
        },
        {
          Update: {
            TableName: tableName,
            Key: analysisEntity.key(ref),
            UpdateExpression: 'SET #source.duration_ms = :duration, #source.size_bytes = :size, updatedAt = :now',
            ExpressionAttributeNames: { '#source': 'source' },
            ExpressionAttributeValues: { ':duration': source.durationMs, ':size': source.sizeBytes, ':now': now },
          },
        },
      ]);
    },

    listAnalyses: (accountId, filter, page) =>
      queryPage(table, accountId, analysesFrom(accountId, filter.fromId), page, analysisEntity.record, { keep: filter.keep }),

    listRunObservations: (accountId, runId, page) =>
      queryPage(table, accountId, observationEntity.collection({ accountId, runId }), page, observationEntity.record, { order: 'oldestFirst' }),

    listAccountObservations: (accountId, filter, page) =>
      queryPage(table, accountId, accountObservationsFrom(accountId, filter.fromId), page, observationEntity.record, { keep: filter.keep }),

    // Every page: with their words (a moment of 10 minutes holds about 80 KB of them), 50 moments pass a query's 1 MB.
    listMoments: (accountId, analysisId) => queryAll(table, momentEntity.collection({ accountId, analysisId }), momentEntity.record),
  };
}
