import type { AnalyzerResult } from '../../engine/contract.js';
import type { SourceSignals } from '../../engine/signals.js';
import { nowIso } from '../../clock.js';
import type { Chunk, RunRecord } from '../model.js';
import type { ScannerDefinition } from '../../scanners/model.js';
import { mergeChunkAnswers } from '../../engine/merge-findings.js';
import { mergeSignals } from '../../engine/merge-signals.js';
import type { AnalysisRef } from '../ports.js';
import { getRun } from '../queries.js';
import { artifactPrefix, signalsKeyOf } from './artifacts.js';
import type { PipelineDeps } from './deps.js';

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
export async function answerOf(deps: PipelineDeps, run: RunRecord, chunkResults: ChunkResult[]): Promise<StoredFindings> {
  if (answeredPerChunk(run.scanner.type)) {
    const stored = await Promise.all(chunkResults.map(async (c) => ({ chunk: c.chunk, ...(await deps.artifacts.getJson<StoredFindings>(c.findingsKey!)) })));
    return { result: mergeChunkAnswers(run.scanner.type, stored), hasTranscript: stored.some((s) => s.hasTranscript) };
  }
  const signals = mergeSignals(await Promise.all(chunkResults.map((c) => deps.artifacts.getJson<SourceSignals>(c.signalsKey))));
  return { result: await deps.analyzer.analyze(analyzerInput(run, signals)), hasTranscript: Boolean(signals.transcript?.length) };
}
