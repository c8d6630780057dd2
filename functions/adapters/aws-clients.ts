import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Config } from '../config.js';

/** The local host points the SDK at its loopback stand-ins; on AWS these are the defaults. */
export interface AwsClients {
  dynamo: DynamoDBClient;
  doc: DynamoDBDocumentClient;
  s3: S3Client;
  secrets: SecretsManagerClient;
}

export function createAwsClients(config: Config): AwsClients {
  const region = config.AWS_REGION;
  const dynamo = new DynamoDBClient({ region, ...(config.DYNAMODB_ENDPOINT ? { endpoint: config.DYNAMODB_ENDPOINT } : {}) });
  const doc = DynamoDBDocumentClient.from(dynamo, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  const s3 = new S3Client({
    region,
    // Without this the SDK signs a CRC32 of an empty body into presigned PUT/UploadPart URLs
    // (x-amz-checksum-crc32=AAAAAA==) and S3 rejects the client's real bytes.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    ...(config.S3_ENDPOINT ? { endpoint: config.S3_ENDPOINT, forcePathStyle: true } : {}),
  });
  return { dynamo, doc, s3, secrets: new SecretsManagerClient({ region }) };
}
