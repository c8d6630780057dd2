import { createHash } from 'node:crypto';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoAccountStore } from '../../../../functions/adapters/table/account-store.js';
import { CursorCodec } from '../../../../functions/adapters/table/cursor.js';
import { createAccount } from '../../../../functions/domain/accounts/accounts.js';
import type { ApiKeyRecord, LedgerEntry } from '../../../../functions/domain/accounts/model.js';
import { ACCOUNT_ID, CURSOR_SECRET, TABLE_NAME, testAccount } from '../../../helpers/unit-fixtures.js';

const ddb = mockClient(DynamoDBDocumentClient);
const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));
const store = dynamoAccountStore({ doc, tableName: TABLE_NAME, cursors: () => Promise.resolve(new CursorCodec(CURSOR_SECRET)) });

const KEY_HASH = createHash('sha256').update('sk_live_example').digest('hex');
const keyRecord: ApiKeyRecord = { keyHash: KEY_HASH, accountId: ACCOUNT_ID, createdAt: '2026-01-01T00:00:00.000Z', lastUsedAt: null, revokedAt: null };
const NOW = '2026-03-01T00:00:00.000Z';
const entry: LedgerEntry = { entryId: 'led_0190a0b0c0d07e0f8a9b0c1d2e3f4a5b', credits: 30, reason: 'credits_added', createdAt: '2026-02-01T00:00:00.000Z' };

beforeEach(() => ddb.reset());
afterAll(() => ddb.restore());

/** Every item a transaction writes or updates, with its key. */
const transactKeys = (input: { TransactItems?: { Put?: { Item?: Record<string, unknown> }; Update?: { Key?: Record<string, unknown> } }[] | undefined }) =>
  (input.TransactItems ?? []).map((t) => {
    const key = t.Put?.Item ?? t.Update?.Key ?? {};
    return { PK: String(key.PK), SK: String(key.SK) };
  });

describe('dynamoAccountStore.createAccount', () => {
  it('writes account, API key and opening ledger entry in one conditional transaction', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    const { account, apiKey } = await createAccount(store, { plan: 'creator', credits: 500 });

    const calls = ddb.commandCalls(TransactWriteCommand);
    expect(calls).toHaveLength(1);
    const input = calls[0]!.args[0].input;
    const items = input.TransactItems ?? [];
    expect(items).toHaveLength(3);
    for (const item of items) {
      expect(item.Put?.TableName).toBe(TABLE_NAME);
      expect(item.Put?.ConditionExpression).toBe('attribute_not_exists(PK)');
    }

    const hash = createHash('sha256').update(apiKey).digest('hex');
    const written = transactKeys(input);
    expect(written[0]).toEqual({ PK: `ACCT#${account.accountId}`, SK: 'ACCOUNT' });
    expect(written[1]).toEqual({ PK: `APIKEY#${hash}`, SK: 'APIKEY' });
    expect(written[2]?.PK).toBe(`ACCT#${account.accountId}`);
    expect(written[2]?.SK).toMatch(/^LEDGER#led_[0-9a-f]{32}$/);
    // The API-key lookup is the one partition that does not start with the account.
    expect(written.filter((k) => !k.PK.startsWith('ACCT#')).map((k) => k.PK)).toEqual([`APIKEY#${hash}`]);

    // The key itself is never written: only its hash.
    expect(JSON.stringify(input)).not.toContain(apiKey);
    expect(items[0]?.Put?.Item).toMatchObject({ entity: 'account', plan: 'creator', creditsBalance: 500 });
    // An empty string set cannot be stored: the account item leaves trustedHosts out.
    expect(items[0]?.Put?.Item).not.toHaveProperty('trustedHosts');
    expect(items[1]?.Put?.Item).toMatchObject({ entity: 'api_key', keyHash: hash, accountId: account.accountId, name: 'default', prefix: apiKey.slice(0, 12) });
    // Not revoked, never used: neither time is stored, so the conditions on them read attribute_not_exists.
    expect(items[1]?.Put?.Item).not.toHaveProperty('revokedAt');
    expect(items[1]?.Put?.Item).not.toHaveProperty('lastUsedAt');
    expect(items[2]?.Put?.Item).toMatchObject({ entity: 'ledger', accountId: account.accountId, credits: 500, reason: 'account_opened' });
  });
});

describe('dynamoAccountStore reads', () => {
  it('finds an API key by the APIKEY#<hash> key and strips table attributes', async () => {
    ddb.on(GetCommand).resolves({ Item: { PK: `APIKEY#${KEY_HASH}`, SK: 'APIKEY', entity: 'api_key', ...keyRecord } });
    await expect(store.findApiKey(KEY_HASH)).resolves.toEqual(keyRecord);
    expect(ddb.commandCalls(GetCommand)[0]!.args[0].input).toEqual({
      TableName: TABLE_NAME,
      Key: { PK: `APIKEY#${KEY_HASH}`, SK: 'APIKEY' },
      ConsistentRead: true,
    });
  });

  it('answers undefined for an unknown key or account', async () => {
    ddb.on(GetCommand).resolves({});
    await expect(store.findApiKey(KEY_HASH)).resolves.toBeUndefined();
    await expect(store.getAccount(ACCOUNT_ID)).resolves.toBeUndefined();
  });

  it('reads the account from ACCT#<id>/ACCOUNT and turns the stored host set into a sorted list', async () => {
    const { trustedHosts: _hosts, ...stored } = testAccount();
    ddb.on(GetCommand).resolves({
      Item: { PK: `ACCT#${ACCOUNT_ID}`, SK: 'ACCOUNT', entity: 'account', ttl: 1, ...stored, trustedHosts: new Set(['b.example.com', 'a.example.com']) },
    });
    const account = await store.getAccount(ACCOUNT_ID);
    expect(account).toEqual(testAccount({ trustedHosts: ['a.example.com', 'b.example.com'] }));
    expect(ddb.commandCalls(GetCommand)[0]!.args[0].input.Key).toEqual({ PK: `ACCT#${ACCOUNT_ID}`, SK: 'ACCOUNT' });
  });

  it('reads an account without hosts as an empty list', async () => {
    const { trustedHosts: _hosts, ...stored } = testAccount();
    ddb.on(GetCommand).resolves({ Item: { PK: `ACCT#${ACCOUNT_ID}`, SK: 'ACCOUNT', ...stored } });
    await expect(store.getAccount(ACCOUNT_ID)).resolves.toMatchObject({ trustedHosts: [] });
  });
});

describe('dynamoAccountStore keys', () => {
  it('adds a key only where none exists', async () => {
    ddb.on(PutCommand).resolves({});
    await store.addApiKey(keyRecord);
    const input = ddb.commandCalls(PutCommand)[0]!.args[0].input;
    expect(input.Item).toMatchObject({ PK: `APIKEY#${KEY_HASH}`, SK: 'APIKEY', keyHash: KEY_HASH, accountId: ACCOUNT_ID });
    expect(input.ConditionExpression).toBe('attribute_not_exists(PK)');
  });

  it('revokes an existing key and reports false for an unknown one', async () => {
    ddb
      .on(UpdateCommand)
      .resolvesOnce({})
      .rejectsOnce(new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} }));
    await expect(store.revokeApiKey(KEY_HASH, NOW)).resolves.toBe(true);
    await expect(store.revokeApiKey(KEY_HASH, NOW)).resolves.toBe(false);
    const input = ddb.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input.Key).toEqual({ PK: `APIKEY#${KEY_HASH}`, SK: 'APIKEY' });
    expect(input.ConditionExpression).toBe('attribute_exists(PK)');
    expect(input.UpdateExpression).toBe('SET revokedAt = if_not_exists(revokedAt, :now)');
    expect(input.ExpressionAttributeValues).toEqual({ ':now': NOW });
  });

  it('does not swallow other failures while revoking', async () => {
    ddb.on(UpdateCommand).rejects(new Error('ProvisionedThroughputExceededException'));
    await expect(store.revokeApiKey(KEY_HASH, NOW)).rejects.toThrow('ProvisionedThroughputExceededException');
  });
});

describe('dynamoAccountStore.addCredits', () => {
  it('adds to the balance and writes the ledger entry in one transaction, both under the account', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    ddb.on(GetCommand).resolves({ Item: { PK: `ACCT#${ACCOUNT_ID}`, SK: 'ACCOUNT', creditsBalance: 130 } });
    await expect(store.addCredits(ACCOUNT_ID, entry)).resolves.toBe(130);

    const input = ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input;
    expect(transactKeys(input)).toEqual([
      { PK: `ACCT#${ACCOUNT_ID}`, SK: 'ACCOUNT' },
      { PK: `ACCT#${ACCOUNT_ID}`, SK: `LEDGER#${entry.entryId}` },
    ]);
    const [update, ledger] = input.TransactItems ?? [];
    expect(update?.Update).toMatchObject({
      UpdateExpression: 'ADD creditsBalance :credits SET updatedAt = :now',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':credits': 30, ':now': entry.createdAt },
    });
    expect(ledger?.Put?.ConditionExpression).toBe('attribute_not_exists(PK)');
    expect(ledger?.Put?.Item).toMatchObject({ entity: 'ledger', accountId: ACCOUNT_ID, ...entry });
  });

  // BUG (functions/adapters/table/account-store.ts, addCredits, the `get` after the transaction):
  // the new balance is read with an eventually consistent GetItem, so right after the
  // transaction it may return the balance from before the credits were added.
  it('reads the new balance back with a strongly consistent read', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    ddb.on(GetCommand).resolves({ Item: { PK: `ACCT#${ACCOUNT_ID}`, SK: 'ACCOUNT', creditsBalance: 130 } });
    await store.addCredits(ACCOUNT_ID, entry);
    const read = ddb.commandCalls(GetCommand)[0]!.args[0].input;
    expect(read.Key).toEqual({ PK: `ACCT#${ACCOUNT_ID}`, SK: 'ACCOUNT' });
    expect(read.ConsistentRead).toBe(true);
  });
});

describe('dynamoAccountStore.addTrustedHost', () => {
  it('adds the host to a string set on the account item and answers the sorted list', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: { PK: `ACCT#${ACCOUNT_ID}`, SK: 'ACCOUNT', trustedHosts: new Set(['z.example.com', 'media.example.com']) } });
    await expect(store.addTrustedHost(ACCOUNT_ID, 'media.example.com')).resolves.toEqual(['media.example.com', 'z.example.com']);
    const input = ddb.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input.Key).toEqual({ PK: `ACCT#${ACCOUNT_ID}`, SK: 'ACCOUNT' });
    expect(input.UpdateExpression).toBe('ADD trustedHosts :host SET updatedAt = :now');
    expect(input.ConditionExpression).toBe('attribute_exists(PK)');
    expect(input.ExpressionAttributeValues?.[':host']).toEqual(new Set(['media.example.com']));
  });
});

describe('dynamoAccountStore.setEventDelivery', () => {
  it('stores the switch only while off, on an existing account; false when there is none', async () => {
    ddb
      .on(UpdateCommand)
      .resolvesOnce({})
      .resolvesOnce({})
      .rejectsOnce(new ConditionalCheckFailedException({ message: 'no account', $metadata: {} }));
    await expect(store.setEventDelivery(ACCOUNT_ID, false)).resolves.toBe(true);
    await expect(store.setEventDelivery(ACCOUNT_ID, true)).resolves.toBe(true);
    await expect(store.setEventDelivery(ACCOUNT_ID, true)).resolves.toBe(false);
    const [off, on] = ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(off).toMatchObject({ Key: { PK: `ACCT#${ACCOUNT_ID}`, SK: 'ACCOUNT' }, ConditionExpression: 'attribute_exists(PK)' });
    expect(off?.UpdateExpression).toBe('SET eventDeliveryDisabled = :true, updatedAt = :now');
    expect(off?.ExpressionAttributeValues?.[':true']).toBe(true);
    expect(on?.UpdateExpression).toBe('REMOVE eventDeliveryDisabled SET updatedAt = :now');
    expect(on?.ExpressionAttributeValues).not.toHaveProperty(':true');
  });
});
