import { enforceContract, type AnalyzerResult } from '../engine/contract.js';
import type { Analyzer } from '../engine/analyzer.js';
import { transcribesByJob, type SignalExtractor, type SourceSignals, type Span, type Speech, type TranscriptSegment } from '../engine/signals.js';
import { withTranscript } from '../engine/transcript-speech.js';
import { effectiveMaxObservations, requireAccount } from '../accounts/accounts.js';
import { nowIso } from '../clock.js';
import { newId } from '../ids.js';
import type { AccountStore } from '../accounts/ports.js';
import { endAnnouncements, type Chunk, type MomentRecord, type MomentWord, type ObservationRecord, type RunRecord } from './model.js';
import type { ScannerDefinition } from '../scanners/model.js';
import { mergeChunkAnswers } from '../engine/merge-findings.js';
import { mergeSignals } from '../engine/merge-signals.js';
import type { AnalysisRef, ArtifactStore, RunEndedListener, RunStore, SourceUrlSigner } from './ports.js';
import { getRun } from './queries.js';
import { refundEntry } from './billing.js';
import { releaseSlot, RunNotStartable, type SchedulingDeps } from './scheduling.js';
import { tightSubclips } from '../engine/speech-cleanup.js';

/**
 * The analysis workflow's steps (statemachines/analysis.asl.json). Each is one Task state and
 * is safe to retry: it reads its inputs from the store and writes its outputs at fixed keys.
 */
export interface PipelineDeps extends SchedulingDeps {
  onRunEnded: RunEndedListener;
  runs: RunStore;
  accounts: AccountStore;
  artifacts: ArtifactStore;
  signSourceUrl: SourceUrlSigner;
  extractor: SignalExtractor;
  transcriber: Speech;
  analyzer: Analyzer;
  deploymentMaxObservations: number;
  /** Sources longer than this are analysed as bounded chunks (DESIGN §7). */
  chunkMs: number;
  signalsRunner: SignalsRunnerSetting;
  /** Where a one-off source is acquired (`auto`: see acquisitionRunnerFor). */
  acquisitionRunner: SignalsRunnerSetting;
}

/** Where a chunk's signals are extracted: the ExtractChunkSignals function, or a container task (Fargate on AWS, a child process locally). */
export type SignalsRunner = 'lambda' | 'container';
export type SignalsRunnerSetting = SignalsRunner | 'auto';

/** A chunk as PlanChunks hands it to the state machine, which routes its extraction by `runner`. */
export interface PlannedChunk extends Chunk {
  runner: SignalsRunner;
  /**
   * `job`: the signals step stages the chunk's audio and the state machine then waits for its
   * transcription job (AwaitTranscript between Wait states); `step`: any transcript came with the signals.
   */
  transcription: 'job' | 'step';
}

/**
 * The transcription job of a chunk is still not done this long after the workflow began waiting
 * for it (the run then fails and is refunded, as when the job fails): more than any run may take
 * to leave Transcribe's queue and finish, so only a stuck job or a quota that never frees reaches it.
 */
export const TRANSCRIPT_WAIT_LIMIT_MS = 4 * 60 * 60 * 1000;

/** The chunk's transcription job outlasted TRANSCRIPT_WAIT_LIMIT_MS. */
export class TranscriptionNotReady extends Error {
  override readonly name = 'TranscriptionNotReady';
}

export interface ChunkResult {
  chunk: Chunk;
  signalsKey: string;
  /** Findings of this chunk alone; null for types answered once over the whole source. */
  findingsKey: string | null;
}

/** Occurrence types are answered chunk by chunk; the others once over the whole analysed range. */
const answeredPerChunk = (type: ScannerDefinition['type']) => type === 'find_moments' || type === 'monitor';

interface StoredFindings {
  result: AnalyzerResult;
  hasTranscript: boolean;
}

/** Under `artifacts/`, which the bucket's lifecycle expires after a day: they matter only while a run is in flight. */
const artifactPrefix = (ref: AnalysisRef) => `artifacts/${ref.accountId}/${ref.analysisId}`;
/**
 * Fixed per chunk, so the step after extraction finds the signals without the extraction's
 * output: a container task (ecs:runTask.sync) cannot return one to the state machine.
 */
export const signalsKeyOf = (ref: AnalysisRef, chunk: Pick<Chunk, 'index'>) => `${artifactPrefix(ref)}/chunks/${chunk.index}/signals.json`;
const analysedRange = (run: RunRecord): Span => run.window ?? { startMs: 0, endMs: run.sourceDurationMs };

/** A one-off source up to this size may be acquired by the function (its /tmp and time suffice). */
const FUNCTION_ACQUISITION_MAX_BYTES = 256 * 1024 ** 2;

/**
 * Where a one-off source is acquired. `auto`: the function only for a direct download of known,
 * modest size; a container for the rest (no time limit, room on disk, and yt-dlp for page URLs,
 * which the function runtime does not carry).
 */
export function acquisitionRunnerFor(setting: SignalsRunnerSetting, run: RunRecord): SignalsRunner | 'none' {
  if (!run.oneOff) return 'none';
  if (setting !== 'auto') return setting;
  const { origin } = run.oneOff;
  const size = run.oneOff.knownSizeBytes;
  const direct = origin.kind === 'trusted_host' || origin.provider.resolver === 'storage-link';
  return direct && size !== null && size <= FUNCTION_ACQUISITION_MAX_BYTES ? 'lambda' : 'container';
}

/** Compute starts: the run is processing, and the state machine learns whether (and where) a source must be acquired first. */
export async function markProcessing(deps: PipelineDeps, ref: AnalysisRef): Promise<{ status: 'processing'; acquisition: SignalsRunner | 'none' }> {
  if (!(await deps.runs.markProcessing(ref, nowIso()))) throw new RunNotStartable(`Run ${ref.runId} is not startable`);
  const run = await getRun(deps.runs, ref.accountId, ref.runId);
  return { status: 'processing', acquisition: acquisitionRunnerFor(deps.acquisitionRunner, run) };
}

/**
 * A remainder shorter than this share of a chunk joins the chunk before it: a 30-minute file a
 * few frames long must not cost a fourth extraction (a container task on AWS) for 25 ms.
 */
const TAIL_SHARE = 0.1;

/** Splits the analysed range into chunks of chunkMs; the last one takes the rest, up to 1.1 x chunkMs. */
export function chunksOf(range: Span, chunkMs: number): Chunk[] {
  const chunks: Chunk[] = [];
  for (let startMs = range.startMs, index = 0; startMs < range.endMs; startMs += chunkMs, index++) {
    const tail = range.endMs - (startMs + chunkMs);
    const endMs = tail > 0 && tail < chunkMs * TAIL_SHARE ? range.endMs : Math.min(range.endMs, startMs + chunkMs);
    chunks.push({ index, startMs, endMs });
    if (endMs === range.endMs) break;
  }
  return chunks;
}

/**
 * `auto`: a source long enough to be chunked is extracted in containers, which have no function
 * time limit; a single chunk stays on the function, which starts far sooner than a container task.
 */
export function signalsRunnerFor(setting: SignalsRunnerSetting, chunkCount: number): SignalsRunner {
  if (setting !== 'auto') return setting;
  return chunkCount > 1 ? 'container' : 'lambda';
}

/** One runner per run: every chunk of it is extracted the same way. */
export async function planChunks(deps: PipelineDeps, ref: AnalysisRef): Promise<{ chunks: PlannedChunk[] }> {
  const run = await getRun(deps.runs, ref.accountId, ref.runId);
  const chunks = chunksOf(analysedRange(run), deps.chunkMs);
  const runner = signalsRunnerFor(deps.signalsRunner, chunks.length);
  const transcription = transcribesByJob(deps.transcriber) ? 'job' : 'step';
  await deps.runs.recordChunkPlan(ref, chunks.length, nowIso());
  return { chunks: chunks.map((chunk) => ({ ...chunk, runner, transcription })) };
}

/** The one implementation of signal extraction, whichever runner runs it. */
export async function extractChunkSignals(deps: PipelineDeps, ref: AnalysisRef, chunk: Chunk): Promise<{ signalsKey: string }> {
  const run = await getRun(deps.runs, ref.accountId, ref.runId);
  const url = await deps.signSourceUrl(run.objectKey);
  const window = { startMs: chunk.startMs, endMs: chunk.endMs };
  const speech = deps.transcriber;
  const input = { url, objectKey: run.objectKey, window };
  const [signals, transcript] = await Promise.all([
    deps.extractor.extract({ url, mediaKind: run.mediaKind, durationMs: run.sourceDurationMs, window }),
    // A job's transcript is merged by AwaitTranscript; a window without audio has no speech to wait for.
    transcribesByJob(speech) ? speech.stageAudio(input).then((staged) => (staged ? null : [])) : speech.transcribe(input),
  ]);
  const signalsKey = signalsKeyOf(ref, chunk);
  await deps.artifacts.putJson(signalsKey, withTranscript(signals, transcript));
  return { signalsKey };
}

/**
 * One poll of a chunk's transcription job (the AwaitTranscript state, between Wait states): once
 * the job is done its transcript is merged into the chunk's signals, where AnalyzeChunk reads
 * them. `waitingSince` is what the previous poll answered; signals that already have a
 * transcript (merged by an earlier attempt, or a window without audio) are ready as they are.
 */
export async function awaitChunkTranscript(
  deps: PipelineDeps,
  ref: AnalysisRef,
  chunk: Chunk,
  waitingSince: string | undefined,
): Promise<{ ready: boolean; waitingSince: string }> {
  const speech = deps.transcriber;
  if (!transcribesByJob(speech)) throw new Error('AwaitTranscript runs only for chunks planned with transcription jobs');
  const since = waitingSince ?? nowIso();
  const signalsKey = signalsKeyOf(ref, chunk);
  const signals = await deps.artifacts.getJson<SourceSignals>(signalsKey);
  if (signals.transcript) return { ready: true, waitingSince: since };
  const run = await getRun(deps.runs, ref.accountId, ref.runId);
  const transcript = await speech.transcript({ objectKey: run.objectKey, window: { startMs: chunk.startMs, endMs: chunk.endMs } });
  if (transcript) {
    await deps.artifacts.putJson(signalsKey, withTranscript(signals, transcript));
    return { ready: true, waitingSince: since };
  }
  if (Date.now() - Date.parse(since) > TRANSCRIPT_WAIT_LIMIT_MS) {
    throw new TranscriptionNotReady(
      `The transcription job of chunk ${chunk.index} of run ${ref.runId} is not done after ${TRANSCRIPT_WAIT_LIMIT_MS / 60_000} minutes`,
    );
  }
  return { ready: false, waitingSince: since };
}

export async function analyzeChunk(deps: PipelineDeps, ref: AnalysisRef, chunk: Chunk): Promise<ChunkResult> {
  const run = await getRun(deps.runs, ref.accountId, ref.runId);
  const signalsKey = signalsKeyOf(ref, chunk);
  let findingsKey: string | null = null;
  if (answeredPerChunk(run.scanner.type)) {
    const signals = await deps.artifacts.getJson<SourceSignals>(signalsKey);
    const result = await deps.analyzer.analyze(analyzerInput(run, signals));
    findingsKey = `${artifactPrefix(ref)}/chunks/${chunk.index}/findings.json`;
    await deps.artifacts.putJson(findingsKey, { result, hasTranscript: Boolean(signals.transcript?.length) } satisfies StoredFindings);
  }
  await deps.runs.recordChunkDone(ref, nowIso());
  return { chunk, signalsKey, findingsKey };
}

/** A one-off analysis adds its brief (chat moment types) to the find_moments question. */
const analyzerInput = (run: RunRecord, signals: SourceSignals) => ({ scanner: run.scanner, signals, ...(run.oneOff ? { brief: run.oneOff.brief } : {}) });

/** The analyzer's answer for the whole run: per-chunk findings joined across boundaries, or one answer over all signals. */
async function answerOf(deps: PipelineDeps, run: RunRecord, chunkResults: ChunkResult[]): Promise<StoredFindings> {
  if (answeredPerChunk(run.scanner.type)) {
    const stored = await Promise.all(chunkResults.map(async (c) => ({ chunk: c.chunk, ...(await deps.artifacts.getJson<StoredFindings>(c.findingsKey!)) })));
    return { result: mergeChunkAnswers(run.scanner.type, stored), hasTranscript: stored.some((s) => s.hasTranscript) };
  }
  const signals = mergeSignals(await Promise.all(chunkResults.map((c) => deps.artifacts.getJson<SourceSignals>(c.signalsKey))));
  return { result: await deps.analyzer.analyze(analyzerInput(run, signals)), hasTranscript: Boolean(signals.transcript?.length) };
}

export async function persistResults(deps: PipelineDeps, ref: AnalysisRef, chunkResults: ChunkResult[]): Promise<{ observationCount: number }> {
  const run = await getRun(deps.runs, ref.accountId, ref.runId);
  const account = await requireAccount(deps.accounts, ref.accountId);
  const { result, hasTranscript } = await answerOf(deps, run, chunkResults);
  const withMoments = run.scanner.type === 'find_moments' && run.mediaKind === 'video';
  // Moments are cut (speech_cleanup) and keep their words (captions) from the whole analysed range's signals.
  const signals = withMoments ? mergeSignals(await Promise.all(chunkResults.map((c) => deps.artifacts.getJson<SourceSignals>(c.signalsKey)))) : null;
  const editOf = momentEditor(run, signals);
  const drafts = enforceContract(result, {
    scanner: run.scanner,
    mediaKind: run.mediaKind,
    source: { startMs: 0, endMs: run.sourceDurationMs },
    window: analysedRange(run),
    maxObservations: effectiveMaxObservations(account, deps.deploymentMaxObservations),
    hasTranscript,
  });

  const createdAt = nowIso();
  const observations: ObservationRecord[] = [];
  const moments: MomentRecord[] = [];
  drafts.forEach((draft, rank) => {
    const observationId = newId('observation');
    let value = draft.value;
    if (withMoments) {
      const momentId = newId('moment');
      const eventType = String((draft.value as { event_type: string }).event_type);
      value = { moment_id: momentId, event_type: eventType };
      const { start_ms, end_ms, duration_ms } = draft.evidence;
      moments.push({
        object: 'moment',
        id: momentId,
        analysis_id: run.analysisId,
        // A one-off analysis has moments only: no run or observation to point at.
        run_id: run.oneOff ? null : run.runId,
        observation_id: run.oneOff ? null : observationId,
        rank,
        start_ms,
        end_ms,
        duration_ms,
        score: draft.relevance_score,
        title: draft.title,
        event_type: eventType,
        transcript_excerpt: draft.evidence.transcript_excerpt ?? '',
        edit: editOf({ startMs: start_ms, endMs: end_ms }),
        ...(signals?.transcript ? { words: wordsWithin(signals.transcript, { startMs: start_ms, endMs: end_ms }) } : {}),
      });
    }
    if (run.oneOff) return;
    observations.push({
      object: 'observation',
      observation_id: observationId,
      scanner_id: run.scannerId,
      scanner_version: run.scannerVersion,
      run_id: run.runId,
      analysis_id: run.analysisId,
      ...draft,
      value,
      source_metadata: run.metadata,
      created_at: createdAt,
    });
  });
  await deps.runs.putResults(ref, observations, moments);
  return { observationCount: observations.length };
}

/**
 * A moment's edit: continuous, or with speech_cleanup `tight` the subclips that skip its pauses of
 * 0.4 s or more (DESIGN 10), measured on the merged signals of the analysed range.
 */
function momentEditor(run: RunRecord, signals: SourceSignals | null): (moment: Span) => MomentRecord['edit'] {
  const continuous = (moment: Span): MomentRecord['edit'] => ({ mode: 'continuous', subclips: [{ start_ms: moment.startMs, end_ms: moment.endMs }] });
  if (run.oneOff?.speechCleanup !== 'tight' || !signals) return continuous;
  return (moment) => {
    const subclips = tightSubclips(moment, signals);
    if (subclips.length === 1 && subclips[0]!.startMs === moment.startMs && subclips[0]!.endMs === moment.endMs) return continuous(moment);
    return { mode: 'subclips', subclips: subclips.map((s) => ({ start_ms: s.startMs, end_ms: s.endMs })) };
  };
}

/**
 * The words spoken inside a moment: those whose middle lies in its span (a word cut by the
 * moment's edge is shown whole or not at all). Word-less segments (a transcriber without word
 * times) count as one word each.
 */
export function wordsWithin(transcript: readonly TranscriptSegment[], moment: Span): MomentWord[] {
  return transcript
    .flatMap((segment) => (segment.words.length ? segment.words : [segment]))
    .filter((word) => {
      const middle = (word.startMs + word.endMs) / 2;
      return middle >= moment.startMs && middle < moment.endMs && word.text.trim().length > 0;
    })
    .sort((a, b) => a.startMs - b.startMs)
    .map((word) => ({ text: word.text.trim(), start_ms: Math.round(word.startMs), end_ms: Math.round(word.endMs) }));
}

/** Settles billing, completes the run and frees its slot; a retry after success finds it completed and says so. */
export async function completeRun(deps: PipelineDeps, ref: AnalysisRef, observationCount: number): Promise<RunRecord> {
  const now = nowIso();
  await deps.runs.complete(ref, observationCount, now, endAnnouncements(await getRun(deps.runs, ref.accountId, ref.runId), 'completed', now));
  return settled(deps, ref);
}

/** After a run ends: its slot goes to the account's next waiting run, then whoever listens (its batch item, if any) is told. */
async function settled(deps: PipelineDeps, ref: AnalysisRef): Promise<RunRecord> {
  await releaseSlot(deps, ref);
  const run = await getRun(deps.runs, ref.accountId, ref.runId);
  await deps.onRunEnded(run);
  return run;
}

/** Stable, sanitised failure for the run record: internal causes never reach a response. */
function failureOf(error: { Error?: string; Cause?: string } | undefined): { code: string; message: string } {
  if (error?.Error === 'SignalExtractionError' || error?.Error === 'SourceUnreadable')
    return { code: 'source_unreadable', message: 'The source could not be decoded for analysis.' };
  if (error?.Error === 'SourceChanged')
    return { code: 'source_changed', message: 'The source changed since it was quoted: it is now shorter than the analysed window.' };
  if (error?.Error === 'TranscriptionFailed' || error?.Error === 'TranscriptionNotReady') {
    return { code: 'transcription_failed', message: 'The speech in the source could not be transcribed.' };
  }
  if (error?.Error === 'States.Timeout') return { code: 'analysis_timeout', message: 'The analysis took too long and was stopped.' };
  if (error?.Error === 'States.Aborted') return { code: 'analysis_aborted', message: 'The analysis was stopped before it finished.' };
  return { code: 'analysis_failed', message: 'The analysis failed on our side.' };
}

/** Marks the run failed and refunds it exactly once (a repeat finds it terminal and refunds nothing). */
export async function failRun(deps: PipelineDeps, ref: AnalysisRef, failure: { Error?: string; Cause?: string } | undefined): Promise<RunRecord> {
  const run = await getRun(deps.runs, ref.accountId, ref.runId);
  const now = nowIso();
  await deps.runs.failAndRefund(run, failureOf(failure), refundEntry(run), now, endAnnouncements(run, 'failed', now));
  return settled(deps, ref);
}
