import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { TableContext } from './query-page.js';
import { signInLinkEntity } from './entities/sign-in-link.js';
import type { SignInLinkStore } from '../../domain/accounts/sign-in-links.js';

export function dynamoSignInLinkStore({ doc, tableName }: Pick<TableContext, 'doc' | 'tableName'>): SignInLinkStore {
  return {
    async put(link) {
      await doc.send(new PutCommand({ TableName: tableName, Item: signInLinkEntity.item(link), ConditionExpression: 'attribute_not_exists(PK)' }));
    },
    async consume(tokenHash, now) {
      try {
        // One conditional delete: of two uses, exactly one finds the item (TTL deletion lags, so expiry is checked here).
        const result = await doc.send(
          new DeleteCommand({
            TableName: tableName,
            Key: signInLinkEntity.key({ tokenHash }),
            ConditionExpression: 'attribute_exists(PK) AND expiresAt > :now',
            ExpressionAttributeValues: { ':now': now },
            ReturnValues: 'ALL_OLD',
          }),
        );
        return result.Attributes?.accountId as string | undefined;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return undefined;
        throw error;
      }
    },
  };
}
