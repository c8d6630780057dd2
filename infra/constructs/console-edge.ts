import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DockerImage, Duration, Fn, RemovalPolicy, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { ICertificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as EdgeFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  OriginSslPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
  type BehaviorOptions,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { consoleCsp } from '../../functions/shared/console-csp.js';
import { functionLogs } from './service-function.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The bucket's viewer-request function: the single-page app answers every /console/ path without a
 * file extension with its index.html (History routing), and the bare origin and /console go to
 * /console/. The API paths need none: the API's authorizer reads the session cookie itself.
 */
const viewerRequest = `function handler(event) {
  var request = event.request;
  var uri = request.uri;
  if (uri === '/' || uri === '/console') return { statusCode: 302, statusDescription: 'Found', headers: { location: { value: '/console/' } } };
  if (uri.indexOf('/console/') === 0 && !/\\.[A-Za-z0-9]+$/.test(uri)) request.uri = '/console/index.html';
  return request;
}`;

export interface ConsoleEdgeProps {
  /** The HTTP API that answers /console/api/* and /console/auth/*. */
  readonly api: HttpApi;
  /** The bucket the console bucket's server access logs go to (the media bucket's). */
  readonly accessLogs: Bucket;
  /** The media bucket's origin (or origins), which the CSP admits for uploads and playback. */
  readonly mediaOrigin: string;
  /** A custom domain and its ACM certificate (us-east-1); absent: the distribution's own domain. */
  readonly domain?: { readonly name: string; readonly certificate: ICertificate } | undefined;
}

/**
 * The console's one origin (docs/console.md): a CloudFront distribution in front of a private S3
 * bucket (origin access control) holding the built single-page app, and of the HTTP API for the
 * console's API and sign-in paths, so the session cookie is first-party and SameSite=Strict holds.
 */
export class ConsoleEdge extends Construct {
  public readonly bucket: Bucket;
  public readonly distribution: Distribution;
  /** `https://<host>`: where owners open the console, and the only origin the media bucket's CORS admits. */
  public readonly origin: string;

  public constructor(scope: Construct, id: string, props: ConsoleEdgeProps) {
    super(scope, id);

    this.bucket = new Bucket(this, 'Bucket', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      // Only build output: every deploy writes it again.
      removalPolicy: RemovalPolicy.RETAIN,
      serverAccessLogsBucket: props.accessLogs,
      serverAccessLogsPrefix: 'console/',
    });

    const headers = new ResponseHeadersPolicy(this, 'Headers', {
      comment: 'Media Scanner console: CSP, HSTS, no sniffing, no framing',
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: consoleCsp(props.mediaOrigin), override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
      },
    });

    // One origin and one behaviour for both API paths (an origin object per behaviour would make two of the same).
    const apiOrigin = new HttpOrigin(Fn.parseDomainName(props.api.apiEndpoint), {
      protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
      originSslProtocols: [OriginSslPolicy.TLS_V1_2],
    });
    const apiBehavior: BehaviorOptions = {
      origin: apiOrigin,
      viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: AllowedMethods.ALLOW_ALL,
      cachePolicy: CachePolicy.CACHING_DISABLED,
      // Cookies, query strings and every viewer header; Host would name CloudFront, not the API.
      originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      responseHeadersPolicy: headers,
    };

    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Media Scanner console',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: headers,
        functionAssociations: [
          {
            eventType: FunctionEventType.VIEWER_REQUEST,
            function: new EdgeFunction(this, 'ViewerRequest', { code: FunctionCode.fromInline(viewerRequest), runtime: FunctionRuntime.JS_2_0 }),
          },
        ],
      },
      additionalBehaviors: {
        '/console/api/*': apiBehavior,
        '/console/auth/*': apiBehavior,
      },
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      ...(props.domain
        ? { domainNames: [props.domain.name], certificate: props.domain.certificate, minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021 }
        : {}),
    });
    this.origin = `https://${props.domain?.name ?? this.distribution.distributionDomainName}`;

    Validations.of(this.distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason: 'The console serves account owners wherever they are; the API it calls is reachable from anywhere anyway.',
      },
      {
        id: 'AwsSolutions-CFR2',
        reason: 'No WAF in front of the console: every API path behind it is authorized by API Gateway and throttled by its stage, as the public API is.',
      },
      {
        id: 'AwsSolutions-CFR3',
        reason: "Static assets only are served from the bucket, whose server access logs are kept; the API's requests are in the HTTP API's access log.",
      },
      ...(props.domain
        ? []
        : [
            {
              id: 'AwsSolutions-CFR4',
              reason:
                "The distribution's own cloudfront.net domain: its certificate's protocols are CloudFront's; a custom domain (consoleDomainName) sets TLS 1.2 as the minimum.",
            },
          ]),
    );

    this.deployAssets();
  }

  /**
   * The built console (console/build.ts), staged at synth by the local build: hashed assets cached
   * for a year, index.html revalidated on each load. Neither deployment prunes: pages already open
   * keep finding the assets they were built with.
   */
  private deployAssets(): void {
    const role = new Role(this, 'DeployRole', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    const logGroup = functionLogs(this);
    logGroup.grantWrite(role);
    const source = Source.asset(`${repoRoot}console`, {
      exclude: ['dist'],
      bundling: {
        local: {
          tryBundle: (outputDir: string) => {
            execFileSync(process.execPath, ['--import', 'tsx', 'infra/write-console.ts', outputDir], { cwd: repoRoot, stdio: 'inherit' });
            return true;
          },
        },
        // Required by the API, never used: local bundling either succeeds or throws.
        image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:24-bookworm-slim'),
      },
    });
    const common = { sources: [source], destinationBucket: this.bucket, destinationKeyPrefix: 'console/', prune: false, role, logGroup };
    new BucketDeployment(this, 'Assets', {
      ...common,
      exclude: ['index.html'],
      cacheControl: [CacheControl.setPublic(), CacheControl.maxAge(Duration.days(365)), CacheControl.immutable()],
    });
    const page = new BucketDeployment(this, 'Page', { ...common, exclude: ['*'], include: ['index.html'], cacheControl: [CacheControl.noCache()] });
    // Both deployments run on one (singleton) function, which carries the first one's AWS CLI layer;
    // the second's would be deployed for nothing.
    page.node.tryRemoveChild('AwsCliLayer');

    Validations.of(role).acknowledge(
      ...['Action::s3:GetBucket*', 'Action::s3:GetObject*', 'Action::s3:List*', 'Action::s3:Abort*', 'Action::s3:DeleteObject*'].map((finding) => ({
        id: `AwsSolutions-IAM5[${finding}]`,
        reason: "BucketDeployment's grants: reading the staged build from the CDK assets bucket and writing it to the console bucket.",
      })),
      {
        id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]',
        reason: 'The staged console build is an object of the CDK bootstrap assets bucket, under a key known only at publishing.',
      },
      {
        id: `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(this.bucket.node.defaultChild as CfnElement)}.Arn>/*]`,
        reason: 'The deployment writes the console build under console/ of its own bucket.',
      },
    );
    // BucketDeployment's singleton handler, created at the stack's top level under this id.
    for (const handler of Stack.of(this).node.children.filter((child) => child.node.id.startsWith('Custom::CDKBucketDeployment'))) {
      Validations.of(handler).acknowledge({
        id: 'AwsSolutions-L1',
        reason: "BucketDeployment's own handler: CDK chooses its Python runtime, and it runs only while a deploy copies the console build.",
      });
    }
  }
}
