import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoScannerStore } from '../../../../functions/adapters/table/scanner-store.js';
import { CursorCodec } from '../../../../functions/adapters/table/cursor.js';
import { scannerEntity } from '../../../../functions/adapters/table/entities/scanner.js';
import { scannerVersionEntity } from '../../../../functions/adapters/table/entities/scanner-version.js';
import { createScanner } from '../../../../functions/domain/scanners/scanners.js';
import { ApiError } from '../../../../functions/domain/errors.js';
import type { ScannerRecord } from '../../../../functions/domain/scanners/model.js';
import { ACCOUNT_ID, CURSOR_SECRET, OTHER_ACCOUNT_ID, TABLE_NAME, testAccount } from '../../../helpers/unit-fixtures.js';

const ddb = mockClient(DynamoDBDocumentClient);
const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));
const cursors = new CursorCodec(CURSOR_SECRET);
const store = dynamoScannerStore({ doc, tableName: TABLE_NAME, cursors: () => Promise.resolve(cursors) });

const SCANNER_ID = 'scn_0190a0b0c0d07e0f8a9b0c1d2e3f4a5b';
const scanner = (version: number, overrides: Partial<ScannerRecord> = {}): ScannerRecord => ({
  name: 'Highlights',
  instructions: 'Find the loud parts.',
  type: 'find_moments',
  scannerId: SCANNER_ID,
  version,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: `2026-01-0${version}T00:00:00.000Z`,
  ...overrides,
});
const headItem = (record: ScannerRecord, accountId = ACCOUNT_ID) => ({ PK: `ACCT#${accountId}`, SK: `SCN#${record.scannerId}`, entity: 'scanner', ...record });
const versionSk = (version: number) => `SCNV#${SCANNER_ID}#${String(version).padStart(10, '0')}`;

beforeEach(() => ddb.reset());
afterAll(() => ddb.restore());

describe('dynamoScannerStore.create', () => {
  it('writes the head and the version-1 snapshot together, each only if absent', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    const created = await createScanner({ scanners: store, deploymentMaxObservations: 50 }, testAccount(), {
      name: 'Labels',
      instructions: 'Which sport?',
      type: 'classifier',
      output: { labels: ['football', 'tennis'] },
    });

    const items = ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems ?? [];
    expect(items).toHaveLength(2);
    const [head, snapshot] = items.map((i) => i.Put);
    expect(head?.Item).toMatchObject({ PK: `ACCT#${ACCOUNT_ID}`, SK: `SCN#${created.scannerId}`, entity: 'scanner', version: 1 });
    expect(snapshot?.Item).toMatchObject({
      PK: `ACCT#${ACCOUNT_ID}`,
      SK: `SCNV#${created.scannerId}#0000000001`,
      entity: 'scanner_version',
      version: 1,
      output: { labels: ['football', 'tennis'] },
    });
    for (const put of [head, snapshot]) {
      expect(put?.TableName).toBe(TABLE_NAME);
      expect(put?.ConditionExpression).toBe('attribute_not_exists(PK)');
    }
  });
});

describe('dynamoScannerStore reads', () => {
  it('gets the head by ACCT#<account>/SCN#<id> and strips table attributes', async () => {
    ddb.on(GetCommand).resolves({ Item: headItem(scanner(2)) });
    await expect(store.get(ACCOUNT_ID, SCANNER_ID)).resolves.toEqual(scanner(2));
    expect(ddb.commandCalls(GetCommand)[0]!.args[0].input).toEqual({
      TableName: TABLE_NAME,
      Key: { PK: `ACCT#${ACCOUNT_ID}`, SK: `SCN#${SCANNER_ID}` },
      ConsistentRead: true,
    });
  });

  it("only ever looks in the caller's partition: another account's scanner is simply absent", async () => {
    ddb.on(GetCommand).resolves({});
    ddb.on(GetCommand, { Key: { PK: `ACCT#${OTHER_ACCOUNT_ID}`, SK: `SCN#${SCANNER_ID}` } }).resolves({ Item: headItem(scanner(1), OTHER_ACCOUNT_ID) });
    await expect(store.get(ACCOUNT_ID, SCANNER_ID)).resolves.toBeUndefined();
    await expect(store.get(OTHER_ACCOUNT_ID, SCANNER_ID)).resolves.toEqual(scanner(1));
  });

  it('gets a version by its zero-padded snapshot key', async () => {
    ddb.on(GetCommand).resolves({ Item: { PK: `ACCT#${ACCOUNT_ID}`, SK: versionSk(12), ...scanner(12) } });
    await expect(store.getVersion(ACCOUNT_ID, SCANNER_ID, 12)).resolves.toEqual(scanner(12));
    expect(ddb.commandCalls(GetCommand)[0]!.args[0].input.Key).toEqual({ PK: `ACCT#${ACCOUNT_ID}`, SK: versionSk(12) });
  });
});

describe('dynamoScannerStore.putNextVersion', () => {
  it('moves the head only if it is still at the previous version, and writes the immutable snapshot', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    await expect(store.putNextVersion(ACCOUNT_ID, scanner(4))).resolves.toBe(true);

    const [head, snapshot] = (ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems ?? []).map((i) => i.Put);
    expect(head?.Item).toMatchObject({ PK: `ACCT#${ACCOUNT_ID}`, SK: `SCN#${SCANNER_ID}`, version: 4 });
    expect(head?.ConditionExpression).toBe('version = :previous');
    expect(head?.ExpressionAttributeValues).toEqual({ ':previous': 3 });
    expect(snapshot?.Item).toMatchObject({ PK: `ACCT#${ACCOUNT_ID}`, SK: versionSk(4), entity: 'scanner_version', version: 4 });
    expect(snapshot?.ConditionExpression).toBe('attribute_not_exists(PK)');
  });

  it('reports a lost race (TransactionCanceledException) as false', async () => {
    ddb.on(TransactWriteCommand).rejects(
      new TransactionCanceledException({
        message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, None]',
        $metadata: {},
        CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }],
      }),
    );
    await expect(store.putNextVersion(ACCOUNT_ID, scanner(2))).resolves.toBe(false);
  });

  it('lets any other failure through', async () => {
    ddb.on(TransactWriteCommand).rejects(new Error('InternalServerError'));
    await expect(store.putNextVersion(ACCOUNT_ID, scanner(2))).rejects.toThrow('InternalServerError');
  });
});

describe('dynamoScannerStore lists', () => {
  const items = (n: number, from = 1) => Array.from({ length: n }, (_, i) => headItem(scanner(1, { scannerId: `scn_${String(from + i).padStart(32, '0')}` })));

  it('queries the scanners collection newest first, asking for one item more than the page', async () => {
    ddb.on(QueryCommand).resolves({ Items: items(3) });
    await store.list(ACCOUNT_ID, { limit: 5 });
    const input = ddb.commandCalls(QueryCommand)[0]!.args[0].input;
    expect(input).toMatchObject({
      TableName: TABLE_NAME,
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
      ExpressionAttributeNames: { '#pk': 'PK', '#sk': 'SK' },
      ExpressionAttributeValues: { ':pk': `ACCT#${ACCOUNT_ID}`, ':from': 'SCN#', ':to': 'SCN#\uffff' },
      ScanIndexForward: false,
      Limit: 6,
    });
    expect(input.ExclusiveStartKey).toBeUndefined();
  });

  it('answers no next cursor when the page holds everything', async () => {
    ddb.on(QueryCommand).resolves({ Items: items(5) });
    const page = await store.list(ACCOUNT_ID, { limit: 5 });
    expect(page.items).toHaveLength(5);
    expect(page.nextCursor).toBeNull();
    expect(page.items[0]).not.toHaveProperty('PK');
    expect(page.items[0]).not.toHaveProperty('entity');
  });

  it('answers an empty page with no cursor', async () => {
    ddb.on(QueryCommand).resolves({});
    await expect(store.list(ACCOUNT_ID, { limit: 5 })).resolves.toEqual({ items: [], nextCursor: null });
  });

  it('trims the extra item and gives a cursor that resumes after the last item returned', async () => {
    ddb.on(QueryCommand).resolves({ Items: items(3) });
    const page = await store.list(ACCOUNT_ID, { limit: 2 });
    expect(page.items.map((s) => s.scannerId)).toEqual([items(1, 1)[0]!.scannerId, items(1, 2)[0]!.scannerId]);
    expect(page.nextCursor).toEqual(expect.any(String));
    expect(cursors.decode(ACCOUNT_ID, scannerEntity.collection({ accountId: ACCOUNT_ID }), page.nextCursor!)).toEqual({
      PK: `ACCT#${ACCOUNT_ID}`,
      SK: `SCN#${items(1, 2)[0]!.scannerId}`,
    });

    await store.list(ACCOUNT_ID, { limit: 2, cursor: page.nextCursor! });
    expect(ddb.commandCalls(QueryCommand)[1]!.args[0].input.ExclusiveStartKey).toEqual({ PK: `ACCT#${ACCOUNT_ID}`, SK: `SCN#${items(1, 2)[0]!.scannerId}` });
  });

  it('refuses a cursor of another account before querying', async () => {
    ddb.on(QueryCommand).resolves({ Items: items(3) });
    const { nextCursor } = await store.list(OTHER_ACCOUNT_ID, { limit: 1 });
    ddb.resetHistory();
    const error = await store.list(ACCOUNT_ID, { limit: 1, cursor: nextCursor! }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'invalid_cursor' });
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it('lists versions from the scanner snapshot prefix and refuses a scanners-list cursor there', async () => {
    ddb.on(QueryCommand).resolves({ Items: [3, 2, 1].map((v) => ({ PK: `ACCT#${ACCOUNT_ID}`, SK: versionSk(v), ...scanner(v) })) });
    const page = await store.listVersions(ACCOUNT_ID, SCANNER_ID, { limit: 2 });
    expect(page.items.map((s) => s.version)).toEqual([3, 2]);
    expect(ddb.commandCalls(QueryCommand)[0]!.args[0].input).toMatchObject({
      ExpressionAttributeValues: { ':pk': `ACCT#${ACCOUNT_ID}`, ':from': `SCNV#${SCANNER_ID}#`, ':to': `SCNV#${SCANNER_ID}#\uffff` },
      ScanIndexForward: false,
      Limit: 3,
    });
    expect(cursors.decode(ACCOUNT_ID, scannerVersionEntity.collection({ accountId: ACCOUNT_ID, scannerId: SCANNER_ID }), page.nextCursor!)).toEqual({
      PK: `ACCT#${ACCOUNT_ID}`,
      SK: versionSk(2),
    });

    ddb.on(QueryCommand).resolves({ Items: items(2) });
    const { nextCursor } = await store.list(ACCOUNT_ID, { limit: 1 });
    await expect(store.listVersions(ACCOUNT_ID, SCANNER_ID, { limit: 2, cursor: nextCursor! })).rejects.toMatchObject({ code: 'invalid_cursor' });
  });
});
