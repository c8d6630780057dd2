import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { TranscribeClient } from '@aws-sdk/client-transcribe';
import { observeDynamoDbRequests, type DynamoDbRequest } from '../../functions/adapters/dynamodb-clients.js';
import { resolveFfmpegPath } from '../../functions/adapters/ffmpeg-binaries.js';
import { promptFor } from '../../functions/adapters/analyzers/llm-prompt.js';
import { awsTranscribeJobs } from '../../functions/adapters/transcribers/aws-transcribe.js';
import { pipeline } from '../../functions/composition/engine.js';
import type { SourceSignals } from '../../functions/domain/engine/signals.js';
import { signalsKeyOf } from '../../functions/domain/runs/steps/artifacts.js';
import { scannerCreateSchema } from '../../functions/resources/scanners/request.js';
import { logger } from '../../functions/shared/logger.js';
import { startLocalHost, type LocalHost } from '../../functions/local/host.js';
import { workflows } from '../../functions/workflows/registry.js';
import { awsPrices, PRICES_AS_OF } from './aws-prices.js';
import { submitBatch, waitForBatch, type BatchRecord } from './batches.js';
import { benchScanner, call, prepareRun, round, runToCompletion, stopwatch, type RunInputs } from './client.js';
import { LONG_SOURCE_SECONDS, longRunSource, shortClip } from './media.js';

export interface CostFigure {
  scenario: string;
  /** Billable Step Functions transitions (LocalWorkflows.stateTransitionsOf) of every execution the scenario started. */
  stateTransitions: number;
  dynamoDbWriteRequests: number;
  dynamoDbItemsWritten: number;
  /** Write requests by operation, `(n items)` where a request writes several. */
  writesByOperation: string;
}

/** What a scenario did: its label, and the names of the executions it started. */
interface Scenario {
  scenario: string;
  executions: string[];
}

/**
 * Counts what a scenario costs on the in-process host: the DynamoDB writes sent from its start
 * until every workflow has ended, and the state transitions of the executions it names; all
 * divided by `units` (a batch's items).
 */
async function measure(host: LocalHost, units: number, act: () => Promise<Scenario>): Promise<CostFigure> {
  const writes: DynamoDbRequest[] = [];
  const stopObserving = observeDynamoDbRequests((request) => {
    if (request.itemsWritten > 0) writes.push(request);
  });
  let done: Scenario;
  try {
    done = await act();
    // Trailing writes (a released slot) land after the run reads as completed.
    await host.workflows.settle();
  } finally {
    stopObserving();
  }
  const byOperation = new Map<string, { requests: number; items: number }>();
  for (const { operation, itemsWritten } of writes) {
    const counted = byOperation.get(operation) ?? { requests: 0, items: 0 };
    byOperation.set(operation, { requests: counted.requests + 1, items: counted.items + itemsWritten });
  }
  const perUnit = (value: number) => round(value / units);
  return {
    scenario: done.scenario,
    stateTransitions: perUnit(done.executions.reduce((sum, name) => sum + host.workflows.stateTransitionsOf(name), 0)),
    dynamoDbWriteRequests: perUnit(writes.length),
    dynamoDbItemsWritten: perUnit(writes.reduce((sum, write) => sum + write.itemsWritten, 0)),
    writesByOperation: [...byOperation]
      .map(([operation, { requests, items }]) => `${operation} ${perUnit(requests)}${items === requests ? '' : ` (${perUnit(items)} items)`}`)
      .join(', '),
  };
}

/** One run to completion (its analysis is its one execution), labelled with its chunk count as planned. */
async function runCost(host: LocalHost, label: string, inputs: RunInputs): Promise<{ figure: CostFigure; analysisId: string; chunks: number }> {
  let ran = { analysisId: '', chunks: 0 };
  const figure = await measure(host, 1, async () => {
    const { analysisId } = await runToCompletion(host, inputs);
    const { chunks_total } = await call<{ chunks_total: number }>(host, 'GET', `/v1/analyses/${analysisId}/progress`);
    ran = { analysisId, chunks: chunks_total };
    return { scenario: `${label}, ${chunks_total} chunk(s)`, executions: [analysisId] };
  });
  return { figure, ...ran };
}

/** What an analysed minute costs on AWS in one engine configuration, under awsPrices. */
export interface MinuteCost {
  configuration: string;
  usdPerAnalysedMinute: number;
  /** The engine's share of it (Transcribe, Bedrock, or moonshine's container time). */
  engineShare: string;
  breakdown: string;
}

/**
 * What is not measured on this host, stated: Transcribe and Bedrock run on AWS only. Each is an
 * assumption a real account can check cheaply (docs/benchmarks.md, "Cost per analysed minute").
 */
const assumed = {
  /** A Transcribe batch job finishes in half its audio's length (AWS quotes no figure): sets how many polls a chunk takes. */
  transcribeTurnaroundShare: 0.5,
  /** WaitForTranscript's Seconds in statemachines/analysis.asl.json. */
  pollIntervalSeconds: 20,
  /** One AwaitTranscript poll: a status call and one S3 read, on a warm 256 MB function. */
  pollSeconds: 0.3,
  /** Characters per model token for the JSON prompt (English prose is about 4; numbers and punctuation tokenise denser). */
  charsPerToken: 3,
  /** A find_moments answer: up to ten moments with titles and evidence. */
  outputTokensPerCall: 1_000,
  /** moonshine with aligned word times (the image ships the aligner), CPU-s per audio second, and its model load per task (docs/benchmarks.md, BENCH_ONLY=speech). */
  moonshineCpuSecondsPerAudioSecond: 0.07,
  moonshineLoadCpuSeconds: 1.74,
} as const;

type AslState = { Type: string; Resource?: string; Parameters?: { TaskDefinition?: string }; ItemProcessor?: { States: Record<string, AslState> } };

/** Every state of an ASL definition by name, those of Map iterations included. */
function statesOf(states: Record<string, AslState>): Map<string, AslState> {
  return new Map(Object.entries(states).flatMap(([name, state]) => [[name, state] as const, ...statesOf(state.ItemProcessor?.States ?? {})]));
}

const placeholderIn = (text: string | undefined) => /\$\{(\w+)\}/.exec(text ?? '')?.[1];

/**
 * Lambda and Fargate dollars of an analysis execution from the seconds its states took on this
 * host (LocalWorkflows.stateSecondsOf), priced by the memory, CPU and architecture of the unit
 * each state runs on (functions/workflows/registry.ts). A waitForTaskToken state's function
 * answers at once and the wait is free; Choice, Wait and Map states run nothing.
 */
function computeUsd(stateSeconds: ReadonlyMap<string, number>): { lambda: number; fargate: number } {
  const { tasks, containerTasks } = workflows.analysis;
  const states = statesOf((JSON.parse(readFileSync(workflows.analysis.definitionFile, 'utf8')) as { States: Record<string, AslState> }).States);
  let lambda = 0;
  let fargate = 0;
  for (const [name, seconds] of stateSeconds) {
    const state = states.get(name);
    if (state?.Type !== 'Task' || state.Resource?.includes('waitForTaskToken')) continue;
    const task = tasks[placeholderIn(state.Resource) as keyof typeof tasks] as (typeof tasks)[keyof typeof tasks] | undefined;
    const container = containerTasks[placeholderIn(state.Parameters?.TaskDefinition) as keyof typeof containerTasks] as
      | (typeof containerTasks)[keyof typeof containerTasks]
      | undefined;
    if (task) lambda += (task.memoryMb / 1024) * seconds * ('ffmpeg' in task && task.ffmpeg ? awsPrices.lambdaGbSecondX86 : awsPrices.lambdaGbSecondArm);
    if (container) fargate += (seconds / 3600) * ((container.cpu / 1024) * awsPrices.fargateVcpuHour + (container.memoryMb / 1024) * awsPrices.fargateGbHour);
  }
  return { lambda, fargate };
}

/** The signals container's price per second (where a chunked run's signals, and moonshine, run). */
const signalsContainerPerSecond = (() => {
  const { cpu, memoryMb } = workflows.analysis.containerTasks.SignalsTaskDefinitionArn;
  return ((cpu / 1024) * awsPrices.fargateVcpuHour + (memoryMb / 1024) * awsPrices.fargateGbHour) / 3600;
})();

/** Stages one chunk's audio as the signals step does for Amazon Transcribe, into a stand-in bucket: seconds taken and FLAC bytes. */
async function stagedChunk(file: string, chunkMs: number): Promise<{ seconds: number; bytes: number }> {
  let bytes = 0;
  const bucket = {
    send: (command: { input: { Body?: Uint8Array } }) => Promise.resolve(void (bytes += command.input.Body?.byteLength ?? 0)),
  } as unknown as S3Client;
  const jobs = awsTranscribeJobs({
    transcribe: new TranscribeClient({ region: 'us-east-1' }),
    s3: bucket,
    bucket: 'bench',
    languageCode: 'en-US',
    ffmpegPath: resolveFfmpegPath(process.env.FFMPEG_PATH),
  });
  const { ms } = await stopwatch(() => jobs.stageAudio({ url: file, objectKey: 'bench', window: { startMs: 0, endMs: chunkMs } }));
  return { seconds: ms / 1000, bytes };
}

const usd = (value: number) => Number(value.toPrecision(3));

/**
 * Issue 26: the AWS cost of an analysed minute in each engine configuration, from the 30-minute
 * run measured on this host (transitions, DynamoDB writes, and each state's seconds priced as the
 * unit that runs it on AWS: an upper bound, since this host's two cores run up to four chunk
 * containers at once), plus what each engine adds: Transcribe's per-minute price and its poll
 * loop, moonshine's measured CPU time in the signals container, Bedrock's tokens for the real
 * prompts of the run's chunks. Requests to S3 and Lambda are left out below $0.0001 a minute.
 */
async function costPerMinute(host: LocalHost, run: { figure: CostFigure; analysisId: string; chunks: number }, file: string): Promise<MinuteCost[]> {
  const minutes = LONG_SOURCE_SECONDS / 60;
  const chunkSeconds = LONG_SOURCE_SECONDS / run.chunks;
  const compute = computeUsd(host.workflows.stateSecondsOf(run.analysisId));
  const base =
    run.figure.stateTransitions * awsPrices.stepFunctionsTransition +
    run.figure.dynamoDbItemsWritten * awsPrices.dynamoDbWriteRequest +
    compute.lambda +
    compute.fargate;
  const signalsOnly = base / minutes;
  const baseBreakdown = `transitions ${run.figure.stateTransitions}, DynamoDB items ${run.figure.dynamoDbItemsWritten}, Lambda $${usd(compute.lambda)}, Fargate $${usd(compute.fargate)} per ${minutes}-min run`;

  // Amazon Transcribe: the window's minutes (per chunk, at least 15 s), the audio staged in the signals step, the poll loop.
  const staged = await stagedChunk(file, chunkSeconds * 1000);
  const polls = Math.ceil((assumed.transcribeTurnaroundShare * chunkSeconds) / assumed.pollIntervalSeconds) + 1;
  const pollUsd = polls * (3 * awsPrices.stepFunctionsTransition + (256 / 1024) * assumed.pollSeconds * awsPrices.lambdaGbSecondArm + awsPrices.s3Get);
  const transcribePerChunk = (Math.max(chunkSeconds, awsPrices.transcribeMinimumSeconds) / 60) * awsPrices.transcribeMinute;
  const transcribe = (run.chunks * (transcribePerChunk + pollUsd + staged.seconds * signalsContainerPerSecond + 2 * awsPrices.s3Put)) / minutes;
  const flacMbPerMinute = staged.bytes / 1e6 / (chunkSeconds / 60);

  // moonshine in the signals container: its CPU time holds the task (2 vCPU, 4 GB) that long, as if it ran after the signals.
  const moonshineSeconds = assumed.moonshineCpuSecondsPerAudioSecond * 60 + (assumed.moonshineLoadCpuSeconds * run.chunks) / minutes;
  const moonshine = moonshineSeconds * signalsContainerPerSecond;

  // Bedrock: one call per chunk (find_moments is answered chunk by chunk) with the prompt of that chunk's real signals.
  const scanner = scannerCreateSchema.parse(benchScanner);
  const ref = { accountId: host.accountId, runId: '', analysisId: run.analysisId };
  let promptChars = 0;
  for (let index = 0; index < run.chunks; index++) {
    const { system, user } = promptFor(scanner, await pipeline().artifacts.getJson<SourceSignals>(signalsKeyOf(ref, { index })));
    promptChars += system.length + user.length;
  }
  const inputTokens = promptChars / assumed.charsPerToken;
  const bedrock = (inputTokens * awsPrices.bedrockInputToken + run.chunks * assumed.outputTokensPerCall * awsPrices.bedrockOutputToken) / minutes;

  const row = (configuration: string, engine: number, breakdown: string): MinuteCost => ({
    configuration,
    usdPerAnalysedMinute: usd(signalsOnly + engine),
    engineShare: engine ? `${Math.round((100 * engine) / (signalsOnly + engine))}%` : '-',
    breakdown,
  });
  return [
    row('signals only (local analyzer, no transcriber)', 0, baseBreakdown),
    row(
      '+ Amazon Transcribe (window audio only)',
      transcribe,
      `$${awsPrices.transcribeMinute}/min; ${polls} polls a ${chunkSeconds / 60}-min chunk; FLAC ${round(flacMbPerMinute)} MB/min (2 h: ${round(flacMbPerMinute * 120)} MB), staged in ${round(staged.seconds)} s a chunk`,
    ),
    row(
      '+ moonshine in the signals container',
      moonshine,
      `${round(moonshineSeconds)} s of the signals task a minute (${assumed.moonshineCpuSecondsPerAudioSecond} CPU-s per audio s)`,
    ),
    row(
      '+ Bedrock (Claude 3.5 Haiku)',
      bedrock,
      `${Math.round(inputTokens / minutes)} input tokens and ${Math.round((run.chunks * assumed.outputTokensPerCall) / minutes)} output tokens a minute`,
    ),
    row('+ Bedrock + Amazon Transcribe', bedrock + transcribe, 'both of the above'),
  ];
}

const BATCH_SIZE = 10;

/**
 * Issue #8: the AWS cost drivers of one run, counted for real on the local host, which runs the
 * same ASL and the same DynamoDB code: Step Functions state transitions and DynamoDB writes.
 * The host runs in this process (its workflow runner and SDK clients are the ones observed);
 * every POST carries an Idempotency-Key, whose record is 2 of the writes.
 */
export async function benchCosts(): Promise<{ drivers: CostFigure[]; perMinute: MinuteCost[]; prices: string }> {
  // The host's log lines, and those of its container tasks (they inherit this environment), would bury the table.
  process.env.LOG_LEVEL = 'SILENT';
  logger.setLogLevel('SILENT');
  const clip = await shortClip();
  const longFile = await longRunSource();
  const dataDir = await mkdtemp(join(tmpdir(), 'mss-bench-costs-'));
  const host = await startLocalHost({ dataDir, port: 0 });
  try {
    const clipInputs = await prepareRun(host, clip);
    const short = (await runCost(host, '(a) 5 s run', clipInputs)).figure;
    const long = await runCost(host, '(b) 30 min run', await prepareRun(host, longFile));
    const perMinute = await costPerMinute(host, long, longFile);
    const batch = await measure(host, BATCH_SIZE, async () => {
      const submitted = await submitBatch(host, clipInputs, BATCH_SIZE);
      await waitForBatch(host, submitted.batch_id);
      const settled = await call<BatchRecord>(host, 'GET', `/v1/scanner-batches/${submitted.batch_id}`);
      const runs = settled.items.flatMap((item) => (item.analysis_id ? [item.analysis_id] : []));
      return { scenario: `(c) ${BATCH_SIZE}-item batch of 5 s runs, per item`, executions: [settled.batch_id, ...runs] };
    });
    return { drivers: [short, long.figure, batch], perMinute, prices: PRICES_AS_OF };
  } finally {
    await host.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
