import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { queryPage, type TableContext } from './query-page.js';
import { conditionalWrite, getRecord, transact } from './operations.js';
import { outboxPuts } from './outbox.js';
import { accountEntity } from './entities/account.js';
import { renderEntity } from './entities/render.js';
import type { RenderStore } from '../../domain/renders/model.js';

/** A render is written to until it settles; then it never changes again. */
const UNSETTLED = '#status IN (:queued, :processing)';
const unsettledValues = { ':queued': 'queued', ':processing': 'processing' };

export function dynamoRenderStore(table: TableContext): RenderStore {
  const { tableName } = table;

  return {
    async create(render, proofAllowanceMs) {
      const outcome = await transact(table, [
        {
          Put: {
            TableName: tableName,
            Item: renderEntity.item(render),
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
        // DESIGN 5: proof renders draw on a per-account counter that never passes the allowance.
        ...(render.proofMs > 0
          ? [
              {
                Update: {
                  TableName: tableName,
                  Key: accountEntity.key(render),
                  UpdateExpression: 'SET proofRenderMs = if_not_exists(proofRenderMs, :zero) + :ms, updatedAt = :now',
                  ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(proofRenderMs) OR proofRenderMs <= :room)',
                  ExpressionAttributeValues: { ':zero': 0, ':ms': render.proofMs, ':room': proofAllowanceMs - render.proofMs, ':now': render.createdAt },
                },
              },
            ]
          : []),
      ]);
      if (outcome.ok) return 'created';
      return outcome.failedIndex === 0 ? 'already_created' : 'proof_allowance_exhausted';
    },

    get: (accountId, renderId) => getRecord(table, renderEntity, { accountId, renderId }),

    list: (accountId, page) => queryPage(table, accountId, renderEntity.collection({ accountId }), page, renderEntity.record),

    markProcessing: (ref, now) =>
      conditionalWrite(
        table,
        new UpdateCommand({
          TableName: tableName,
          Key: renderEntity.key(ref),
          UpdateExpression: 'SET #status = :processing, updatedAt = :now',
          ConditionExpression: '#status = :queued',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':queued': 'queued', ':processing': 'processing', ':now': now },
        }),
      ),

    putAsset: (ref, asset, now) =>
      conditionalWrite(
        table,
        new UpdateCommand({
          TableName: tableName,
          Key: renderEntity.key(ref),
          // One map key per moment: concurrent moment tasks never overwrite each other's asset.
          UpdateExpression: 'SET assets.#moment = :asset, updatedAt = :now',
          ConditionExpression: UNSETTLED,
          ExpressionAttributeNames: { '#status': 'status', '#moment': asset.momentId },
          ExpressionAttributeValues: { ':asset': asset, ':now': now, ...unsettledValues },
        }),
      ),

    async settle(render, announcements, now) {
      const outcome = await transact(table, [
        {
          Update: {
            TableName: tableName,
            Key: renderEntity.key(render),
            UpdateExpression: 'SET #status = :status, assets = :assets, #error = :error, updatedAt = :now',
            ConditionExpression: UNSETTLED,
            ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
            ExpressionAttributeValues: { ':status': render.status, ':assets': render.assets, ':error': render.error, ':now': now, ...unsettledValues },
          },
        },
        ...outboxPuts(table, render.accountId, announcements),
      ]);
      return outcome.ok;
    },
  };
}
