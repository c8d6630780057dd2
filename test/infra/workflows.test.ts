import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containerPlacement, workflows, type WorkflowDefinition } from '../../functions/workflows/registry.js';
import { synthesize, type Synthesized } from './synth.js';
import { deployedDefinition, stateMachineDeploying, TemplateQueries, type Statement } from './template.js';

let synthesized: Synthesized;
let q: TemplateQueries;

// Only the template's shape matters here: no esbuild bundling (validation.test.ts bundles).
beforeAll(() => {
  synthesized = synthesize({ bundle: false });
  q = new TemplateQueries(synthesized.template);
}, 240_000);

afterAll(() => synthesized?.dispose());

const entries = Object.entries(workflows as Readonly<Record<string, WorkflowDefinition>>);
const aslOf = (workflow: WorkflowDefinition): string => readFileSync(new URL(`../../${workflow.definitionFile}`, import.meta.url), 'utf8');

/** Placeholders as CloudFormation's DefinitionSubstitutions sees them, read straight from the file. */
const placeholdersOf = (asl: string): string[] => [...new Set([...asl.matchAll(/\$\{([^}]*)\}/g)].map((m) => m[1]!))].sort();

const actions = (statement: Statement): string[] => [statement.Action].flat();

describe.each(entries)('workflow %s', (_name, workflow) => {
  const asl = aslOf(workflow);
  const machine = () => stateMachineDeploying(q, asl);

  it('is one Standard state machine deploying its ASL file inline', () => {
    const { resource } = machine();
    expect(resource.Properties.StateMachineType).toBe('STANDARD');
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

  it('runs each task on its own function with the timeout and memory of its table entry', () => {
    const { taskFunctionIds } = machine();
    expect(new Set(Object.values(taskFunctionIds)).size).toBe(Object.keys(workflow.tasks).length);
    for (const [placeholder, task] of Object.entries(workflow.tasks)) {
      const functionId = taskFunctionIds[placeholder]!;
      expect(q.resource(functionId).Type).toBe('AWS::Lambda::Function');
      expect(q.resource(functionId).Properties, placeholder).toMatchObject({
        Timeout: task.timeoutSeconds,
        MemorySize: task.memoryMb,
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
      });
      expect(q.descriptionOf(functionId), placeholder).toContain(task.handler);
    }
  });

  it('grants each task function the table and bucket access of its entry, and the cursor key its cold start reads', () => {
    const { taskFunctionIds } = machine();
    for (const [placeholder, task] of Object.entries(workflow.tasks)) {
      const granted = q.actionsOf(taskFunctionIds[placeholder]!);
      expect(granted, placeholder).toContain('dynamodb:Query');
      expect(granted.includes('dynamodb:PutItem'), placeholder).toBe(task.table === 'readWrite');
      expect(granted.includes('s3:GetObject'), placeholder).toBe(task.bucket !== undefined);
      expect(granted.includes('s3:PutObject'), placeholder).toBe(task.bucket === 'readWrite');
      expect(granted, placeholder).toContain('secretsmanager:GetSecretValue');
      expect(granted.some((a) => a.startsWith('states:')), placeholder).toBe(false);
    }
  });

  it('lets its role invoke exactly the task functions, by unqualified ARN, and nothing else in Lambda', () => {
    const { resource, taskFunctionIds } = machine();
    const roleId = (resource.Properties.RoleArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
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
    expect(q.resource(logGroupId).Properties).toMatchObject({
      LogGroupName: expect.stringMatching(/^\/aws\/vendedlogs\/states\//) as unknown,
      RetentionInDays: 30,
    });
  });
});
