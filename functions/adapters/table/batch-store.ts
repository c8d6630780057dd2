import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { queryPage, type TableContext } from './query-page.js';
import { conditionalWrite, getRecord, putAll, transact, type TransactItems } from './operations.js';
import { outboxPuts } from './outbox.js';
import { batchEntity } from './entities/batch.js';
import { batchItemEntity } from './entities/batch-item.js';
import { runEntity } from './entities/run.js';
import { itemTransitions, type BatchItemRecord, type ItemTransition } from '../../domain/batches/model.js';
import { type BatchItemRef } from '../../domain/runs/model.js';
import type { BatchStore, ItemChanges } from '../../domain/batches/ports.js';

/**
 * The two writes of one item transition (docs/batches.md): the item moves only from the state
 * the transition names, and the batch's counters move with it. A spawn also requires the batch
 * not to be canceling. Run creation puts these into its own transaction.
 */
export function itemTransitionWrites(table: TableContext, ref: BatchItemRef, transition: ItemTransition, changes: ItemChanges, now: string): TransactItems {
  const { from, to } = itemTransitions[transition];
  const recorded = Object.entries(changes).filter(([, value]) => value !== undefined);
  return [
    {
      Update: {
        TableName: table.tableName,
        Key: batchItemEntity.key(ref),
        UpdateExpression: ['SET #status = :to, updatedAt = :now', ...recorded.map(([name]) => `#${name} = :${name}`)].join(', '),
        ConditionExpression: '#status = :from',
        ExpressionAttributeNames: { '#status': 'status', ...Object.fromEntries(recorded.map(([name]) => [`#${name}`, name])) },
        ExpressionAttributeValues: { ':to': to, ':from': from, ':now': now, ...Object.fromEntries(recorded.map(([name, value]) => [`:${name}`, value])) },
      },
    },
    {
      Update: {
        TableName: table.tableName,
        Key: batchEntity.key(ref),
        UpdateExpression: 'SET counters.#from = counters.#from - :one, counters.#to = counters.#to + :one, updatedAt = :now',
        ...(transition === 'spawn' ? { ConditionExpression: 'cancelRequested = :no' } : {}),
        ExpressionAttributeNames: { '#from': from, '#to': to },
        ExpressionAttributeValues: { ':one': 1, ':now': now, ...(transition === 'spawn' ? { ':no': false } : {}) },
      },
    },
  ];
}

export function dynamoBatchStore(table: TableContext): BatchStore {
  const { doc, tableName } = table;

  return {
    async create(batch, items) {
      await putAll(
        table,
        items.map((item) => batchItemEntity.item(item)),
      );
      await doc.send(
        new PutCommand({
          TableName: tableName,
          Item: batchEntity.item(batch),
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
    },

    get: (accountId, batchId) => getRecord(table, batchEntity, { accountId, batchId }),

    list: (accountId, page) => queryPage(table, accountId, batchEntity.collection({ accountId }), page, batchEntity.record),

    getItem: (ref) => getRecord(table, batchItemEntity, ref),

    async listItems(accountId, batchId, offset, limit) {
      const { PK, prefix } = batchItemEntity.collection({ accountId, batchId });
      const items: BatchItemRecord[] = [];
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await doc.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
            ExpressionAttributeValues: { ':pk': PK, ':from': batchItemEntity.key({ accountId, batchId, index: offset }).SK, ':to': `${prefix}\uffff` },
            Limit: limit - items.length,
            ConsistentRead: true,
            ExclusiveStartKey: startKey,
          }),
        );
        items.push(...(page.Items ?? []).map(batchItemEntity.record));
        startKey = page.LastEvaluatedKey;
      } while (startKey && items.length < limit);
      return items;
    },

    async transition(ref, transition, changes, now) {
      return (await transact(table, itemTransitionWrites(table, ref, transition, changes, now))).ok;
    },

    requestCancel: (ref, now) =>
      conditionalWrite(
        table,
        new UpdateCommand({
          TableName: tableName,
          Key: batchEntity.key(ref),
          UpdateExpression: 'SET cancelRequested = :yes, updatedAt = :now',
          ConditionExpression: 'attribute_exists(PK) AND completedAt = :null',
          ExpressionAttributeValues: { ':yes': true, ':now': now, ':null': null },
        }),
      ),

    async awaitRun(ref, runId, taskToken) {
      const outcome = await transact(table, [
        {
          // Only a run still going will wake the item; an ended one is woken by the caller.
          ConditionCheck: {
            TableName: tableName,
            Key: runEntity.key({ accountId: ref.accountId, runId }),
            ConditionExpression: 'NOT #status IN (:completed, :failed)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':completed': 'completed', ':failed': 'failed' },
          },
        },
        {
          Update: {
            TableName: tableName,
            Key: batchItemEntity.key(ref),
            UpdateExpression: 'SET taskToken = :token',
            ExpressionAttributeValues: { ':token': taskToken },
          },
        },
      ]);
      return outcome.ok;
    },

    markCompleted: async (ref, now, announcements) =>
      (
        await transact(table, [
          {
            Update: {
              TableName: tableName,
              Key: batchEntity.key(ref),
              UpdateExpression: 'SET completedAt = :now, updatedAt = :now',
              ConditionExpression: 'completedAt = :null',
              ExpressionAttributeValues: { ':now': now, ':null': null },
            },
          },
          ...outboxPuts(table, ref.accountId, announcements),
        ])
      ).ok,
  };
}
