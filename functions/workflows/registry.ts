import type { DataAccess } from '../routes.js';

/**
 * The workflow table: each state machine's ASL file and, for every `${Placeholder}` Task
 * resource in it, the handler module that implements it and what that handler needs.
 * CDK deploys one Lambda per task and substitutes its ARN; the local host binds the same
 * handlers in-process. Nothing else maps tasks to code.
 */
export interface WorkflowTask {
  readonly handler: `workflows/${string}`;
  readonly table: DataAccess;
  readonly bucket?: DataAccess;
  readonly ffmpeg?: boolean;
  readonly events?: boolean;
  /** Seconds; signal extraction of a long chunk needs the most. */
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
}

export interface WorkflowDefinition {
  readonly definitionFile: `statemachines/${string}.asl.json`;
  readonly tasks: Readonly<Record<string, WorkflowTask>>;
}

export const workflows = {
  analysis: {
    definitionFile: 'statemachines/analysis.asl.json',
    tasks: {
      MarkProcessingFunction: { handler: 'workflows/analysis/mark-processing', table: 'readWrite', timeoutSeconds: 30, memoryMb: 256 },
      PlanChunksFunction: { handler: 'workflows/analysis/plan-chunks', table: 'read', timeoutSeconds: 30, memoryMb: 256 },
      ExtractChunkSignalsFunction: {
        handler: 'workflows/analysis/extract-chunk-signals',
        table: 'read',
        bucket: 'readWrite',
        ffmpeg: true,
        timeoutSeconds: 900,
        memoryMb: 2048,
      },
      AnalyzeChunkFunction: { handler: 'workflows/analysis/analyze-chunk', table: 'read', bucket: 'readWrite', timeoutSeconds: 300, memoryMb: 1024 },
      PersistResultsFunction: { handler: 'workflows/analysis/persist-results', table: 'readWrite', bucket: 'read', timeoutSeconds: 120, memoryMb: 1024 },
      CompleteRunFunction: { handler: 'workflows/analysis/complete-run', table: 'readWrite', events: true, timeoutSeconds: 30, memoryMb: 256 },
      FailRunFunction: { handler: 'workflows/analysis/fail-run', table: 'readWrite', events: true, timeoutSeconds: 30, memoryMb: 256 },
    },
  },
} as const satisfies Record<string, WorkflowDefinition>;

export type WorkflowName = keyof typeof workflows;
