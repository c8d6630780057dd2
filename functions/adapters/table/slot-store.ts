import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { TableKey } from './keys.js';
import { queryAll, type TableContext } from './query-page.js';
import { getItem, getRecord, transact } from './operations.js';
import { accountEntity } from './entities/account.js';
import { admittedRunsKeys } from './entities/admitted-runs.js';
import { analysisEntity } from './entities/analysis.js';
import { capacityWaiterEntity } from './entities/capacity-waiter.js';
import { runEntity } from './entities/run.js';
import { slotQueueEntryEntity } from './entities/slot-queue-entry.js';
import type { SlotStore } from '../../domain/runs/ports.js';

export function dynamoSlotStore(table: TableContext): SlotStore {
  const { doc, tableName } = table;

  const countQueue = async (accountId: string, upToSk?: string): Promise<number> => {
    const { PK, prefix } = slotQueueEntryEntity.collection({ accountId });
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
            Key: runEntity.key(ref),
            ConditionExpression: '#status = :queued AND attribute_not_exists(slot)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':queued': 'queued' },
          },
        },
        { Put: { TableName: tableName, Item: slotQueueEntryEntity.item(ref, taskToken) } },
      ]);
      return outcome.ok;
    },

    async oldestWaiting(accountId) {
      const { PK, prefix } = slotQueueEntryEntity.collection({ accountId });
      const page = await doc.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
          ExpressionAttributeValues: { ':pk': PK, ':prefix': prefix },
          Limit: 1,
          ConsistentRead: true,
        }),
      );
      const item = page.Items?.[0];
      return item && slotQueueEntryEntity.record(item);
    },

    async grant(accountId, entry, limits, now) {
      const outcome = await transact(table, [
        {
          Update: {
            TableName: tableName,
            Key: accountEntity.key({ accountId }),
            UpdateExpression: 'SET concurrencyInUse = if_not_exists(concurrencyInUse, :zero) + :one, lastGrantedAt = :now, updatedAt = :now',
            ConditionExpression: 'attribute_not_exists(concurrencyInUse) OR concurrencyInUse < :limit',
            ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':limit': limits.account, ':now': now },
          },
        },
        {
          Update: {
            TableName: tableName,
            Key: admittedRunsKeys.key({}),
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
            Key: slotQueueEntryEntity.key({ accountId, runId: entry.runId }),
            ConditionExpression: entry.taskToken ? 'taskToken = :token' : 'attribute_exists(PK) AND attribute_not_exists(taskToken)',
            ...(entry.taskToken ? { ExpressionAttributeValues: { ':token': entry.taskToken } } : {}),
          },
        },
        {
          Update: {
            TableName: tableName,
            Key: runEntity.key({ accountId, runId: entry.runId }),
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
            Key: analysisEntity.key({ accountId, analysisId: entry.analysisId }),
            UpdateExpression: 'SET #status = :dispatched, updatedAt = :now',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':dispatched': 'dispatched', ':now': now },
          },
        },
      ]);
      if (outcome.ok) return 'granted';
      return (['account_full', 'capacity_full', 'entry_changed', 'run_not_waiting'] as const)[outcome.failedIndex] ?? 'entry_changed';
    },

    waitingEntry: (accountId, runId) => getRecord(table, slotQueueEntryEntity, { accountId, runId }),

    async dropEntry(accountId, runId) {
      await doc.send(new DeleteCommand({ TableName: tableName, Key: slotQueueEntryEntity.key({ accountId, runId }) }));
    },

    async release(ref, now) {
      // Two transactions, each conditioned on the run's own state: a run granted before admission
      // existed holds no capacity and gives none back; a repeat after a crash finishes the other.
      const giveBack = (attribute: 'slot' | 'capacity', counter: { key: TableKey; attribute: string }) =>
        transact(table, [
          {
            Update: {
              TableName: tableName,
              Key: runEntity.key(ref),
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
      const slot = await giveBack('slot', { key: accountEntity.key(ref), attribute: 'concurrencyInUse' });
      const capacity = await giveBack('capacity', { key: admittedRunsKeys.key({}), attribute: 'admitted' });
      return slot.ok || capacity.ok;
    },

    async queuePosition(accountId, runId) {
      const own = slotQueueEntryEntity.key({ accountId, runId });
      if (!(await getItem(table, own))) return null;
      return countQueue(accountId, own.SK);
    },

    countWaiting: (accountId) => countQueue(accountId),

    async slotUse(accountId) {
      // lastGrantedAt is scheduling state, not part of the account record.
      const account = (await getItem(table, accountEntity.key({ accountId }))) as { concurrencyInUse?: number; lastGrantedAt?: string } | undefined;
      return { inUse: account?.concurrencyInUse ?? 0, lastGrantedAt: account?.lastGrantedAt ?? null };
    },

    async recountCapacity(admitted, now) {
      await doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key: admittedRunsKeys.key({}),
          UpdateExpression: 'SET admitted = :admitted, updatedAt = :now',
          ExpressionAttributeValues: { ':admitted': admitted, ':now': now },
        }),
      );
    },

    async markCapacityWaiter(accountId) {
      await doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key: capacityWaiterEntity.key({ accountId }),
          UpdateExpression: 'SET #entity = :entity, accountId = :accountId ADD #mark :one',
          ExpressionAttributeNames: { '#entity': 'entity', '#mark': 'mark' },
          ExpressionAttributeValues: { ':entity': capacityWaiterEntity.name, ':accountId': accountId, ':one': 1 },
        }),
      );
    },

    capacityWaiters: () => queryAll(table, capacityWaiterEntity.collection({}), capacityWaiterEntity.record),

    async clearCapacityWaiter(waiter) {
      try {
        await doc.send(
          new DeleteCommand({
            TableName: tableName,
            Key: capacityWaiterEntity.key(waiter),
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
          Key: accountEntity.key({ accountId }),
          UpdateExpression: 'SET concurrencyInUse = :inUse, updatedAt = :now',
          ExpressionAttributeValues: { ':inUse': inUse, ':now': now },
        }),
      );
    },
  };
}
