import { Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { Secret, type ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct, type Node } from 'constructs';
import { parseEngineConfig, type EngineConfig } from '../../functions/config.js';
import { TRANSCRIPTION_JOB_PREFIX, TRANSCRIPTS_PREFIX } from '../../functions/adapters/transcribers/aws-transcribe.js';
import { workflows, type WorkflowTask } from '../../functions/workflows/registry.js';
import type { ServiceContainerTask } from './service-container-task.js';
import type { ServiceFunction } from './service-function.js';

/** Each CDK context key (`cdk deploy -c analyzer=bedrock ...`) and the setting of functions/config.ts it becomes. */
export const engineContextKeys = {
  analyzer: 'ANALYZER',
  transcriber: 'TRANSCRIBER',
  bedrockModelId: 'BEDROCK_MODEL_ID',
  openaiBaseUrl: 'OPENAI_BASE_URL',
  openaiModel: 'OPENAI_MODEL',
  /** A Secrets Manager secret name: the key is read at run time, never put in the template. */
  openaiApiKeySecret: 'OPENAI_API_KEY_SECRET_ID',
  transcribeLanguageCode: 'TRANSCRIBE_LANGUAGE_CODE',
} as const;

type Analysis = (typeof workflows)['analysis'];
/**
 * The analysis tasks that call the Analyzer (per chunk, and once over the whole source) and the
 * Transcriber (beside the signals, in a function or, for long chunks, a container; with Amazon
 * Transcribe they stage the chunk's audio, and AwaitTranscript alone calls Transcribe).
 */
export const analyzerTasks = (Object.entries(workflows.analysis.tasks) as [keyof Analysis['tasks'], WorkflowTask][])
  .filter(([, task]) => task.analyzes)
  .map(([name]) => name);
export const transcriberTasks = ['ExtractChunkSignalsFunction'] as const satisfies readonly (keyof Analysis['tasks'])[];
const transcriberContainerTasks = ['SignalsTaskDefinitionArn'] as const satisfies readonly (keyof Analysis['containerTasks'])[];
/** The task that chooses where each run's chunks are extracted (SIGNALS_RUNNER), and whether they wait for a transcription job. */
export const signalsPlanningTask = 'PlanChunksFunction' satisfies keyof Analysis['tasks'];
/** The task that polls a chunk's Amazon Transcribe job between the state machine's Wait states. */
export const transcriptionJobTask = 'AwaitTranscriptFunction' satisfies keyof Analysis['tasks'];

/** Something that runs an engine: its grants go to `grantee`, cdk-nag acknowledgements on `scope`, which owns it. */
interface EngineUser {
  readonly scope: Construct;
  readonly grantee: IGrantable;
  addEnvironment(name: string, value: string): void;
}

/** Cross-region inference profiles (`eu.anthropic...`) route to the model in any region of their geography. */
const INFERENCE_PROFILE = /^(us|us-gov|eu|apac|jp|au|ca|global)\.(.+)$/;

/**
 * What bedrock:InvokeModel must cover for a model id, or for a cross-region inference profile id
 * (then also the profile's model in any region: `anyRegionModel`).
 */
export function bedrockModelArns(stack: Stack, modelId: string): { arns: string[]; anyRegionModel: string | null } {
  const foundationModel = (id: string, region?: string) =>
    stack.formatArn({ service: 'bedrock', account: '', resource: 'foundation-model', resourceName: id, ...(region ? { region } : {}) });
  const model = INFERENCE_PROFILE.exec(modelId)?.[2];
  if (!model) return { arns: [foundationModel(modelId)], anyRegionModel: null };
  return {
    arns: [stack.formatArn({ service: 'bedrock', resource: 'inference-profile', resourceName: modelId }), foundationModel(model, '*')],
    anyRegionModel: model,
  };
}

/** The engine settings the app's context names, checked as the functions check them; whisper.cpp is for the local host only. */
function engineSettingsIn(node: Node): EngineConfig {
  const settings = Object.fromEntries(
    Object.entries(engineContextKeys).map(([key, variable]) => {
      const value: unknown = node.tryGetContext(key);
      // `-c key=value` gives strings; cdk.json may hold other JSON values, which then fail validation visibly.
      return [variable, value === undefined || typeof value === 'string' ? value : JSON.stringify(value)];
    }),
  );
  if (settings.TRANSCRIBER === 'whisper-cpp') {
    throw new Error('Invalid CDK context: transcriber=whisper-cpp runs on the local host only; on AWS use transcriber=moonshine or aws-transcribe');
  }
  try {
    return parseEngineConfig(settings);
  } catch (error) {
    // Name the context keys the deployer typed, not the variables they become.
    const message = Object.entries(engineContextKeys)
      .sort(([, a], [, b]) => b.length - a.length)
      .reduce((text, [key, variable]) => text.replaceAll(variable, key), (error as Error).message);
    throw new Error(message.replace('Invalid configuration', 'Invalid CDK context'));
  }
}

interface EngineAccessProps {
  /** The media bucket: Amazon Transcribe reads sources from it and writes transcripts under TRANSCRIPTS_PREFIX. */
  readonly bucket: Bucket;
}

/**
 * The analyzer and transcriber chosen with CDK context (DESIGN §7) and what the tasks that run
 * them need: their settings as environment variables and IAM for exactly that engine. The local
 * analyzer and no transcriber (the defaults) need nothing, so nothing is granted.
 */
export class EngineAccess extends Construct {
  public readonly engines: EngineConfig;
  private readonly bucket: Bucket;
  private openAiKey: ISecret | undefined;

  public constructor(scope: Construct, id: string, props: EngineAccessProps) {
    super(scope, id);
    this.engines = engineSettingsIn(this.node);
    this.bucket = props.bucket;
  }

  /** The analysis workflow's task functions and container tasks, by their workflow-table placeholders. */
  public bindAnalysisTasks(tasks: Readonly<Record<string, ServiceFunction>>, containerTasks: Readonly<Record<string, ServiceContainerTask>>): void {
    const functionUser = (name: string): EngineUser => {
      const task = tasks[name];
      if (!task) throw new Error(`The analysis workflow has no task ${name}`);
      return { scope: task, grantee: task.fn, addEnvironment: (variable, value) => task.fn.addEnvironment(variable, value) };
    };
    const containerUser = (name: string): EngineUser => {
      const task = containerTasks[name];
      if (!task) throw new Error(`The analysis workflow has no container task ${name}`);
      return { scope: task, grantee: task.taskDefinition.taskRole, addEnvironment: (variable, value) => task.container.addEnvironment(variable, value) };
    };
    for (const name of analyzerTasks) this.bindAnalyzer(functionUser(name));
    for (const name of transcriberTasks) this.bindTranscriber(functionUser(name), 'lambda');
    for (const name of transcriberContainerTasks) this.bindTranscriber(containerUser(name), 'container');
    // Only the image carries moonshine's models and native runtime: every chunk goes to the container.
    if (this.engines.TRANSCRIBER === 'moonshine') functionUser(signalsPlanningTask).addEnvironment('SIGNALS_RUNNER', 'container');
    if (this.engines.TRANSCRIBER === 'aws-transcribe') {
      // PlanChunks plans each chunk's wait for its job (transcription `job`); it never calls Transcribe.
      this.setTranscriber(functionUser(signalsPlanningTask));
      this.bindTranscriptionJobs(functionUser(transcriptionJobTask));
    }
  }

  private setTranscriber(user: EngineUser): void {
    user.addEnvironment('TRANSCRIBER', this.engines.TRANSCRIBER);
    user.addEnvironment('TRANSCRIBE_LANGUAGE_CODE', this.engines.TRANSCRIBE_LANGUAGE_CODE);
  }

  /** The chosen analyzer's settings and IAM (its settings were checked by parseEngineConfig) for what runs it. */
  public bindAnalyzer(user: EngineUser): void {
    const { engines } = this;
    switch (engines.ANALYZER) {
      case 'local':
        return;
      case 'bedrock': {
        const modelId = engines.BEDROCK_MODEL_ID!;
        user.addEnvironment('ANALYZER', 'bedrock');
        user.addEnvironment('BEDROCK_MODEL_ID', modelId);
        // Converse is authorised as InvokeModel.
        const { arns, anyRegionModel } = bedrockModelArns(Stack.of(this), modelId);
        Grant.addToPrincipal({ grantee: user.grantee, actions: ['bedrock:InvokeModel'], resourceArns: arns });
        if (anyRegionModel) {
          Validations.of(user.scope).acknowledge({
            id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:bedrock:*::foundation-model/${anyRegionModel}]`,
            reason:
              'A cross-region inference profile invokes its one model in whichever region of its geography has capacity: the grant names that model, in any region.',
          });
        }
        return;
      }
      case 'openai': {
        user.addEnvironment('ANALYZER', 'openai');
        user.addEnvironment('OPENAI_BASE_URL', engines.OPENAI_BASE_URL!);
        user.addEnvironment('OPENAI_MODEL', engines.OPENAI_MODEL!);
        const secretName = engines.OPENAI_API_KEY_SECRET_ID;
        if (!secretName) return; // an endpoint that takes no key
        this.openAiKey ??= Secret.fromSecretNameV2(this, 'OpenAiApiKey', secretName);
        this.openAiKey.grantRead(user.grantee);
        user.addEnvironment('OPENAI_API_KEY_SECRET_ID', secretName);
        return;
      }
    }
  }

  /**
   * The chosen transcriber's settings for what extracts signals: a task function, or a container
   * task. moonshine runs in the container only (its image's SPEECH_MODEL_DIR: models and
   * onnxruntime-node); the function is then never asked to extract signals (bindAnalysisTasks).
   * With Amazon Transcribe both stage the chunk's audio in the bucket (their object access
   * covers it) and call nothing else.
   */
  public bindTranscriber(user: EngineUser, runner: 'lambda' | 'container'): void {
    const { engines } = this;
    if ((engines.TRANSCRIBER === 'moonshine' && runner === 'container') || engines.TRANSCRIBER === 'aws-transcribe') this.setTranscriber(user);
  }

  /** Amazon Transcribe's settings and IAM for the task that starts and polls the jobs (AwaitTranscript). */
  private bindTranscriptionJobs(user: EngineUser): void {
    this.setTranscriber(user);
    const jobs = Stack.of(this).formatArn({ service: 'transcribe', resource: 'transcription-job', resourceName: `${TRANSCRIPTION_JOB_PREFIX}*` });
    Grant.addToPrincipal({
      grantee: user.grantee,
      actions: ['transcribe:StartTranscriptionJob', 'transcribe:GetTranscriptionJob', 'transcribe:DeleteTranscriptionJob'],
      resourceArns: [jobs],
    });
    // Transcribe reads the staged audio and writes its output with the caller's permissions.
    Grant.addToPrincipal({
      grantee: user.grantee,
      actions: ['s3:PutObject', 's3:GetObject'],
      resourceArns: [this.bucket.arnForObjects(`${TRANSCRIPTS_PREFIX}*`)],
    });
    const bucketId = Stack.of(this.bucket).getLogicalId(this.bucket.node.defaultChild as CfnElement);
    Validations.of(user.scope).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:transcribe:<AWS::Region>:<AWS::AccountId>:transcription-job/${TRANSCRIPTION_JOB_PREFIX}*]`,
      reason: 'Job names are derived from each source and window (one job per chunk and language); the wildcard covers only the jobs this service names.',
    });
    Validations.of(user.scope).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${TRANSCRIPTS_PREFIX}*]`,
      reason: 'Each job reads its staged audio and writes one output object under the transcripts prefix, which the caller then reads back.',
    });
  }
}
