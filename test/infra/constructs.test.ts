import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { BUNDLING_STACKS } from 'aws-cdk-lib/cx-api';
import { AwsSolutionsChecks } from 'cdk-nag';
import { notFoundHandler } from '../../functions/routes.js';
import { MediaBucket } from '../../infra/constructs/media-bucket.js';
import { ServiceFunction } from '../../infra/constructs/service-function.js';
import { ServiceTable } from '../../infra/constructs/service-table.js';
import type * as Definition from '../../functions/adapters/table/definition.js';

// A table definition with an index, as later features will add: infra must follow it unaided.
vi.mock('../../functions/adapters/table/definition.js', async (importOriginal) => {
  const { tableDefinition } = await importOriginal<typeof Definition>();
  return {
    tableDefinition: {
      ...tableDefinition,
      globalSecondaryIndexes: [{ indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' }],
    },
  };
});

/** A stack with just the constructs under test; functions are not bundled (only IAM and env matter). */
function build(configure: (stack: Stack) => void): { template: Template; nagErrors: string[] } {
  const outdir = mkdtempSync(join(tmpdir(), 'media-scanner-cdk-'));
  try {
    const app = new App({ outdir, context: { [BUNDLING_STACKS]: [] } });
    const stack = new Stack(app, 'Test');
    configure(stack);
    const template = Template.fromStack(stack);
    const report = new AwsSolutionsChecks().validateScope(app);
    const nagErrors = report.violations.filter((v) => v.severity === 'error').map((v) => v.ruleName);
    return { template, nagErrors };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

describe('ServiceTable with a global secondary index', () => {
  it('creates the index and lets bound functions query it without unacknowledged cdk-nag errors', () => {
    const { template, nagErrors } = build((stack) => {
      const table = new ServiceTable(stack, 'Table');
      new ServiceFunction(stack, 'Fn', { handler: notFoundHandler }).bindTable(table, 'read');
    });
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      GlobalSecondaryIndexes: [
        Match.objectLike({
          IndexName: 'GSI1',
          KeySchema: [
            { AttributeName: 'GSI1PK', KeyType: 'HASH' },
            { AttributeName: 'GSI1SK', KeyType: 'RANGE' },
          ],
        }),
      ],
    });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: Match.arrayWith(['dynamodb:Query']),
            Resource: Match.arrayWith([{ 'Fn::Join': ['', [{ 'Fn::GetAtt': [Match.anyValue(), 'Arn'] }, '/index/*']] }]),
          }),
        ]),
      },
    });
    expect(nagErrors).toEqual([]);
  });
});

describe('ServiceFunction.bindBucket', () => {
  it.each([
    ['read', ['s3:GetObject']],
    ['readWrite', ['s3:GetObject', 's3:PutObject', 's3:PutObjectTagging', 's3:AbortMultipartUpload', 's3:DeleteObject']],
  ] as const)('grants %s object access, ListBucket and MEDIA_BUCKET', (access, objectActions) => {
    const { template, nagErrors } = build((stack) => {
      const media = new MediaBucket(stack, 'Media');
      new ServiceFunction(stack, 'Fn', { handler: notFoundHandler }).bindBucket(media.bucket, access);
    });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Action: objectActions.length === 1 ? objectActions[0] : [...objectActions] }),
          Match.objectLike({ Action: 's3:ListBucket' }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ MEDIA_BUCKET: { Ref: Match.stringLikeRegexp('^MediaBucket') } }) },
    });
    expect(nagErrors).toEqual([]);
  });
});
