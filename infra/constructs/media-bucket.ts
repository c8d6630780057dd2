import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';

/** Private storage for uploaded media, with server access logs in a bucket of their own. */
export class MediaBucket extends Construct {
  public readonly bucket: Bucket;

  public constructor(scope: Construct, id: string) {
    super(scope, id);

    const accessLogs = new Bucket(this, 'AccessLogs', {
      // S3 server access logging cannot deliver to a bucket encrypted with SSE-KMS.
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [{ expiration: Duration.days(365) }],
    });
    Validations.of(accessLogs).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'This bucket is the server access log destination of the media bucket; logging it in turn would need yet another log bucket.',
    });

    this.bucket = new Bucket(this, 'Bucket', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.RETAIN,
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'media/',
      // Uploads over 5 GiB are multipart; parts of an upload that is never completed cost storage forever.
      lifecycleRules: [{ abortIncompleteMultipartUploadAfter: Duration.days(7) }],
    });
  }
}
