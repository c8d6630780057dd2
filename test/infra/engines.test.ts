/**
 * The analyzer and transcriber chosen with CDK context: the analysis tasks that run them get
 * their settings and exactly their IAM, nothing else does, and cdk-nag stays clean.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Stack } from 'aws-cdk-lib';
import { workflows } from '../../functions/workflows/registry.js';
import { createApp } from '../../infra/create-app.js';
import { bedrockModelArns, signalsPlanningTask, transcriptionJobTask } from '../../infra/constructs/engine-access.js';
import { awsSolutionsErrors, synthesize, type Synthesized } from './synth.js';
import { stateMachineDeploying, TemplateQueries, type FnGetAtt, type Statement } from './template.js';

/** Synthesizes the app with these engine settings in cdk.json, where they must be for a deploy (operations-context.test.ts). */
const synthesizeWith = (settings: Record<string, string>): Synthesized => synthesize({ bundle: false, cdkJson: settings });

/** The logical id of the analysis workflow's function for a task placeholder (its description names it). */
function taskFunction(q: TemplateQueries, placeholder: string): string {
  const ids = q.functionIds().filter((id) => String(q.descriptionOf(id)).startsWith(`analysis workflow: ${placeholder} `));
  if (ids.length !== 1) throw new Error(`Expected one function for ${placeholder}, found ${ids.length}`);
  return ids[0]!;
}

const asArray = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);
const grantsAction = (q: TemplateQueries, functionId: string, prefix: string) => q.actionsOf(functionId).some((a) => a.startsWith(prefix));
const resourcesOf = (statements: Statement[], action: string) =>
  statements.filter((s) => asArray(s.Action).includes(action)).flatMap((s) => asArray(s.Resource));
const resolvedJson = (value: unknown) => JSON.stringify(value);

/** The signals container task of the analysis workflow: its task role and its one container's environment. */
function signalsContainer(q: TemplateQueries): { roleId: string; environment: Record<string, unknown> } {
  const asl = readFileSync(new URL(`../../${workflows.analysis.definitionFile}`, import.meta.url), 'utf8');
  const taskDefinitionId = stateMachineDeploying(q, asl).taskDefinitionIds.SignalsTaskDefinitionArn!;
  const { TaskRoleArn, ContainerDefinitions } = q.resource(taskDefinitionId).Properties as {
    TaskRoleArn: FnGetAtt;
    ContainerDefinitions: { Environment: { Name: string; Value: unknown }[] }[];
  };
  expect(ContainerDefinitions).toHaveLength(1);
  return { roleId: TaskRoleArn['Fn::GetAtt'][0], environment: Object.fromEntries(ContainerDefinitions[0]!.Environment.map((e) => [e.Name, e.Value])) };
}

/** The part of a set of statements that concerns a transcriber: its actions and the transcripts prefix, as comparable text. */
const transcriberStatements = (statements: Statement[]): string[] =>
  statements
    .filter((s) => asArray(s.Action).some((a) => a.startsWith('transcribe:')) || resolvedJson(s.Resource).includes('/artifacts/transcripts/'))
    .map((s) => resolvedJson({ ...s, Action: asArray(s.Action).sort() }))
    .sort();

const engineVariables = [
  'ANALYZER',
  'BEDROCK_MODEL_ID',
  'OPENAI_BASE_URL',
  'OPENAI_MODEL',
  'OPENAI_API_KEY_SECRET_ID',
  'TRANSCRIBER',
  'TRANSCRIBE_LANGUAGE_CODE',
];
const engineEnvironment = (environment: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(environment).filter(([name]) => engineVariables.includes(name)));

// Not the run's shared synthesis (shared-assembly.ts): this file runs while that one bundles.
let defaults: Synthesized;
beforeAll(() => {
  defaults = synthesizeWith({});
});
afterAll(() => defaults?.dispose());

describe('the defaults: the local analyzer, no transcriber', () => {
  it('configure and grant no engine at all', () => {
    const q = new TemplateQueries(defaults.template);
    expect(q.functionIds().filter((id) => grantsAction(q, id, 'bedrock:') || grantsAction(q, id, 'transcribe:'))).toEqual([]);
    expect(q.functionIds().filter((id) => 'ANALYZER' in q.environmentOf(id) || 'TRANSCRIBER' in q.environmentOf(id))).toEqual([]);
    const container = signalsContainer(q);
    expect(engineEnvironment(container.environment)).toEqual({});
    expect(transcriberStatements(q.statementsOfRole(container.roleId))).toEqual([]);
  });
});

describe('bedrock through an inference profile, and Amazon Transcribe', () => {
  let synthesized: Synthesized;
  let q: TemplateQueries;
  const modelId = 'eu.anthropic.claude-3-5-sonnet-20240620-v1:0';

  beforeAll(() => {
    synthesized = synthesizeWith({ analyzer: 'bedrock', bedrockModelId: modelId, transcriber: 'aws-transcribe', transcribeLanguageCode: 'de-DE' });
    q = new TemplateQueries(synthesized.template);
  });
  afterAll(() => synthesized?.dispose());

  it('configures and grants bedrock:InvokeModel to the two tasks that answer, and to no other function', () => {
    const answering = ['AnalyzeChunkFunction', 'PersistResultsFunction'].map((placeholder) => taskFunction(q, placeholder));
    for (const id of answering) {
      expect(q.environmentOf(id)).toMatchObject({ ANALYZER: 'bedrock', BEDROCK_MODEL_ID: modelId });
      const resources = resolvedJson(resourcesOf(q.statementsOf(id), 'bedrock:InvokeModel'));
      expect(resources).toContain(`:inference-profile/${modelId}`);
      expect(resources).toContain(':bedrock:*::foundation-model/anthropic.claude-3-5-sonnet-20240620-v1:0');
    }
    const others = q.functionIds().filter((id) => !answering.includes(id));
    expect(others.filter((id) => grantsAction(q, id, 'bedrock:'))).toEqual([]);
    expect(others.filter((id) => 'ANALYZER' in q.environmentOf(id))).toEqual([]);
  });

  it('lets AwaitTranscript alone run Transcribe jobs of this service, on the staged audio and their output; the signals units only stage audio', () => {
    const poller = taskFunction(q, transcriptionJobTask);
    expect(q.environmentOf(poller)).toMatchObject({ TRANSCRIBER: 'aws-transcribe', TRANSCRIBE_LANGUAGE_CODE: 'de-DE' });
    const statements = q.statementsOf(poller);
    for (const action of ['transcribe:StartTranscriptionJob', 'transcribe:GetTranscriptionJob', 'transcribe:DeleteTranscriptionJob']) {
      expect(resolvedJson(resourcesOf(statements, action)), action).toContain(':transcription-job/media-scanner-*');
    }
    // Transcribe reads the staged audio and writes its output as the caller.
    expect(resolvedJson(resourcesOf(statements, 's3:GetObject'))).toContain('/artifacts/transcripts/*');
    expect(resolvedJson(resourcesOf(statements, 's3:PutObject'))).toContain('/artifacts/transcripts/*');
    expect(q.functionIds().filter((id) => id !== poller && grantsAction(q, id, 'transcribe:'))).toEqual([]);
    expect(transcriberStatements(q.statementsOfRole(signalsContainer(q).roleId))).toEqual([]);
  });

  it('tells the signals function and container (which stage the audio) and PlanChunks (which plans the wait) the transcriber, and no other unit', () => {
    const extract = taskFunction(q, 'ExtractChunkSignalsFunction');
    const planning = taskFunction(q, signalsPlanningTask);
    const poller = taskFunction(q, transcriptionJobTask);
    expect(engineEnvironment(signalsContainer(q).environment)).toEqual({ TRANSCRIBER: 'aws-transcribe', TRANSCRIBE_LANGUAGE_CODE: 'de-DE' });
    for (const id of [extract, planning]) expect(q.environmentOf(id)).toMatchObject({ TRANSCRIBER: 'aws-transcribe', TRANSCRIBE_LANGUAGE_CODE: 'de-DE' });
    expect(
      q
        .functionIds()
        .filter((id) => 'TRANSCRIBER' in q.environmentOf(id))
        .sort(),
    ).toEqual([extract, planning, poller].sort());
    // And nothing of the analyzer, which the container does not run.
    expect(
      q
        .statementsOfRole(signalsContainer(q).roleId)
        .flatMap((s) => asArray(s.Action))
        .filter((a) => a.startsWith('bedrock:')),
    ).toEqual([]);
  });

  it('adds no cdk-nag finding: every wildcard it grants is acknowledged with its reason', () => {
    expect(awsSolutionsErrors(synthesized.validationReport)).toEqual(awsSolutionsErrors(defaults.validationReport));
  });
});

describe('an OpenAI-compatible endpoint with its key in Secrets Manager, no transcriber', () => {
  let synthesized: Synthesized;
  let q: TemplateQueries;

  beforeAll(() => {
    synthesized = synthesizeWith({
      analyzer: 'openai',
      openaiBaseUrl: 'https://llm.example.com/v1',
      openaiModel: 'gpt-4o-mini',
      openaiApiKeySecret: 'media-scanner/openai-key',
    });
    q = new TemplateQueries(synthesized.template);
  });
  afterAll(() => synthesized?.dispose());

  it('tells the answering tasks the endpoint, the model and the secret, and lets them read that secret', () => {
    for (const id of ['AnalyzeChunkFunction', 'PersistResultsFunction'].map((placeholder) => taskFunction(q, placeholder))) {
      expect(q.environmentOf(id)).toMatchObject({
        ANALYZER: 'openai',
        OPENAI_BASE_URL: 'https://llm.example.com/v1',
        OPENAI_MODEL: 'gpt-4o-mini',
        OPENAI_API_KEY_SECRET_ID: 'media-scanner/openai-key',
      });
      expect(resolvedJson(resourcesOf(q.statementsOf(id), 'secretsmanager:GetSecretValue'))).toContain(':secret:media-scanner/openai-key-??????');
    }
  });

  it('never puts a key in the template, and grants no model or transcription service', () => {
    const template = JSON.stringify(synthesized.template.toJSON());
    expect(template).not.toContain('"OPENAI_API_KEY"');
    expect(q.functionIds().filter((id) => grantsAction(q, id, 'bedrock:') || grantsAction(q, id, 'transcribe:'))).toEqual([]);
    expect(q.functionIds().filter((id) => 'TRANSCRIBER' in q.environmentOf(id))).toEqual([]);
  });

  it('adds no cdk-nag finding: every wildcard it grants is acknowledged with its reason', () => {
    expect(awsSolutionsErrors(synthesized.validationReport)).toEqual(awsSolutionsErrors(defaults.validationReport));
  });
});

describe('moonshine: English speech in the signals container, no Amazon Transcribe', () => {
  let synthesized: Synthesized;
  let q: TemplateQueries;

  beforeAll(() => {
    synthesized = synthesizeWith({ transcriber: 'moonshine' });
    q = new TemplateQueries(synthesized.template);
  });
  afterAll(() => synthesized?.dispose());

  it('runs it in the signals container only, where the image carries its models and runtime, and sends every chunk there', () => {
    expect(engineEnvironment(signalsContainer(q).environment)).toEqual({ TRANSCRIBER: 'moonshine', TRANSCRIBE_LANGUAGE_CODE: 'en-US' });
    // No function can load it: none is told to run it, and the planner never picks the signals function.
    expect(q.functionIds().filter((id) => 'TRANSCRIBER' in q.environmentOf(id))).toEqual([]);
    expect(q.environmentOf(taskFunction(q, signalsPlanningTask))).toMatchObject({ SIGNALS_RUNNER: 'container' });
    expect(q.functionIds().filter((id) => 'SIGNALS_RUNNER' in q.environmentOf(id))).toEqual([taskFunction(q, signalsPlanningTask)]);
  });

  it('grants no transcription service, and adds no cdk-nag finding', () => {
    expect(q.functionIds().filter((id) => grantsAction(q, id, 'transcribe:'))).toEqual([]);
    expect(transcriberStatements(q.statementsOfRole(signalsContainer(q).roleId))).toEqual([]);
    expect(awsSolutionsErrors(synthesized.validationReport)).toEqual(awsSolutionsErrors(defaults.validationReport));
  });
});

describe('engine context', () => {
  // cdk.json's feature flags, as `cdk synth` reads them.
  const cdkContext = (JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context: Record<string, unknown> }).context;

  it.each([
    [{ analyzer: 'bedrock' }, /bedrockModelId: required when analyzer=bedrock/],
    [{ analyzer: 'openai', openaiModel: 'gpt-4o-mini' }, /openaiBaseUrl/],
    [{ analyzer: 'gpt' }, /analyzer/],
    [{ transcriber: 'whisper-cpp' }, /local host only/],
    [{ transcriber: 'moonshine', transcribeLanguageCode: 'de-DE' }, /transcribeLanguageCode/],
    [{ transcriber: 'aws-transcribe', transcribeLanguageCode: 'german' }, /transcribeLanguageCode/],
  ])('refuses %j, naming the context key', (context, message) => {
    // In cdk.json, where engine settings belong (a command line alone is refused before they are read).
    expect(() => createApp({ context: { ...cdkContext, ...context }, committedContext: { ...cdkContext, ...context } })).toThrow(message);
  });

  it('grants a plain model id on its foundation model in the stack region only', () => {
    const stack = new Stack();
    const { arns, anyRegionModel } = bedrockModelArns(stack, 'amazon.nova-lite-v1:0');
    expect(anyRegionModel).toBeNull();
    expect(stack.resolve(arns)).toEqual([
      { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':bedrock:', { Ref: 'AWS::Region' }, '::foundation-model/amazon.nova-lite-v1:0']] },
    ]);
  });
});
