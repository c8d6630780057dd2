import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { RETENTION_TAG_KEY, retentionClasses } from '../../functions/domain/uploads/retention.js';

/** Prefix of workflow intermediates (signals, findings): they matter only while a run is in flight. */
const ARTIFACTS_PREFIX = 'artifacts/';

/**
 * Days a media object outlives its retention class. Upload records read `deleted` from creation +
 * retention on, so the object is never removed before that; S3 also rounds expiry up to midnight UTC.
 */
const RETENTION_GRACE_DAYS = 1;

/**
 * Private storage for uploaded media and workflow artifacts, with server access logs in a bucket of
 * their own. Lifecycle rules delete media when its retention class ends and artifacts after a day.
 */
export class MediaBucket extends Construct {
  public readonly bucket: Bucket;
  /** Server access logs: the media bucket's, and the console bucket's beside them. */
  public readonly accessLogs: Bucket;

  public constructor(scope: Construct, id: string) {
    super(scope, id);

    const accessLogs = (this.accessLogs = new Bucket(this, 'AccessLogs', {
      // S3 server access logging cannot deliver to a bucket encrypted with SSE-KMS.
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [{ expiration: Duration.days(365) }],
    }));
    Validations.of(accessLogs).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'This bucket is the server access log destination of the media bucket; logging it in turn would need yet another log bucket.',
    });

    this.bucket = new Bucket(this, 'Bucket', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.RETAIN,
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'media/',
      lifecycleRules: [
        // Uploads over 5 GiB are multipart; parts of an upload that is never completed cost storage forever.
        { id: 'abort-incomplete-multipart', abortIncompleteMultipartUploadAfter: Duration.days(7) },
        { id: 'expire-artifacts', prefix: ARTIFACTS_PREFIX, expiration: Duration.days(1) },
        // Every upload's object carries `retention-days=<class>` (functions/domain/uploads/retention.ts): one rule per class.
        ...retentionClasses().map((days) => ({
          id: `expire-${RETENTION_TAG_KEY}-${days}`,
          tagFilters: { [RETENTION_TAG_KEY]: String(days) },
          expiration: Duration.days(days + RETENTION_GRACE_DAYS),
        })),
      ],
    });
  }
}
