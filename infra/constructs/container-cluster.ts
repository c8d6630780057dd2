import { FlowLogDestination, FlowLogTrafficType, GatewayVpcEndpointAwsService, Peer, Port, SecurityGroup, SubnetType, Vpc } from 'aws-cdk-lib/aws-ec2';
import { Cluster, ContainerInsights } from 'aws-cdk-lib/aws-ecs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { containerPlacement } from '../../functions/workflows/registry.js';

/** Addresses AWS keeps in every subnet (network, router, DNS, future use, broadcast). */
const RESERVED_ADDRESSES_PER_SUBNET = 5;
/** The VPC's CIDR (CDK's default, 10.0.0.0/16): two subnets of at most /17 fit. */
const VPC_PREFIX = 16;

/**
 * The subnet size (CIDR prefix length) for `taskLimit` concurrent tasks: each awsvpc task takes
 * one address, and each subnet alone holds the whole limit, so losing a zone, or ECS placing
 * unevenly, never runs out of addresses; the other subnet's addresses are the headroom for
 * render tasks (outside admission) and for ENIs a stopped task has not yet given back.
 */
export function subnetPrefixFor(taskLimit: number): number {
  for (let prefix = 28; prefix > VPC_PREFIX; prefix--) {
    if (2 ** (32 - prefix) - RESERVED_ADDRESSES_PER_SUBNET >= taskLimit) return prefix;
  }
  throw new Error(`Invalid CDK context: containerTaskLimit=${taskLimit} needs more addresses than two subnets of a /${VPC_PREFIX} VPC hold`);
}

interface ContainerClusterProps {
  /** The deployment's limit on concurrent container tasks (admission, DESIGN §6): the subnets are sized for it. */
  readonly taskLimit: number;
}

/**
 * Where the workflows' container tasks run: an ECS cluster in a VPC of two public subnets (two
 * zones), each sized by subnetPrefixFor, with no NAT gateway. A task gets a public IP for its egress (ECR, CloudWatch Logs,
 * Secrets Manager), which costs nothing while no task runs, where a NAT gateway would bill every
 * hour; its security group admits nothing in and lets only HTTPS out. S3 and DynamoDB, the bulk
 * of the traffic (the source read by ffmpeg, the artifacts, the table), go through free gateway
 * endpoints and never leave the AWS network.
 */
export class ContainerCluster extends Construct {
  public readonly vpc: Vpc;
  public readonly cluster: Cluster;
  public readonly securityGroup: SecurityGroup;

  public constructor(scope: Construct, id: string, props: ContainerClusterProps) {
    super(scope, id);

    const flowLogs = new LogGroup(this, 'FlowLogs', { retention: RetentionDays.ONE_MONTH });
    this.vpc = new Vpc(this, 'Vpc', {
      maxAzs: containerPlacement.subnets.length,
      natGateways: 0,
      subnetConfiguration: [{ name: 'Tasks', subnetType: SubnetType.PUBLIC, cidrMask: subnetPrefixFor(props.taskLimit) }],
      gatewayEndpoints: {
        S3: { service: GatewayVpcEndpointAwsService.S3 },
        DynamoDB: { service: GatewayVpcEndpointAwsService.DYNAMODB },
      },
      // Refused connections only: the tasks' own traffic is large (source reads) and uninteresting.
      flowLogs: { Rejected: { destination: FlowLogDestination.toCloudWatchLogs(flowLogs), trafficType: FlowLogTrafficType.REJECT } },
      // Nothing uses the default security group, and locking it down takes a custom-resource Lambda.
      restrictDefaultSecurityGroup: false,
    });

    this.securityGroup = new SecurityGroup(this, 'TaskSecurityGroup', {
      vpc: this.vpc,
      description: 'Container tasks: nothing in; HTTPS out to AWS APIs and source URLs',
      allowAllOutbound: false,
    });
    this.securityGroup.addEgressRule(Peer.anyIpv4(), Port.tcp(443), 'HTTPS to AWS APIs, ECR and source URLs');

    this.cluster = new Cluster(this, 'Cluster', { vpc: this.vpc, containerInsightsV2: ContainerInsights.ENABLED });
  }

  /** The DefinitionSubstitutions of containerPlacement: the cluster, the two subnets and the security group. */
  public placementSubstitutions(): Record<string, string> {
    const subnets = this.vpc.publicSubnets.map((subnet) => subnet.subnetId);
    return {
      [containerPlacement.cluster]: this.cluster.clusterArn,
      ...Object.fromEntries(containerPlacement.subnets.map((placeholder, i) => [placeholder, subnets[i]!])),
      [containerPlacement.securityGroup]: this.securityGroup.securityGroupId,
    };
  }
}
