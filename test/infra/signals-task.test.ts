/**
 * Signal extraction for long sources as a Fargate task (the analysis workflow's container task):
 * the cluster and its network, the arm64 task definition and its image asset, the
 * ecs:runTask.sync state with its substitutions, and what the state machine may do with it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Template } from 'aws-cdk-lib/assertions';
import { containerNameOf, containerPlacement, workflows, type ContainerTask } from '../../functions/workflows/registry.js';
import { SHARED_ASSEMBLY_TIMEOUT_MS, sharedAssembly } from './shared-assembly.js';
import type { SynthesizedAssembly } from './synth.js';
import { stateMachineDeploying, TemplateQueries, type FnGetAtt, type Statement } from './template.js';

const analysis = workflows.analysis;
const signalsTask: ContainerTask = analysis.containerTasks.SignalsTaskDefinitionArn;
const asl = readFileSync(new URL(`../../${analysis.definitionFile}`, import.meta.url), 'utf8');

let synthesized: SynthesizedAssembly;
let template: Template;
let q: TemplateQueries;

// The template and the staged image asset (a copy, not a build), from the run's one synthesis (shared-assembly-setup.ts).
beforeAll(async () => {
  synthesized = await sharedAssembly();
  template = synthesized.template;
  q = new TemplateQueries(template);
}, SHARED_ASSEMBLY_TIMEOUT_MS);

const machine = () => stateMachineDeploying(q, asl);
const onlyId = (type: string): string => {
  const ids = Object.keys(q.find(type));
  expect(ids, type).toHaveLength(1);
  return ids[0]!;
};
const taskDefinitionId = () => machine().taskDefinitionIds.SignalsTaskDefinitionArn!;
const taskDefinition = () => q.resource(taskDefinitionId()).Properties;
const roleOf = (attribute: 'TaskRoleArn' | 'ExecutionRoleArn') => (taskDefinition()[attribute] as FnGetAtt)['Fn::GetAtt'][0];
const actions = (statement: Statement): string[] => [statement.Action].flat();

/** Every Task state of a (nested) ASL document, by name. */
function taskStates(node: unknown): Record<string, Record<string, unknown>> {
  if (typeof node !== 'object' || node === null) return {};
  const states = (node as { States?: Record<string, Record<string, unknown>> }).States ?? {};
  return Object.fromEntries(
    Object.entries(states).flatMap(([name, state]) => [
      ...(state.Type === 'Task' ? [[name, state] as const] : []),
      ...Object.entries(taskStates(state.ItemProcessor)),
    ]),
  );
}

describe('cluster and network', () => {
  it('is one ECS cluster with Container Insights', () => {
    template.hasResourceProperties('AWS::ECS::Cluster', { ClusterSettings: [{ Name: 'containerInsights', Value: 'enabled' }] });
    onlyId('AWS::ECS::Cluster');
  });

  it('runs tasks in two public subnets of its own VPC, without NAT gateways, S3 and DynamoDB through gateway endpoints', () => {
    onlyId('AWS::EC2::VPC');
    template.resourceCountIs('AWS::EC2::Subnet', containerPlacement.subnets.length);
    template.allResourcesProperties('AWS::EC2::Subnet', { MapPublicIpOnLaunch: true });
    template.resourceCountIs('AWS::EC2::NatGateway', 0);
    const endpoints = Object.values(q.find('AWS::EC2::VPCEndpoint')).map((e) => JSON.stringify(e.Properties.ServiceName));
    expect(endpoints).toHaveLength(2);
    expect(endpoints.some((name) => name.includes('.s3'))).toBe(true);
    expect(endpoints.some((name) => name.includes('.dynamodb'))).toBe(true);
    for (const endpoint of Object.values(q.find('AWS::EC2::VPCEndpoint'))) expect(endpoint.Properties.VpcEndpointType).toBe('Gateway');
    template.hasResourceProperties('AWS::EC2::FlowLog', { ResourceType: 'VPC', TrafficType: 'REJECT' });
  });

  it('gives tasks a security group that admits nothing and lets only HTTPS out', () => {
    const [group] = Object.values(q.find('AWS::EC2::SecurityGroup'));
    expect(group!.Properties.SecurityGroupIngress).toBeUndefined();
    expect(group!.Properties.SecurityGroupEgress).toEqual([expect.objectContaining({ CidrIp: '0.0.0.0/0', IpProtocol: 'tcp', FromPort: 443, ToPort: 443 })]);
    template.resourceCountIs('AWS::EC2::SecurityGroupIngress', 0);
  });
});

describe('task definition', () => {
  it('is an arm64 Fargate task with the cpu and memory of its workflow-table entry', () => {
    expect(taskDefinition()).toMatchObject({
      RequiresCompatibilities: ['FARGATE'],
      NetworkMode: 'awsvpc',
      RuntimePlatform: { CpuArchitecture: 'ARM64', OperatingSystemFamily: 'LINUX' },
      Cpu: String(signalsTask.cpu),
      Memory: String(signalsTask.memoryMb),
    });
  });

  it('runs one read-only container, named as the state addresses it, logging to its own log group, with the functions’ configuration', () => {
    const [container, ...others] = taskDefinition().ContainerDefinitions as Record<string, unknown>[];
    expect(others).toEqual([]);
    expect(container).toMatchObject({ Name: containerNameOf(signalsTask), Essential: true, ReadonlyRootFilesystem: true });
    const environment = Object.fromEntries((container!.Environment as { Name: string; Value: unknown }[]).map((e) => [e.Name, e.Value]));
    expect(environment).toMatchObject({
      TABLE_NAME: { Ref: expect.stringMatching(/^Table/) as unknown },
      MEDIA_BUCKET: { Ref: expect.stringMatching(/^MediaBucket/) as unknown },
      AWS_REGION: { Ref: 'AWS::Region' },
      LOG_LEVEL: 'INFO',
    });
    const logging = container!.LogConfiguration as { LogDriver: string; Options: { 'awslogs-group': { Ref: string } } };
    expect(logging.LogDriver).toBe('awslogs');
    expect(q.resource(logging.Options['awslogs-group'].Ref).Properties.RetentionInDays).toBe(30);
  });

  it('gives the task role the table and bucket access of its entry, no secret, and nothing to do with workflows', () => {
    const granted = q.statementsOfRole(roleOf('TaskRoleArn')).flatMap(actions);
    expect(granted).toContain('dynamodb:Query');
    expect(granted.includes('dynamodb:PutItem')).toBe(signalsTask.table === 'readWrite');
    expect(granted).toEqual(expect.arrayContaining(['s3:GetObject', 's3:PutObject', 's3:ListBucket']));
    expect(granted).not.toContain('secretsmanager:GetSecretValue');
    expect(granted.filter((a) => /^(states|lambda|ecs|iam):/.test(a))).toEqual([]);
  });

  it('builds its image from layers/ffmpeg/Dockerfile for linux/arm64 with the entrypoint of its entry, staging only what the image needs', () => {
    const manifest = JSON.parse(readFileSync(join(synthesized.assemblyDirectory, `${synthesized.stackArtifactId}.assets.json`), 'utf8')) as {
      dockerImages: Record<string, { source: { directory: string; dockerFile: string; dockerBuildArgs: Record<string, string>; platform: string } }>;
    };
    const images = Object.values(manifest.dockerImages);
    expect(images).toHaveLength(1);
    const { source } = images[0]!;
    expect(source).toMatchObject({ dockerFile: 'layers/ffmpeg/Dockerfile', dockerBuildArgs: { ENTRYPOINT: signalsTask.entrypoint }, platform: 'linux/arm64' });
    const staged = join(synthesized.assemblyDirectory, source.directory);
    expect(readdirSync(staged).sort()).toEqual(['.dockerignore', 'functions', 'layers', 'package-lock.json', 'package.json', 'tsconfig.json']);
    expect(readdirSync(join(staged, 'layers', 'ffmpeg'))).toEqual(['Dockerfile']);
    const bytes = (path: string): number => (statSync(path).isDirectory() ? readdirSync(path).reduce((n, entry) => n + bytes(join(path, entry)), 0) : statSync(path).size);
    // The sources and the lock file: well under 5 MB, never node_modules (hundreds of MB).
    expect(bytes(staged)).toBeLessThan(5 * 1024 ** 2);
  });
});

describe('the analysis state machine', () => {
  it('runs the task with ecs:runTask.sync on Fargate, passing the chunk in TASK_INPUT, with the cluster, task definition and network substituted', () => {
    const containerStates = Object.values(taskStates(JSON.parse(asl))).filter((s) => s.Resource === 'arn:aws:states:::ecs:runTask.sync');
    expect(containerStates).toHaveLength(1);
    expect(containerStates[0]!.Parameters).toEqual({
      LaunchType: 'FARGATE',
      Cluster: `\${${containerPlacement.cluster}}`,
      TaskDefinition: '${SignalsTaskDefinitionArn}',
      NetworkConfiguration: {
        AwsvpcConfiguration: {
          Subnets: containerPlacement.subnets.map((p) => `\${${p}}`),
          SecurityGroups: [`\${${containerPlacement.securityGroup}}`],
          AssignPublicIp: 'ENABLED',
        },
      },
      Overrides: { ContainerOverrides: [{ Name: containerNameOf(signalsTask), Environment: [{ Name: 'TASK_INPUT', 'Value.$': 'States.JsonToString($)' }] }] },
    });
    expect(containerStates[0]!.Retry).toEqual([expect.objectContaining({ ErrorEquals: ['States.TaskFailed'] })]);

    const substitutions = machine().resource.Properties.DefinitionSubstitutions as Record<string, unknown>;
    expect(substitutions.SignalsTaskDefinitionArn).toEqual({ Ref: taskDefinitionId() });
    expect(substitutions[containerPlacement.cluster]).toEqual({ 'Fn::GetAtt': [onlyId('AWS::ECS::Cluster'), 'Arn'] });
    expect(containerPlacement.subnets.map((p) => substitutions[p])).toEqual(Object.keys(q.find('AWS::EC2::Subnet')).map((id) => ({ Ref: id })));
    expect(substitutions[containerPlacement.securityGroup]).toEqual({ 'Fn::GetAtt': [onlyId('AWS::EC2::SecurityGroup'), 'GroupId'] });
  });

  it('may run exactly that task definition, stop and describe only its cluster’s tasks, pass only its roles to ECS, and manage the .sync events rule', () => {
    const roleId = (machine().resource.Properties.RoleArn as FnGetAtt)['Fn::GetAtt'][0];
    const statements = q.statementsOfRole(roleId);
    expect(q.resourcesGranted(statements, 'ecs:RunTask')).toEqual([{ Ref: taskDefinitionId() }]);
    const clusterTasks = ['arn:', { Ref: 'AWS::Partition' }, ':ecs:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':task/', { Ref: onlyId('AWS::ECS::Cluster') }, '/*'];
    for (const action of ['ecs:StopTask', 'ecs:DescribeTasks']) {
      expect(q.resourcesGranted(statements, action), action).toEqual([{ 'Fn::Join': ['', clusterTasks] }]);
    }
    const passRole = statements.filter((s) => actions(s).includes('iam:PassRole'));
    expect(q.resourcesGranted(statements, 'iam:PassRole')).toHaveLength(2);
    expect(passRole).toEqual([
      expect.objectContaining({
        Resource: expect.arrayContaining([{ 'Fn::GetAtt': [roleOf('TaskRoleArn'), 'Arn'] }, { 'Fn::GetAtt': [roleOf('ExecutionRoleArn'), 'Arn'] }]) as unknown,
        Condition: { StringEquals: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' } },
      }),
    ]);
    for (const action of ['events:PutTargets', 'events:PutRule', 'events:DescribeRule']) {
      expect(JSON.stringify(q.resourcesGranted(statements, action)), action).toContain(':rule/StepFunctionsGetEventsForECSTaskRule');
    }
    expect(statements.flatMap(actions).filter((a) => a.startsWith('ecs:')).sort()).toEqual(['ecs:DescribeTasks', 'ecs:RunTask', 'ecs:StopTask']);
  });

  it('routes each chunk by the runner PlanChunks chose, both paths reaching AnalyzeChunk', () => {
    const processor = (JSON.parse(asl) as { States: Record<string, { ItemProcessor?: { StartAt: string; States: Record<string, Record<string, unknown>> } }> }).States
      .AnalyzeChunks!.ItemProcessor!;
    const choice = processor.States[processor.StartAt]!;
    expect(choice).toMatchObject({
      Type: 'Choice',
      Choices: [{ Variable: '$.chunk.runner', StringEquals: 'container', Next: 'ExtractChunkSignalsInContainer' }],
      Default: 'ExtractChunkSignals',
    });
    for (const name of ['ExtractChunkSignals', 'ExtractChunkSignalsInContainer']) expect(processor.States[name], name).toMatchObject({ ResultPath: null, Next: 'AnalyzeChunk' });
  });
});
