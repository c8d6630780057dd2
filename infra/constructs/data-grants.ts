import { Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import type { DataAccess } from '../../functions/routes.js';
import type { ServiceTable } from './service-table.js';

/**
 * Table and media-bucket access as the route and workflow tables declare it, granted to whatever
 * runs the code (a function's role, a container task's role). The cdk-nag acknowledgements of
 * the wildcards go on `scope`, the construct that owns the grantee.
 */
export function grantTableAccess(scope: Construct, grantee: IGrantable, table: ServiceTable, access: DataAccess): void {
  if (access === 'readWrite') table.grantReadWriteData(grantee);
  else table.grantReadData(grantee);

  if (table.hasIndexes) {
    const tableId = Stack.of(table).getLogicalId(table.node.defaultChild as CfnElement);
    Validations.of(scope).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${tableId}.Arn>/index/*]`,
      reason: 'Queries may use any index of the service table; the wildcard covers only the indexes of that table.',
    });
  }
}

/**
 * Object access in the media bucket. Reads cover GET/HEAD (and presigned GETs); writes add
 * presigned PUTs and multipart uploads (with the listing of received parts), tagging and deletes.
 */
export function grantBucketAccess(scope: Construct, grantee: IGrantable, bucket: Bucket, access: DataAccess): void {
  const objectActions = ['s3:GetObject'];
  if (access === 'readWrite') {
    // ListMultipartUploadParts: completing a multipart upload lists the parts S3 received.
    objectActions.push('s3:PutObject', 's3:PutObjectTagging', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts', 's3:DeleteObject');
  }
  Grant.addToPrincipal({ grantee, actions: objectActions, resourceArns: [bucket.arnForObjects('*')] });
  // Without ListBucket, HEAD on a missing key answers 403 instead of 404.
  Grant.addToPrincipal({ grantee, actions: ['s3:ListBucket'], resourceArns: [bucket.bucketArn] });

  const bucketId = Stack.of(bucket).getLogicalId(bucket.node.defaultChild as CfnElement);
  Validations.of(scope).acknowledge({
    id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/*]`,
    reason: 'Media object keys are generated per upload, so access is granted on the objects of this one bucket.',
  });
}
