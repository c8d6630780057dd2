import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { collections, keys, type TableKey } from './keys.js';
import { queryAll, type TableContext } from './query-page.js';
import { getRecord, transact } from './operations.js';
import type { CapacityWaiter, SlotQueueEntry, SlotStore } from '../../domain/runs/ports.js';

/** The queue entry a run is created with (written in the run's own creation transaction). */
export const slotQueueEntryItem = (accountId: string, runId: string, analysisId: string) => ({
  ...keys.slotQueueEntry(accountId, runId),
  entity: 'slot_queue_entry',
  accountId,
  runId,
  analysisId,
});

export function dynamoSlotStore(table: TableContext): SlotStore {
  const { doc, tableName } = table;

  const countQueue = async (accountId: string, upToSk?: string): Promise<number> => {
    const { PK, prefix } = collections.slotQueue(accountId);
    let count = 0;
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await doc.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: upToSk ? 'PK = :pk AND SK BETWEEN :prefix AND :upTo' : 'PK = :pk AND begins_with(SK, :prefix)',
          ExpressionAttributeValues: { ':pk': PK, ':prefix': prefix, ...(upToSk ? { ':upTo': upToSk } : {}) },
          Select: 'COUNT',
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      count += page.Count ?? 0;
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return count;
  };

  return {
    async awaitSlot(ref, taskToken) {
      const outcome = await transact(table, [
        {
          // Only a run still waiting may (re)arm its entry: a granted run's entry is gone for good.
          ConditionCheck: {
            TableName: tableName,
            Key: keys.run(ref.accountId, ref.runId),
            ConditionExpression: '#status = :queued AND attribute_not_exists(slot)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':queued': 'queued' },
          },
        },
        { Put: { TableName: tableName, Item: { ...slotQueueEntryItem(ref.accountId, ref.runId, ref.analysisId), taskToken } } },
      ]);
      return outcome.ok;
    },

    async oldestWaiting(accountId) {
      const { PK, prefix } = collections.slotQueue(accountId);
      const page = await doc.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
          ExpressionAttributeValues: { ':pk': PK, ':prefix': prefix },
          Limit: 1,
          ConsistentRead: true,
        }),
      );
      const item = page.Items?.[0] as (SlotQueueEntry & { taskToken?: string }) | undefined;
      return item && { runId: item.runId, analysisId: item.analysisId, taskToken: item.taskToken ?? null };
    },

    async grant(accountId, entry, limits, now) {
      const outcome = await transact(table, [
        {
          Update: {
            TableName: tableName,
            Key: keys.account(accountId),
            UpdateExpression: 'SET concurrencyInUse = if_not_exists(concurrencyInUse, :zero) + :one, lastGrantedAt = :now, updatedAt = :now',
            ConditionExpression: 'attribute_not_exists(concurrencyInUse) OR concurrencyInUse < :limit',
            ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':limit': limits.account, ':now': now },
          },
        },
        {
          Update: {
            TableName: tableName,
            Key: keys.admittedRuns(),
            UpdateExpression: 'SET admitted = if_not_exists(admitted, :zero) + :one, updatedAt = :now',
            ConditionExpression: 'attribute_not_exists(admitted) OR admitted < :capacity',
            ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':capacity': limits.capacity, ':now': now },
          },
        },
        {
          // The entry exactly as read: if its workflow armed a new token meanwhile, read again,
          // so that the token woken is always the one the workflow waits on.
          Delete: {
            TableName: tableName,
            Key: keys.slotQueueEntry(accountId, entry.runId),
            ConditionExpression: entry.taskToken ? 'taskToken = :token' : 'attribute_exists(PK) AND attribute_not_exists(taskToken)',
            ...(entry.taskToken ? { ExpressionAttributeValues: { ':token': entry.taskToken } } : {}),
          },
        },
        {
          Update: {
            TableName: tableName,
            Key: keys.run(accountId, entry.runId),
            UpdateExpression: 'SET #status = :dispatched, slot = :held, #capacity = :held, updatedAt = :now',
            ConditionExpression: '#status = :queued AND attribute_not_exists(slot)',
            ExpressionAttributeNames: { '#status': 'status', '#capacity': 'capacity' },
            ExpressionAttributeValues: { ':dispatched': 'dispatched', ':queued': 'queued', ':held': 'held', ':now': now },
          },
        },
        {
          // The analysis shows the same step (the run's condition above already excludes a canceled one).
          Update: {
            TableName: tableName,
            Key: keys.analysis(accountId, entry.analysisId),
            UpdateExpression: 'SET #status = :dispatched, updatedAt = :now',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':dispatched': 'dispatched', ':now': now },
          },
        },
      ]);
      if (outcome.ok) return 'granted';
      return (['account_full', 'capacity_full', 'entry_changed', 'run_not_waiting'] as const)[outcome.failedIndex] ?? 'entry_changed';
    },

    async waitingEntry(accountId, runId) {
      const item = await getRecord<SlotQueueEntry & { taskToken?: string }>(table, keys.slotQueueEntry(accountId, runId));
      return item && { runId: item.runId, analysisId: item.analysisId, taskToken: item.taskToken ?? null };
    },

    async dropEntry(accountId, runId) {
      await doc.send(new DeleteCommand({ TableName: tableName, Key: keys.slotQueueEntry(accountId, runId) }));
    },

    async release(ref, now) {
      // Two transactions, each conditioned on the run's own state: a run granted before admission
      // existed holds no capacity and gives none back; a repeat after a crash finishes the other.
      const giveBack = (attribute: 'slot' | 'capacity', counter: { key: TableKey; attribute: string }) =>
        transact(table, [
          {
            Update: {
              TableName: tableName,
              Key: keys.run(ref.accountId, ref.runId),
              UpdateExpression: 'SET #held = :released, updatedAt = :now',
              ConditionExpression: '#held = :held',
              ExpressionAttributeNames: { '#held': attribute },
              ExpressionAttributeValues: { ':released': 'released', ':held': 'held', ':now': now },
            },
          },
          {
            Update: {
              TableName: tableName,
              Key: counter.key,
              UpdateExpression: 'SET #count = #count - :one, updatedAt = :now',
              ExpressionAttributeNames: { '#count': counter.attribute },
              ExpressionAttributeValues: { ':one': 1, ':now': now },
            },
          },
        ]);
      const slot = await giveBack('slot', { key: keys.account(ref.accountId), attribute: 'concurrencyInUse' });
      const capacity = await giveBack('capacity', { key: keys.admittedRuns(), attribute: 'admitted' });
      return slot.ok || capacity.ok;
    },

    async queuePosition(accountId, runId) {
      const own = keys.slotQueueEntry(accountId, runId);
      if (!(await getRecord(table, own))) return null;
      return countQueue(accountId, own.SK);
    },

    countWaiting: (accountId) => countQueue(accountId),

    async slotUse(accountId) {
      const account = await getRecord<{ concurrencyInUse?: number; lastGrantedAt?: string }>(table, keys.account(accountId));
      return { inUse: account?.concurrencyInUse ?? 0, lastGrantedAt: account?.lastGrantedAt ?? null };
    },

    async recountCapacity(admitted, now) {
      await doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keys.admittedRuns(),
          UpdateExpression: 'SET admitted = :admitted, updatedAt = :now',
          ExpressionAttributeValues: { ':admitted': admitted, ':now': now },
        }),
      );
    },

    async markCapacityWaiter(accountId) {
      await doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keys.capacityWaiter(accountId),
          UpdateExpression: 'SET #entity = :entity, accountId = :accountId ADD #mark :one',
          ExpressionAttributeNames: { '#entity': 'entity', '#mark': 'mark' },
          ExpressionAttributeValues: { ':entity': 'capacity_waiter', ':accountId': accountId, ':one': 1 },
        }),
      );
    },

    capacityWaiters: () => queryAll(table, collections.capacityWaiters(), (item) => ({ accountId: item.accountId, mark: item.mark }) as CapacityWaiter),

    async clearCapacityWaiter(waiter) {
      try {
        await doc.send(
          new DeleteCommand({
            TableName: tableName,
            Key: keys.capacityWaiter(waiter.accountId),
            ConditionExpression: '#mark = :mark',
            ExpressionAttributeNames: { '#mark': 'mark' },
            ExpressionAttributeValues: { ':mark': waiter.mark },
          }),
        );
      } catch (error) {
        // Marked again since it was read: a run of the account started waiting meanwhile.
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    },

    async recount(accountId, inUse, now) {
      await doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keys.account(accountId),
          UpdateExpression: 'SET concurrencyInUse = :inUse, updatedAt = :now',
          ExpressionAttributeValues: { ':inUse': inUse, ':now': now },
        }),
      );
    },
  };
}
