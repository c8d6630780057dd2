import { createHash } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { IdClaims } from '../../domain/id-claims.js';
import { tableDefinition } from './definition.js';
import { conditionalWrite, getRecord } from './operations.js';
import type { TableContext } from './query-page.js';
import { idClaimEntity } from './entities/id-claim.js';

/**
 * Id claims in the owning account's partition, kept as long as idempotency records: a claim
 * whose time is up counts as absent even before DynamoDB's TTL deletes it, so a key reused
 * after the idempotency window creates new work, as Powertools would let it.
 */
export function dynamoIdClaims(table: TableContext, ttlSeconds: number, nowMs: () => number = Date.now): IdClaims {
  const ttl = tableDefinition.timeToLiveAttribute;
  return {
    async claim<T extends Record<string, string>>(accountId: string, purpose: string, idempotencyKey: string, proposed: T): Promise<T> {
      const claim = { accountId, purpose, keyHash: createHash('sha256').update(idempotencyKey).digest('hex') };
      const now = Math.floor(nowMs() / 1000);
      const claimed = await conditionalWrite(
        table,
        new PutCommand({
          TableName: table.tableName,
          Item: idClaimEntity.item(claim, proposed, now + ttlSeconds),
          ConditionExpression: 'attribute_not_exists(PK) OR #ttl < :now',
          ExpressionAttributeNames: { '#ttl': ttl },
          ExpressionAttributeValues: { ':now': now },
        }),
      );
      if (claimed) return proposed;
      const stored = await getRecord(table, idClaimEntity, claim);
      if (!stored) throw new Error(`Id claim ${idClaimEntity.key(claim).SK} vanished between its put and its read`);
      return stored as T;
    },
  };
}
