/**
 * Console sessions and owners' standings in the table (functions/adapters/table/console-session-store.ts):
 * what each operation writes and reads, DynamoDB mocked.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoConsoleSessionStore } from '../../../../functions/adapters/table/console-session-store.js';
import { ACCOUNT_ID, TABLE_NAME } from '../../../helpers/unit-fixtures.js';

const ddb = mockClient(DynamoDBDocumentClient);
const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));
const store = dynamoConsoleSessionStore({ doc, tableName: TABLE_NAME, cursors: () => Promise.reject(new Error('no lists')) });

const SESSION_ID = 'f'.repeat(64);
const session = { sessionId: SESSION_ID, accountId: ACCOUNT_ID, owner: 'sub-1', generation: 2, createdAt: 1_800_000_000_000, expiresAt: 1_800_043_200_000 };
const ownerKey = { PK: 'CONSOLEOWNER#sub-1', SK: 'CONSOLEOWNER' };

beforeEach(() => ddb.reset());
afterAll(() => ddb.restore());

describe('dynamoConsoleSessionStore', () => {
  it('writes a session once, by its id, with its expiry as the TTL (seconds), and reads it back strongly consistent', async () => {
    ddb.on(PutCommand).resolves({});
    await store.put(session);
    const put = ddb.commandCalls(PutCommand)[0]!.args[0].input;
    expect(put).toMatchObject({
      ConditionExpression: 'attribute_not_exists(PK)',
      Item: { PK: `CONSOLESESSION#${SESSION_ID}`, SK: 'CONSOLESESSION', ttl: 1_800_043_200 },
    });
    ddb.on(GetCommand).resolves({ Item: put.Item });
    expect(await store.find(SESSION_ID)).toEqual(session);
    expect(ddb.commandCalls(GetCommand)[0]!.args[0].input).toMatchObject({
      ConsistentRead: true,
      Key: { PK: `CONSOLESESSION#${SESSION_ID}`, SK: 'CONSOLESESSION' },
    });
  });

  it('signs out by deleting the item', async () => {
    ddb.on(DeleteCommand).resolves({});
    await store.delete(SESSION_ID);
    expect(ddb.commandCalls(DeleteCommand)[0]!.args[0].input.Key).toEqual({ PK: `CONSOLESESSION#${SESSION_ID}`, SK: 'CONSOLESESSION' });
  });

  it('reads an owner nothing was ever done to as generation 0 and enabled', async () => {
    ddb.on(GetCommand).resolves({});
    expect(await store.standing('sub-1')).toEqual({ generation: 0, disabled: false });
  });

  it("ends an owner's sessions with one update that moves the generation on, setting disabled only when told", async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: { ...ownerKey, generation: 3, disabled: true } });
    expect(await store.endOwnerSessions('sub-1', true)).toEqual({ generation: 3, disabled: true });
    await store.endOwnerSessions('sub-1');
    const [disabling, signingOut] = ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(disabling).toMatchObject({
      Key: ownerKey,
      UpdateExpression: 'ADD generation :one SET entity = :entity, disabled = :disabled',
      ReturnValues: 'ALL_NEW',
    });
    expect(disabling!.ExpressionAttributeValues).toEqual({ ':one': 1, ':entity': 'console_owner', ':disabled': true });
    expect(signingOut!.UpdateExpression).toBe('ADD generation :one SET entity = :entity');
  });
});
