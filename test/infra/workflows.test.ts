import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { containerPlacement, workflows, type WorkflowDefinition, type WorkflowTask } from '../../functions/workflows/registry.js';
import { SHARED_ASSEMBLY_TIMEOUT_MS, sharedAssembly } from './shared-assembly.js';
import type { SynthesizedAssembly } from './synth.js';
import {
  deployedDefinition,
  rulesOnStateMachine,
  settleFunctionOf,
  stateMachineDeploying,
  TemplateQueries,
  type FnGetAtt,
  type Statement,
} from './template.js';

let assembly: SynthesizedAssembly;
let q: TemplateQueries;

// The template's shape is what matters here, from the run's one synthesis (shared-assembly-setup.ts).
beforeAll(async () => {
  assembly = await sharedAssembly();
  q = new TemplateQueries(assembly.template);
}, SHARED_ASSEMBLY_TIMEOUT_MS);

const entries = Object.entries(workflows as Readonly<Record<string, WorkflowDefinition>>);
const aslOf = (workflow: WorkflowDefinition): string => readFileSync(new URL(`../../${workflow.definitionFile}`, import.meta.url), 'utf8');

/** Placeholders as CloudFormation's DefinitionSubstitutions sees them, read straight from the file. */
const placeholdersOf = (asl: string): string[] => [...new Set([...asl.matchAll(/\$\{([^}]*)\}/g)].map((m) => m[1]!))].sort();

const actions = (statement: Statement): string[] => [statement.Action].flat();

describe('EventBridge rules', () => {
  it('on execution status changes are exactly one per workflow that settles its ended executions', () => {
    const onExecutions = Object.values(q.find('AWS::Events::Rule')).filter(
      (rule) => JSON.stringify((rule.Properties.EventPattern as { source?: unknown }).source) === '["aws.states"]',
    );
    expect(onExecutions).toHaveLength(entries.filter(([, workflow]) => workflow.onExecutionEnded).length);
  });
});

describe.each(entries)('workflow %s', (name, workflow) => {
  const asl = aslOf(workflow);
  const machine = () => stateMachineDeploying(q, asl);

  it('is one Standard state machine named <stack>-<workflow>, deploying its ASL file inline', () => {
    const { resource } = machine();
    expect(resource.Properties.StateMachineType).toBe('STANDARD');
    expect(resource.Properties.StateMachineName).toBe(`${assembly.stackName}-${name}`);
    expect(resource.Properties.DefinitionString).toBe(deployedDefinition(asl));
  });

  it('substitutes exactly the placeholders of the ASL file: the table tasks, the container tasks and where those run', () => {
    const placeholders = placeholdersOf(asl);
    expect(placeholders.length).toBeGreaterThan(0);
    expect(Object.keys(machine().resource.Properties.DefinitionSubstitutions as object).sort()).toEqual(placeholders);
    const containerTasks = Object.keys(workflow.containerTasks ?? {});
    const placement = containerTasks.length ? [containerPlacement.cluster, ...containerPlacement.subnets, containerPlacement.securityGroup] : [];
    expect([...Object.keys(workflow.tasks), ...containerTasks, ...placement].sort()).toEqual(placeholders);
  });

  it('leaves no ${...} in the definition once CloudFormation substitutes', () => {
    const { resource } = machine();
    const substitutions = resource.Properties.DefinitionSubstitutions as Record<string, unknown>;
    let definition = resource.Properties.DefinitionString as string;
    for (const key of Object.keys(substitutions)) {
      expect(definition, key).toContain(`\${${key}}`);
      definition = definition.replaceAll(`\${${key}}`, `arn:aws:lambda:eu-west-1:123456789012:function:${key}`);
    }
    expect(definition).not.toMatch(/\$\{/);
  });

  it('runs each task on its own function with the timeout and memory of its table entry, on x86_64 if it runs ffmpeg, else arm64', () => {
    const { taskFunctionIds } = machine();
    expect(new Set(Object.values(taskFunctionIds)).size).toBe(Object.keys(workflow.tasks).length);
    for (const [placeholder, task] of Object.entries(workflow.tasks)) {
      const functionId = taskFunctionIds[placeholder]!;
      expect(q.resource(functionId).Type).toBe('AWS::Lambda::Function');
      expect(q.resource(functionId).Properties, placeholder).toMatchObject({
        Timeout: task.timeoutSeconds,
        MemorySize: task.memoryMb,
        Runtime: 'nodejs24.x',
        Architectures: [task.ffmpeg ? 'x86_64' : 'arm64'],
      });
      expect(q.descriptionOf(functionId), placeholder).toContain(task.handler);
    }
  });

  /** Every function of the workflow with its table entry: the tasks, and what settles ended executions. */
  const functionsWithEntries = (): [string, string, WorkflowTask][] => {
    const { id, taskFunctionIds } = machine();
    return [
      ...Object.entries(workflow.tasks).map(([placeholder, task]): [string, string, WorkflowTask] => [placeholder, taskFunctionIds[placeholder]!, task]),
      ...(workflow.onExecutionEnded ? [['onExecutionEnded', settleFunctionOf(q, id), workflow.onExecutionEnded] as [string, string, WorkflowTask]] : []),
    ];
  };

  it('grants each task function the table and bucket access of its entry, no cursor key (tasks page no lists), and Step Functions only as its entry says', () => {
    for (const [entryName, functionId, task] of functionsWithEntries()) {
      const granted = q.actionsOf(functionId);
      expect(granted, entryName).toContain('dynamodb:Query');
      expect(granted.includes('dynamodb:PutItem'), entryName).toBe(task.table === 'readWrite');
      expect(granted.includes('s3:GetObject'), entryName).toBe(task.bucket !== undefined);
      expect(granted.includes('s3:PutObject'), entryName).toBe(task.bucket === 'readWrite');
      expect(granted.includes('events:PutEvents'), entryName).toBe(!!task.events);
      expect(granted, entryName).not.toContain('secretsmanager:GetSecretValue');
      // Waking waiting executions (slot grants, a batch item's run ended) and starting a batch item's run.
      const states = [...(task.startsAnalyses ? ['states:StartExecution'] : []), ...(task.wakesWorkflows ? ['states:SendTaskSuccess'] : [])];
      expect([...new Set(granted.filter((a) => a.startsWith('states:')))].sort(), entryName).toEqual(states.sort());
    }
  });

  it.runIf(workflow.onExecutionEnded)('settles executions that end FAILED, TIMED_OUT or ABORTED with a function of its onExecutionEnded entry', () => {
    const entry = workflow.onExecutionEnded!;
    const { id } = machine();
    const rules = rulesOnStateMachine(q, id);
    expect(rules).toHaveLength(1);
    const [ruleId, rule] = rules[0]!;
    // Step Functions publishes status changes to the account's default bus: the rule names no other.
    expect(rule.Properties.EventBusName).toBeUndefined();
    expect(rule.Properties.State).toBe('ENABLED');
    expect(rule.Properties.EventPattern).toEqual({
      source: ['aws.states'],
      'detail-type': ['Step Functions Execution Status Change'],
      detail: { status: ['FAILED', 'TIMED_OUT', 'ABORTED'], stateMachineArn: [{ Ref: id }] },
    });
    const settle = settleFunctionOf(q, id);
    const [target, ...others] = rule.Properties.Targets as {
      Arn: FnGetAtt;
      Input?: unknown;
      InputPath?: unknown;
      InputTransformer?: unknown;
      RetryPolicy?: { MaximumRetryAttempts?: number };
    }[];
    expect(others).toEqual([]);
    // The whole event: the handler reads the execution's status and input from its detail.
    expect(target).toMatchObject({ Arn: { 'Fn::GetAtt': [settle, 'Arn'] } });
    expect([target!.Input, target!.InputPath, target!.InputTransformer]).toEqual([undefined, undefined, undefined]);
    expect(target!.RetryPolicy?.MaximumRetryAttempts).toBeGreaterThan(0);
    // EventBridge may invoke it, for this rule only.
    const permissions = Object.values(q.find('AWS::Lambda::Permission', { FunctionName: { 'Fn::GetAtt': [settle, 'Arn'] } }));
    expect(permissions.map((p) => p.Properties)).toEqual([
      {
        Action: 'lambda:InvokeFunction',
        FunctionName: { 'Fn::GetAtt': [settle, 'Arn'] },
        Principal: 'events.amazonaws.com',
        SourceArn: { 'Fn::GetAtt': [ruleId, 'Arn'] },
      },
    ]);
    expect(q.resource(settle).Properties).toMatchObject({
      Timeout: entry.timeoutSeconds,
      MemorySize: entry.memoryMb,
      Runtime: 'nodejs24.x',
      Architectures: [entry.ffmpeg ? 'x86_64' : 'arm64'],
    });
    expect(q.descriptionOf(settle)).toContain(entry.handler);
    // Not a task: the state machine never invokes it.
    expect(Object.values(machine().taskFunctionIds)).not.toContain(settle);
  });

  it.skipIf(workflow.onExecutionEnded)('has no rule on its ended executions, having no onExecutionEnded entry', () => {
    expect(rulesOnStateMachine(q, machine().id)).toEqual([]);
  });

  it('lets its role invoke exactly the task functions, by unqualified ARN, and nothing else in Lambda', () => {
    const { resource, taskFunctionIds } = machine();
    const roleId = (resource.Properties.RoleArn as FnGetAtt)['Fn::GetAtt'][0];
    const statements = q.statementsOfRole(roleId);
    const lambda = statements.filter((s) => actions(s).some((a) => a.startsWith('lambda:')));
    expect(lambda.flatMap(actions)).toEqual(['lambda:InvokeFunction']);
    const invocable = q.resourcesGranted(statements, 'lambda:InvokeFunction');
    expect(invocable).toHaveLength(Object.keys(workflow.tasks).length);
    expect(invocable).toEqual(expect.arrayContaining(Object.values(taskFunctionIds).map((id) => ({ 'Fn::GetAtt': [id, 'Arn'] }))));
  });

  it('logs ALL to its own log group and traces with X-Ray', () => {
    const { resource } = machine();
    expect(resource.Properties.TracingConfiguration).toEqual({ Enabled: true });
    const logging = resource.Properties.LoggingConfiguration as {
      Level: string;
      Destinations: { CloudWatchLogsLogGroup: { LogGroupArn: { 'Fn::GetAtt': [string, string] } } }[];
    };
    expect(logging.Level).toBe('ALL');
    const logGroupId = logging.Destinations[0]!.CloudWatchLogsLogGroup.LogGroupArn['Fn::GetAtt'][0];
    // Under the vended-logs prefix, and (the group outlives the stack) ending with the stack id's UUID.
    expect(q.resource(logGroupId).Properties).toMatchObject({
      LogGroupName: {
        'Fn::Join': ['-', [expect.stringMatching(/^\/aws\/vendedlogs\/states\//), { 'Fn::Select': [2, { 'Fn::Split': ['/', { Ref: 'AWS::StackId' }] }] }]],
      },
      RetentionInDays: 30,
    });
  });
});
