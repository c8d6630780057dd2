import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { TableContext } from './query-page.js';
import { requestBucketEntity } from './entities/request-bucket.js';
import type { BucketMove, RequestBucketStore } from '../../domain/accounts/request-limits.js';

/**
 * Each move is one conditional UpdateItem on the account's bucket item. A refused condition
 * returns the item as it was (ReturnValuesOnConditionCheckFailure), so deciding again needs no read.
 */
export function dynamoRequestBucketStore(table: TableContext): RequestBucketStore {
  const move = async (accountId: string, update: string, condition: string, values: Record<string, unknown>): Promise<BucketMove> => {
    try {
      const { Attributes } = await table.doc.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: requestBucketEntity.key({ accountId }),
          UpdateExpression: update,
          ConditionExpression: condition,
          ExpressionAttributeValues: values,
          ReturnValues: 'UPDATED_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { moved: true, tat: Number(Attributes?.tat) };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const stored: unknown = error.Item?.tat?.N;
      return { moved: false, stored: stored === undefined ? undefined : Number(stored) };
    }
  };

  return {
    advance: (accountId, interval, now, latest) =>
      move(accountId, 'SET tat = tat + :interval', 'tat BETWEEN :now AND :latest', { ':interval': interval, ':now': now, ':latest': latest }),
    restart: (accountId, tat, now) =>
      move(accountId, 'SET tat = :tat, entity = :entity', 'attribute_not_exists(tat) OR tat < :now', {
        ':tat': tat,
        ':now': now,
        ':entity': requestBucketEntity.name,
      }),
  };
}
