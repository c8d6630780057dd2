import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { TableContext } from './query-page.js';
import { getItem, getRecord } from './operations.js';
import { consoleOwnerEntity, consoleSessionEntity } from './entities/console-session.js';
import type { ConsoleSessionStore, OwnerStanding } from '../../domain/console/sessions.js';

const standingOf = (item: Record<string, unknown> | undefined): OwnerStanding => ({
  generation: Number(item?.generation ?? 0),
  disabled: item?.disabled === true,
});

/** Console sessions and owners' standings in the service table; reads are strongly consistent (getItem). */
export function dynamoConsoleSessionStore(table: TableContext): ConsoleSessionStore {
  return {
    async put(session) {
      await table.doc.send(
        new PutCommand({ TableName: table.tableName, Item: consoleSessionEntity.item(session), ConditionExpression: 'attribute_not_exists(PK)' }),
      );
    },
    find: (sessionId) => getRecord(table, consoleSessionEntity, { sessionId }),
    async delete(sessionId) {
      await table.doc.send(new DeleteCommand({ TableName: table.tableName, Key: consoleSessionEntity.key({ sessionId }) }));
    },
    standing: async (owner) => standingOf(await getItem(table, consoleOwnerEntity.key({ owner }))),
    async endOwnerSessions(owner, disabled) {
      const { Attributes } = await table.doc.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: consoleOwnerEntity.key({ owner }),
          UpdateExpression: `ADD generation :one SET entity = :entity${disabled === undefined ? '' : ', disabled = :disabled'}`,
          ExpressionAttributeValues: { ':one': 1, ':entity': consoleOwnerEntity.name, ...(disabled === undefined ? {} : { ':disabled': disabled }) },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return standingOf(Attributes);
    },
  };
}
