import { createHash } from 'node:crypto';
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { idempotencyRecordKeys } from './table/entities/idempotency-record.js';
import { tableDefinition } from './table/definition.js';

/** What identifies one idempotent call; `accountId` keeps keys of different accounts apart. */
export interface IdempotencyScope {
  accountId: string;
  idempotencyKey: string;
}

/**
 * Powertools' DynamoDB persistence layer, keyed into the owning account's partition
 * (`ACCT#<id>` / `IDEM#<sha256 of the key>`) so idempotency records obey the single-table rule
 * that every partition starts with the account.
 */
export class AccountScopedPersistenceLayer extends DynamoDBPersistenceLayer {
  constructor(client: DynamoDBClient, tableName: string) {
    super({
      tableName,
      awsSdkV3Client: client,
      keyAttr: tableDefinition.partitionKey,
      sortKeyAttr: tableDefinition.sortKey,
      expiryAttr: tableDefinition.timeToLiveAttribute,
    });
  }

  protected override getHashedIdempotencyKey(data: unknown): string {
    const { accountId, idempotencyKey } = data as IdempotencyScope;
    return `${accountId}#${createHash('sha256').update(idempotencyKey).digest('hex')}`;
  }

  protected override getKey(idempotencyKey: string): Record<string, AttributeValue> {
    const separator = idempotencyKey.indexOf('#');
    const key = idempotencyRecordKeys.key({ accountId: idempotencyKey.slice(0, separator), scopedKey: idempotencyKey.slice(separator + 1) });
    return { [tableDefinition.partitionKey]: { S: key.PK }, [tableDefinition.sortKey]: { S: key.SK } };
  }
}
