import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, PutBucketCorsCommand, HeadBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { tableDefinition } from '../adapters/table/definition.js';

const indexSpec = (index: (typeof tableDefinition.globalSecondaryIndexes)[number]) => ({
  IndexName: index.indexName,
  KeySchema: [
    { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
    { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
  ],
  Projection: { ProjectionType: 'ALL' as const },
});

const stringAttributes = (names: string[]) => [...new Set(names)].map((name) => ({ AttributeName: name, AttributeType: 'S' as const }));

/**
 * Creates the single table exactly as CDK declares it (same definition module), once; a table
 * from an older checkout gains the indexes added since, so a kept .local/ keeps working.
 */
export async function ensureTable(dynamo: DynamoDBClient, tableName: string): Promise<void> {
  const { partitionKey, sortKey, globalSecondaryIndexes } = tableDefinition;
  let existing;
  try {
    existing = (await dynamo.send(new DescribeTableCommand({ TableName: tableName }))).Table;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  if (existing) {
    const present = new Set((existing.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName));
    for (const index of globalSecondaryIndexes.filter((i) => !present.has(i.indexName))) {
      await dynamo.send(
        new UpdateTableCommand({
          TableName: tableName,
          AttributeDefinitions: stringAttributes([index.partitionKey, index.sortKey]),
          GlobalSecondaryIndexUpdates: [{ Create: indexSpec(index) }],
        }),
      );
    }
    return;
  }
  await dynamo.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: stringAttributes([partitionKey, sortKey, ...globalSecondaryIndexes.flatMap((i) => [i.partitionKey, i.sortKey])]),
      KeySchema: [
        { AttributeName: partitionKey, KeyType: 'HASH' },
        { AttributeName: sortKey, KeyType: 'RANGE' },
      ],
      ...(globalSecondaryIndexes.length ? { GlobalSecondaryIndexes: globalSecondaryIndexes.map(indexSpec) } : {}),
    }),
  );
  await dynamo.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true },
    }),
  );
}

export async function ensureBucket(s3: S3Client, bucket: string): Promise<void> {
  try {
    await s3.send(new HeadBucketCommand({ Bucket: bucket }));
  } catch {
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  }
}

/**
 * The console uploads straight to signed targets and plays signed sources from the browser: s3rver
 * allows the local host's own origins (PUT, GET), as the AWS bucket allows the console's origin only.
 */
export async function allowConsoleOrigins(s3: S3Client, bucket: string, origins: string[]): Promise<void> {
  await s3.send(
    new PutBucketCorsCommand({
      Bucket: bucket,
      CORSConfiguration: {
        CORSRules: [{ AllowedOrigins: origins, AllowedMethods: ['PUT', 'GET'], AllowedHeaders: ['*'], ExposeHeaders: ['ETag'], MaxAgeSeconds: 3000 }],
      },
    }),
  );
}
