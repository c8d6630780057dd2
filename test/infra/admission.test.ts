/**
 * Admission to capacity (DESIGN §6, issue #26 item 2): the deployment's limits reach every function
 * from cdk.json, the container subnets hold the task limit, and container tasks refused for
 * capacity or throttled are retried with backoff until the run's deadline, not failed in seconds.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { BUNDLING_STACKS } from 'aws-cdk-lib/cx-api';
import { workflows } from '../../functions/workflows/registry.js';
import { admittedRuns, runParallelTasks } from '../../functions/workflows/admission.js';
import { subnetPrefixFor } from '../../infra/constructs/container-cluster.js';
import { admissionContextKeys, cdkJsonContext } from '../../infra/deployment-context.js';
import { MediaScannerStack } from '../../infra/stack.js';
import { SHARED_ASSEMBLY_TIMEOUT_MS, sharedAssembly } from './shared-assembly.js';
import { TemplateQueries } from './template.js';

const cdkJson = cdkJsonContext();
const outdir = mkdtempSync(join(tmpdir(), 'media-scanner-cdk-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** Addresses ECS can give awsvpc tasks in each of the template's subnets (AWS keeps 5 per subnet). */
const taskAddressesPerSubnet = (q: TemplateQueries): number[] =>
  Object.values(q.find('AWS::EC2::Subnet')).map((subnet) => 2 ** (32 - Number(String(subnet.Properties.CidrBlock).split('/')[1])) - 5);

/** The stack built (not bundled) with cdk.json's context plus `context`. */
const stackWith = (context: Record<string, unknown>) =>
  new TemplateQueries(
    Template.fromStack(new MediaScannerStack(new App({ outdir, context: { ...cdkJson, [BUNDLING_STACKS]: [], ...context } }), 'MediaScanner')),
  );

describe('the admission limits in the template', () => {
  let q: TemplateQueries;
  beforeAll(async () => {
    q = new TemplateQueries((await sharedAssembly()).template);
  }, SHARED_ASSEMBLY_TIMEOUT_MS);
  const limit = Number(cdkJson[admissionContextKeys.containerTaskLimit]);

  it('come from cdk.json to every function, with no Transcribe limit where Transcribe is not used', () => {
    expect(limit).toBeGreaterThan(0);
    const environments = q.nodeFunctionIds().map((id) => q.environmentOf(id));
    expect(environments.length).toBeGreaterThan(0);
    for (const environment of environments) {
      expect(environment.CONTAINER_TASK_LIMIT).toBe(String(limit));
      expect(environment).not.toHaveProperty('TRANSCRIBE_JOB_LIMIT');
    }
  });

  it('size each container subnet to hold every task the limit allows', () => {
    const addresses = taskAddressesPerSubnet(q);
    expect(addresses).toHaveLength(2);
    for (const count of addresses) expect(count).toBeGreaterThanOrEqual(limit);
  });
});

describe('the admission limits from context', () => {
  it("reach the functions and the subnets: 4,000 tasks take two /20 subnets; Transcribe's limit goes where Transcribe is used", () => {
    const q = stackWith({ containerTaskLimit: 4000, transcribeJobLimit: '100', transcriber: 'aws-transcribe' });
    for (const id of q.nodeFunctionIds()) expect(q.environmentOf(id)).toMatchObject({ CONTAINER_TASK_LIMIT: '4000', TRANSCRIBE_JOB_LIMIT: '100' });
    expect(Object.values(q.find('AWS::EC2::Subnet')).map((subnet) => String(subnet.Properties.CidrBlock).split('/')[1])).toEqual(['20', '20']);
    expect(taskAddressesPerSubnet(q).every((count) => count >= 4000)).toBe(true);
    // 100 Transcribe jobs at 4 per run admit 25 runs, fewer than the tasks' 1,000.
    expect(admittedRuns({ containerTasks: 4000, transcribeJobs: 100 })).toBe(Math.floor(100 / runParallelTasks));
  });

  it('refuse limits that admit no run, and task limits no two subnets of the VPC can hold', () => {
    expect(() => stackWith({ containerTaskLimit: runParallelTasks - 1 })).toThrow(/at least/);
    expect(() => stackWith({ containerTaskLimit: 40_000 })).toThrow(/containerTaskLimit=40000 needs more addresses/);
    expect(() => stackWith({ containerTaskLimit: 'many' })).toThrow(/containerTaskLimit must be a positive integer/);
  });

  it('pick the smallest subnet that holds the limit', () => {
    expect([1, 11, 12, 251, 252, 1019, 1020, 4091].map(subnetPrefixFor)).toEqual([28, 28, 27, 24, 23, 22, 21, 20]);
  });
});

/**
 * Whether a retrier keeps retrying for longer than `seconds`, even with full jitter (on average
 * half of each delay): its expected waits summed, attempt by attempt, until they pass `seconds`.
 */
function outlasts(retrier: Retrier, seconds: number): boolean {
  let waited = 0;
  for (let attempt = 0; attempt < retrier.MaxAttempts && waited <= seconds; attempt++) {
    waited += Math.min(retrier.IntervalSeconds * retrier.BackoffRate ** attempt, retrier.MaxDelaySeconds ?? Infinity) / 2;
  }
  return waited > seconds;
}

interface Retrier {
  ErrorEquals: string[];
  IntervalSeconds: number;
  MaxAttempts: number;
  BackoffRate: number;
  MaxDelaySeconds?: number;
  JitterStrategy?: string;
}
interface State {
  Type: string;
  Resource?: string;
  Retry?: Retrier[];
  ItemProcessor?: { States: Record<string, State> };
}

/** Every state of an ASL document, Map item processors included. */
const allStates = (states: Record<string, State>): [string, State][] =>
  Object.entries(states).flatMap(([name, state]) => [[name, state] as [string, State], ...allStates(state.ItemProcessor?.States ?? {})]);

const definitions = Object.values(workflows).map((workflow) => {
  const definition = JSON.parse(readFileSync(new URL(`../../${workflow.definitionFile}`, import.meta.url), 'utf8')) as {
    TimeoutSeconds: number;
    States: Record<string, State>;
  };
  return { file: workflow.definitionFile, deadline: definition.TimeoutSeconds, states: allStates(definition.States) };
});
const containerStates = definitions.flatMap(({ file, deadline, states }) =>
  states.filter(([, state]) => state.Resource === 'arn:aws:states:::ecs:runTask.sync').map(([name, state]) => ({ where: `${file} ${name}`, deadline, state })),
);

describe('container tasks refused for capacity', () => {
  it('are every ecs:runTask.sync state of the workflows', () => {
    expect(containerStates.map(({ where }) => where)).toEqual(
      expect.arrayContaining([expect.stringContaining('ExtractChunkSignalsInContainer'), expect.stringContaining('RenderMoment')]),
    );
  });

  it.each(containerStates.map((entry) => [entry.where, entry] as const))(
    "%s: ECS refusals are retried with growing, jittered delays until the run's deadline",
    (_where, { deadline, state }) => {
      const [first, ...rest] = state.Retry ?? [];
      // First: Step Functions uses the first retrier whose ErrorEquals matches.
      expect(first?.ErrorEquals).toContain('ECS.AmazonECSException');
      expect(first!.BackoffRate).toBeGreaterThan(1);
      expect(first!.JitterStrategy).toBe('FULL');
      // The retries outlast the execution's timeout: it, not a count, ends them, and the
      // executions settler then fails and refunds the run.
      expect(outlasts(first!, deadline)).toBe(true);
      // A task that ran and crashed is still retried briefly, then fails the step.
      const crash = rest.find((retrier) => retrier.ErrorEquals.includes('States.TaskFailed'));
      expect(crash?.MaxAttempts).toBeLessThanOrEqual(2);
    },
  );

  it('Bedrock throttling of the answering step is retried the same way, past the two quick retries of other failures', () => {
    const analysis = definitions.find(({ file }) => file === workflows.analysis.definitionFile)!;
    const [, analyzeChunk] = analysis.states.find(([name]) => name === 'AnalyzeChunk')!;
    const [first] = analyzeChunk.Retry ?? [];
    expect(first?.ErrorEquals).toContain('ThrottlingException');
    expect(outlasts(first!, analysis.deadline)).toBe(true);
  });
});
