import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { App, Stack, type CfnElement } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { BUNDLING_STACKS } from 'aws-cdk-lib/cx-api';
import { AwsSolutionsChecks } from 'cdk-nag';
import { containerContractOf, lambdaContractOf, units } from '../../functions/runtime/contracts.js';
import { EventBus } from 'aws-cdk-lib/aws-events';
import type { CfnStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { workflows, type WorkflowDefinition, type WorkflowTask } from '../../functions/workflows/registry.js';
import { ContainerCluster } from '../../infra/constructs/container-cluster.js';
import { MediaBucket } from '../../infra/constructs/media-bucket.js';
import { ServiceContainerTask } from '../../infra/constructs/service-container-task.js';
import { admissionDefaults, deploymentContextKeys } from '../../infra/deployment-context.js';
import { ServiceFunction } from '../../infra/constructs/service-function.js';
import { ServiceTable } from '../../infra/constructs/service-table.js';
import { checkWorkflowDefinition, substitutionErrors, WorkflowStateMachine } from '../../infra/constructs/workflow-state-machine.js';
import type * as Definition from '../../functions/adapters/table/definition.js';
import { TemplateQueries, type FnGetAtt, type Statement } from './template.js';

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
      new ServiceFunction(stack, 'Fn', { contract: lambdaContractOf(units.fallback) }).bindTable(table, 'read');
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
    ['readWrite', ['s3:GetObject', 's3:PutObject', 's3:PutObjectTagging', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts', 's3:DeleteObject']],
  ] as const)('grants %s object access, ListBucket and MEDIA_BUCKET', (access, objectActions) => {
    const { template, nagErrors } = build((stack) => {
      const media = new MediaBucket(stack, 'Media');
      new ServiceFunction(stack, 'Fn', { contract: lambdaContractOf(units.fallback) }).bindBucket(media.bucket, access);
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

/** A WorkflowStateMachine for `workflow` with everything it binds to, in `stack`. */
function workflowIn(stack: Stack, workflow: WorkflowDefinition): WorkflowStateMachine {
  const media = new MediaBucket(stack, 'Media');
  let containers: ContainerCluster | undefined;
  return new WorkflowStateMachine(stack, 'Workflow', {
    name: 'analysis',
    workflow,
    environment: {},
    table: new ServiceTable(stack, 'Table'),
    bucket: media.bucket,
    eventBus: new EventBus(stack, 'Bus'),
    containerCluster: () => (containers ??= new ContainerCluster(stack, 'Containers', { taskLimit: admissionDefaults.containerTasks })),
  });
}

describe('WorkflowStateMachine', () => {
  const analysis: WorkflowDefinition = workflows.analysis;
  const [firstTask, ...otherTasks] = Object.entries<WorkflowTask>(analysis.tasks);

  it('builds the analysis workflow without unacknowledged cdk-nag errors', () => {
    const { template, nagErrors } = build((stack) => workflowIn(stack, analysis));
    template.resourceCountIs('AWS::StepFunctions::StateMachine', 1);
    expect(nagErrors).toEqual([]);
  });

  it('refuses an ASL placeholder that has no task in the workflow table', () => {
    const workflow = { ...analysis, tasks: Object.fromEntries(otherTasks) };
    expect(() => build((stack) => workflowIn(stack, workflow))).toThrow(`\${${firstTask![0]}} has no task in the workflow table`);
  });

  it('refuses a table task that no Task state uses', () => {
    const workflow = { ...analysis, tasks: { ...analysis.tasks, UnusedFunction: firstTask![1] } };
    expect(() => build((stack) => workflowIn(stack, workflow))).toThrow('task UnusedFunction is not used by any Task state');
  });

  it('fails synthesis when the rendered substitutions no longer match the definition', () => {
    for (const tamper of [
      (subs: Record<string, string>) => Object.fromEntries(Object.entries(subs).slice(1)),
      (subs: Record<string, string>) => ({ ...subs, Extra: 'arn:aws:lambda:::function:extra' }),
    ]) {
      expect(() =>
        build((stack) => {
          const cfn = workflowIn(stack, analysis).stateMachine.node.defaultChild as CfnStateMachine;
          cfn.definitionSubstitutions = tamper(cfn.definitionSubstitutions as Record<string, string>);
        }),
      ).toThrow(/has no DefinitionSubstitutions entry|entry Extra is not used by the definition/);
    }
  });
});

/** A stack with just the analysis workflow's container task, synthesized with `context` (and bundling). */
function containerTaskStack(context: Record<string, unknown>) {
  const outdir = mkdtempSync(join(tmpdir(), 'media-scanner-cdk-'));
  try {
    const app = new App({ outdir, context });
    const stack = new Stack(app, 'Test');
    const media = new MediaBucket(stack, 'Media');
    const { taskDefinition } = new ServiceContainerTask(stack, 'Signals', {
      contract: containerContractOf(units.container('analysis', 'SignalsTaskDefinitionArn')),
      cluster: new ContainerCluster(stack, 'Containers', { taskLimit: admissionDefaults.containerTasks }),
      environment: {},
      table: new ServiceTable(stack, 'Table'),
      bucket: media.bucket,
    });
    const q = new TemplateQueries(Template.fromStack(stack));
    const definition = q.resource(stack.getLogicalId(taskDefinition.node.defaultChild as CfnElement)).Properties as {
      ContainerDefinitions: { Image: unknown }[];
      ExecutionRoleArn: FnGetAtt;
    };
    const assets = JSON.parse(readFileSync(join(outdir, `${stack.artifactId}.assets.json`), 'utf8')) as { dockerImages?: Record<string, unknown> };
    const nagErrors = new AwsSolutionsChecks()
      .validateScope(app)
      .violations.filter((v) => v.severity === 'error')
      .map((v) => v.ruleName);
    return {
      image: definition.ContainerDefinitions[0]!.Image,
      executionRole: q.statementsOfRole(definition.ExecutionRoleArn['Fn::GetAtt'][0]),
      dockerImages: assets.dockerImages ?? {},
      nagErrors,
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

describe('ServiceContainerTask with -c containerImageUri', () => {
  const ecrPull = ['ecr:BatchCheckLayerAvailability', 'ecr:GetDownloadUrlForLayer', 'ecr:BatchGetImage'];
  const actions = (statements: Statement[]) => statements.flatMap((s) => [s.Action].flat());

  it('runs that ECR image instead of a staged one, which the execution role may pull; nothing is staged or built', () => {
    const uri = '210987654321.dkr.ecr.us-east-1.amazonaws.com/media-scanner/signals@sha256:' + 'a'.repeat(64);
    const { image, executionRole, dockerImages, nagErrors } = containerTaskStack({ [deploymentContextKeys.containerImageUri]: uri });
    expect(image).toBe(uri);
    expect(dockerImages).toEqual({});
    const pull = executionRole.find((s) => ecrPull.every((action) => [s.Action].flat().includes(action)));
    expect(pull?.Resource).toEqual({ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':ecr:us-east-1:210987654321:repository/media-scanner/signals']] });
    expect(nagErrors).toEqual([]);
  });

  it('runs an image of another registry with no ECR repository access, and refuses a malformed ECR URI', () => {
    const { image, executionRole, dockerImages, nagErrors } = containerTaskStack({
      [deploymentContextKeys.containerImageUri]: 'ghcr.io/example/media-scanner-signals:1.2.3',
    });
    expect(image).toBe('ghcr.io/example/media-scanner-signals:1.2.3');
    expect(dockerImages).toEqual({});
    expect(actions(executionRole).filter((action) => ecrPull.includes(action))).toEqual([]);
    expect(nagErrors).toEqual([]);
    expect(() => containerTaskStack({ [deploymentContextKeys.containerImageUri]: '1234.dkr.ecr.us-east-1.amazonaws.com/signals' })).toThrow(
      'is not an ECR image URI',
    );
  });
});

describe('checkWorkflowDefinition and substitutionErrors', () => {
  const asl = (resource: string, extra: object = {}) =>
    JSON.stringify({ StartAt: 'A', States: { A: { Type: 'Task', Resource: resource, End: true, ...extra } } });

  it('accepts placeholders that are whole Task resources matching the table', () => {
    expect(() => checkWorkflowDefinition('x.asl.json', asl('${Fn}'), ['Fn'])).not.toThrow();
  });

  it('refuses placeholders outside a Task Resource, and invalid JSON', () => {
    expect(() => checkWorkflowDefinition('x.asl.json', asl('${Fn}', { Comment: '${Other}' }), ['Fn', 'Other'])).toThrow(
      '${Other} is not the whole Resource (or invoked FunctionName, or ECS task definition, cluster, subnet or security group) of a Task state',
    );
    expect(() => checkWorkflowDefinition('x.asl.json', '{', [])).toThrow('x.asl.json is not valid JSON');
  });

  it('reports what CloudFormation substitution would leave or ignore', () => {
    expect(substitutionErrors(asl('${Fn}'), { Fn: 'arn' })).toEqual([]);
    expect(substitutionErrors(asl('${Fn}'), {})).toEqual(['${Fn} has no DefinitionSubstitutions entry']);
    expect(substitutionErrors(asl('${Fn}'), { Fn: 'arn', Other: 'arn' })).toEqual(['DefinitionSubstitutions entry Other is not used by the definition']);
  });
});
