import type { DataAccess } from '../routes.js';

/**
 * The workflow table: each state machine's ASL file and, for every `${Placeholder}` Task
 * resource in it, the handler module that implements it and what that handler needs.
 * CDK deploys one Lambda per task and substitutes its ARN; the local host binds the same
 * handlers in-process. Container tasks likewise: one Fargate task definition each on AWS, the
 * same entrypoint as a child process locally. Nothing else maps tasks to code.
 *
 * Each step has one name and one home: `<workflow>/<step>.ts` (its function's `handler`), or, for a
 * step that also or only runs as a container, `<workflow>/<step>/step.ts` with two thin entries
 * beside it, `lambda.ts` (the function's `handler`) and `container.ts` (the container's process).
 */
export interface WorkflowTask {
  readonly handler: `workflows/${string}`;
  readonly table: DataAccess;
  readonly bucket?: DataAccess;
  readonly ffmpeg?: boolean;
  readonly events?: boolean;
  /** The task wakes executions waiting on a task token (slot grants, batch items whose run ended). */
  readonly wakesWorkflows?: boolean;
  /** The task starts executions of the analysis workflow (a batch item's run). */
  readonly startsAnalyses?: boolean;
  /** Seconds; signal extraction of a long chunk needs the most. */
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
  /** Lambda's /tmp (ephemeral storage) in MiB, for tasks that write files; 512 otherwise. */
  readonly scratchMiB?: number;
  /** The task calls the Analyzer (its function carries what the local analyzer reads: the word table). */
  readonly analyzes?: boolean;
}

/**
 * A task run as a container, by an `arn:aws:states:::ecs:runTask.sync` state whose TaskDefinition
 * is the entry's placeholder: a Fargate task on AWS (image from layers/ffmpeg/Dockerfile, the
 * entrypoint bundled in), a child process of the local host. Either way its input arrives in the
 * TASK_INPUT variable and its exit status is its only result.
 */
export interface ContainerTask {
  /** The step's container entry, a module under functions/ without extension: the container's whole process. */
  readonly entrypoint: `workflows/${string}/container`;
  /**
   * The task's one container: the name the state's ContainerOverrides address (the ASL spells it),
   * its log streams' prefix and its bundle in the image (`/task/<name>.mjs`). Declared, not derived
   * from a file name: renaming a module must not rename a deployed container under executions in
   * flight (DESIGN §11).
   */
  readonly containerName: string;
  readonly table: DataAccess;
  readonly bucket?: DataAccess;
  /** Fargate CPU units (1024 = one vCPU) and memory; x86_64 (the pinned ffmpeg build). */
  readonly cpu: number;
  readonly memoryMb: number;
  /** Task storage (21-200 GiB) behind the task's /tmp, for tasks that download whole files; 20 GiB otherwise. */
  readonly scratchGiB?: number;
}

/**
 * Where every container task runs: the placeholders its state names for the cluster and network,
 * substituted by CDK with the service's (public subnets in two zones, egress-only security group).
 */
export const containerPlacement = {
  cluster: 'ContainerClusterArn',
  subnets: ['ContainerSubnet1', 'ContainerSubnet2'],
  securityGroup: 'ContainerSecurityGroupId',
} as const;

export interface WorkflowDefinition {
  readonly definitionFile: `statemachines/${string}.asl.json`;
  readonly tasks: Readonly<Record<string, WorkflowTask>>;
  readonly containerTasks?: Readonly<Record<string, ContainerTask>>;
  /**
   * Runs when an execution ends FAILED, TIMED_OUT or ABORTED (an EventBridge rule on AWS): the
   * cleanup the workflow's own failure path does, for the ends that path cannot catch.
   */
  readonly onExecutionEnded?: WorkflowTask;
}

export const workflows = {
  analysis: {
    definitionFile: 'statemachines/analysis.asl.json',
    tasks: {
      AcquireSlotFunction: { handler: 'workflows/analysis/acquire-slot', table: 'readWrite', wakesWorkflows: true, timeoutSeconds: 30, memoryMb: 256 },
      MarkProcessingFunction: { handler: 'workflows/analysis/mark-processing', table: 'readWrite', timeoutSeconds: 30, memoryMb: 256 },
      // One-off sources of known, modest size (PlanChunks' sibling choice `lambda`); the rest go to the container below.
      AcquireSourceFunction: {
        handler: 'workflows/analysis/acquire-source/lambda',
        table: 'readWrite',
        bucket: 'readWrite',
        ffmpeg: true,
        timeoutSeconds: 900,
        memoryMb: 1024,
      },
      PlanChunksFunction: { handler: 'workflows/analysis/plan-chunks', table: 'readWrite', timeoutSeconds: 30, memoryMb: 256 },
      ExtractChunkSignalsFunction: {
        handler: 'workflows/analysis/extract-chunk-signals/lambda',
        table: 'read',
        bucket: 'readWrite',
        ffmpeg: true,
        timeoutSeconds: 900,
        memoryMb: 2048,
      },
      // Chunks planned with transcription `job` (Amazon Transcribe): one poll of the chunk's job between Wait states.
      AwaitTranscriptFunction: { handler: 'workflows/analysis/await-transcript', table: 'read', bucket: 'readWrite', timeoutSeconds: 60, memoryMb: 256 },
      AnalyzeChunkFunction: {
        handler: 'workflows/analysis/analyze-chunk',
        table: 'readWrite',
        bucket: 'readWrite',
        analyzes: true,
        timeoutSeconds: 300,
        memoryMb: 1024,
      },
      PersistResultsFunction: {
        handler: 'workflows/analysis/persist-results',
        table: 'readWrite',
        bucket: 'read',
        analyzes: true,
        timeoutSeconds: 300,
        memoryMb: 1024,
      },
      CompleteRunFunction: { handler: 'workflows/analysis/complete-run', table: 'readWrite', wakesWorkflows: true, timeoutSeconds: 30, memoryMb: 256 },
      FailRunFunction: { handler: 'workflows/analysis/fail-run', table: 'readWrite', wakesWorkflows: true, timeoutSeconds: 30, memoryMb: 256 },
    },
    containerTasks: {
      // The chunks of long sources (PlanChunks' runner `container`): no function time limit.
      SignalsTaskDefinitionArn: {
        entrypoint: 'workflows/analysis/extract-chunk-signals/container',
        containerName: 'extract-signals',
        table: 'read',
        bucket: 'readWrite',
        cpu: 2048,
        memoryMb: 4096,
      },
      // One-off sources that are long, of unknown size or provider pages (yt-dlp is in the image).
      // Scratch: the largest paid source (10 GiB) twice over, for yt-dlp's merge of video and audio.
      AcquireSourceTaskDefinitionArn: {
        entrypoint: 'workflows/analysis/acquire-source/container',
        containerName: 'acquire-source',
        table: 'readWrite',
        bucket: 'readWrite',
        cpu: 1024,
        memoryMb: 4096,
        scratchGiB: 30,
      },
    },
    onExecutionEnded: { handler: 'workflows/analysis/settle-ended-execution', table: 'readWrite', wakesWorkflows: true, timeoutSeconds: 30, memoryMb: 256 },
  },
  batch: {
    definitionFile: 'statemachines/batch.asl.json',
    tasks: {
      PlanBatchFunction: { handler: 'workflows/batch/plan-batch', table: 'read', timeoutSeconds: 30, memoryMb: 256 },
      SpawnItemRunFunction: { handler: 'workflows/batch/spawn-item-run', table: 'readWrite', startsAnalyses: true, timeoutSeconds: 30, memoryMb: 256 },
      AwaitItemRunFunction: { handler: 'workflows/batch/await-item-run', table: 'readWrite', wakesWorkflows: true, timeoutSeconds: 30, memoryMb: 256 },
      FinishBatchFunction: { handler: 'workflows/batch/finish-batch', table: 'readWrite', timeoutSeconds: 60, memoryMb: 256 },
    },
    onExecutionEnded: { handler: 'workflows/batch/settle-ended-batch', table: 'readWrite', timeoutSeconds: 60, memoryMb: 256 },
  },
  render: {
    definitionFile: 'statemachines/render.asl.json',
    tasks: {
      SettleRenderFunction: { handler: 'workflows/render/settle-render', table: 'readWrite', timeoutSeconds: 30, memoryMb: 256 },
    },
    containerTasks: {
      // One moment per task: reads the source through a signed GET, writes the MP4 to the bucket.
      RenderTaskDefinitionArn: {
        entrypoint: 'workflows/render/render-moment/container',
        containerName: 'render-moment',
        table: 'readWrite',
        bucket: 'readWrite',
        cpu: 2048,
        memoryMb: 4096,
      },
    },
    onExecutionEnded: { handler: 'workflows/render/settle-ended-render', table: 'readWrite', timeoutSeconds: 30, memoryMb: 256 },
  },
} as const satisfies Record<string, WorkflowDefinition>;

export type WorkflowName = keyof typeof workflows;
