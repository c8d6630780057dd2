import { enforceContract } from '../../engine/contract.js';
import type { SourceSignals, Span, TranscriptSegment } from '../../engine/signals.js';
import { effectiveMaxObservations, requireAccount } from '../../accounts/accounts.js';
import { nowIso } from '../../clock.js';
import { newId } from '../../ids.js';
import { analysedRange, type MomentRecord, type MomentWord, type ObservationRecord, type RunRecord } from '../model.js';
import { mergeSignals } from '../../engine/merge-signals.js';
import type { AnalysisRef } from '../ports.js';
import { getRun } from '../queries.js';
import { tightSubclips } from '../../engine/speech-cleanup.js';
import { answerOf, type ChunkResult } from './analyze-chunk.js';
import type { PipelineDeps } from './deps.js';

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
