import { type ScannerDefinition, FALLBACK_LABEL } from '../scanners/model.js';
import type { Span } from './signals.js';
import { evidenceKinds, observationTypes, type EvidenceKind } from './observation-types.js';
import type { MediaKind } from '../uploads/model.js';

/**
 * The contract layer (DESIGN §7): every analyzer's output passes through here before anything
 * is stored, so whatever an analyzer (local, Bedrock, an OpenAI-compatible model) returns, the
 * observations obey SPEC. Analyzer output is treated as untrusted input.
 */

/** What an analyzer returns. `unsupported`: the recording cannot support an answer (SPEC rule 2). */
export type AnalyzerResult = { status: 'answered'; findings: unknown[] } | { status: 'unsupported'; reason: string };

export interface ContractContext {
  scanner: Pick<ScannerDefinition, 'type' | 'max_observations' | 'min_seconds' | 'max_seconds' | 'output'>;
  mediaKind: MediaKind;
  /** The whole source, [0, duration]. */
  source: Span;
  /** The analysed range: a find_moments window, else the whole source. */
  window: Span;
  /** The effective observation cap of the account and deployment. */
  maxObservations: number;
  hasTranscript: boolean;
}

export interface ObservationDraft {
  type: ScannerDefinition['type'];
  value_type: string;
  semantics: string;
  /** For find_moments: `{event_type}`; the moment_id is added when the moment is stored. */
  value: boolean | string | number | Record<string, unknown>;
  title: string;
  summary: string;
  relevance_score: number;
  evidence: {
    media_kind: MediaKind;
    evidence_kind: EvidenceKind;
    start_ms: number;
    end_ms: number;
    duration_ms: number;
    transcript_excerpt: string | null;
    speaker: string | null;
    signals: string[];
  };
}

const LIMITS = { title: 200, summary: 2000, excerpt: 1000, speaker: 100, eventType: 64, signals: 20, signal: 64, stringValue: 4000 };
/** Two find_moments windows overlapping by more than this share of the shorter one are one moment. */
const DUPLICATE_OVERLAP = 0.5;

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function text(value: unknown, max: number): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed ? [...trimmed].slice(0, max).join('') : null;
}

export function finiteNumber(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

/** The finding's range clamped to `bounds`, or null when it has none or nothing is left of it. */
function rangeOf(finding: Record<string, unknown>, bounds: Span): Span | null {
  const start = finiteNumber(finding.start_ms);
  const end = finiteNumber(finding.end_ms);
  if (start === null || end === null) return null;
  const range = { startMs: Math.round(clamp(start, bounds.startMs, bounds.endMs)), endMs: Math.round(clamp(end, bounds.startMs, bounds.endMs)) };
  return range.endMs > range.startMs ? range : null;
}

/**
 * find_moments: grow a short moment to min_seconds and cut a long one to max_seconds, keeping
 * its start (a clip begins where the event begins) unless that would run past the window.
 */
function shapeMoment(range: Span, window: Span, minSeconds?: number, maxSeconds?: number): Span {
  const windowLength = window.endMs - window.startMs;
  const length = range.endMs - range.startMs;
  const target = Math.round(clamp(length, Math.min(windowLength, (minSeconds ?? 0) * 1000), (maxSeconds ?? Infinity) * 1000));
  if (target === length) return range;
  const startMs = Math.min(range.startMs, window.endMs - target);
  return { startMs, endMs: startMs + target };
}

function evidenceKindOf(claimed: unknown, ctx: ContractContext, hasExcerpt: boolean): EvidenceKind {
  if (ctx.mediaKind === 'video') return 'visual';
  const allowed: readonly string[] = evidenceKinds.audio;
  const kind = typeof claimed === 'string' && allowed.includes(claimed) ? (claimed as EvidenceKind) : hasExcerpt ? 'audio_and_transcript' : 'audio';
  // Without a transcript nothing can be transcript-backed.
  return ctx.hasTranscript ? kind : 'audio';
}

/** The typed value of a finding, or null when it does not fit the scanner type. */
function valueOf(finding: Record<string, unknown>, ctx: ContractContext): ObservationDraft['value'] | null {
  const { value } = finding;
  switch (ctx.scanner.type) {
    case 'monitor':
      return typeof value === 'boolean' ? value : null;
    case 'summarizer':
      return text(value, LIMITS.stringValue);
    case 'classifier': {
      const label = text(value, LIMITS.stringValue);
      if (label === null) return null;
      const configured = ctx.scanner.output?.labels ?? [];
      return configured.find((l) => l.toLowerCase() === label.toLowerCase()) ?? FALLBACK_LABEL;
    }
    case 'scorer': {
      const score = finiteNumber(value);
      return score === null ? null : clamp(score, 0, 1);
    }
    case 'extractor': {
      if (!isRecord(value)) return null;
      const fields = ctx.scanner.output?.fields ?? [];
      const extracted = Object.fromEntries(fields.map((field) => [field, scalarOrNull(value[field])]));
      // An answer that measured none of the requested fields is no answer.
      return Object.values(extracted).some((v) => v !== null) ? extracted : null;
    }
    case 'find_moments':
      return { event_type: eventTypeOf(finding) };
  }
}

/** find_moments: the event type a finding names, in its value or beside it; `moment` if none. */
export function eventTypeOf(finding: Record<string, unknown>): string {
  const { value } = finding;
  return text(isRecord(value) ? value.event_type : finding.event_type, LIMITS.eventType) ?? 'moment';
}

function scalarOrNull(value: unknown): string | number | boolean | null {
  if (typeof value === 'string') return text(value, LIMITS.stringValue);
  if (typeof value === 'boolean') return value;
  return finiteNumber(value);
}

function toDraft(raw: unknown, ctx: ContractContext): ObservationDraft | null {
  if (!isRecord(raw)) return null;
  const { type } = ctx.scanner;
  const value = valueOf(raw, ctx);
  if (value === null) return null;

  // Relevance: the scorer's value is its relevance; others must give a finite score in [0, 1].
  const score = type === 'scorer' ? (value as number) : finiteNumber(raw.relevance_score);
  if (score === null) return null;

  let range: Span | null;
  if (type === 'find_moments') {
    const found = rangeOf(raw, ctx.window);
    if (!found) return null; // SPEC rule 3: find_moments answers use timestamped windows
    range = shapeMoment(found, ctx.window, ctx.scanner.min_seconds, ctx.scanner.max_seconds);
  } else {
    range = rangeOf(raw, ctx.source) ?? ctx.source; // SPEC rule 3: may use the full recording
  }

  const excerpt = ctx.hasTranscript ? text(raw.transcript_excerpt, LIMITS.excerpt) : null;
  const signals = Array.isArray(raw.signals) ? [...new Set(raw.signals.map((s) => text(s, LIMITS.signal)).filter((s) => s !== null))] : [];
  return {
    type,
    ...observationTypes[type],
    value,
    title: text(raw.title, LIMITS.title) ?? defaultTitle(type, value),
    summary: text(raw.summary, LIMITS.summary) ?? '',
    relevance_score: clamp(score, 0, 1),
    evidence: {
      media_kind: ctx.mediaKind,
      evidence_kind: evidenceKindOf(raw.evidence_kind, ctx, excerpt !== null),
      start_ms: range.startMs,
      end_ms: range.endMs,
      duration_ms: range.endMs - range.startMs,
      transcript_excerpt: excerpt,
      speaker: ctx.hasTranscript ? text(raw.speaker, LIMITS.speaker) : null,
      signals: signals.slice(0, LIMITS.signals),
    },
  };
}

function defaultTitle(type: ScannerDefinition['type'], value: ObservationDraft['value']): string {
  switch (type) {
    case 'monitor':
      return value === true ? 'Match found' : 'No match';
    case 'classifier':
      return `Classified as ${value as string}`;
    case 'scorer':
      return `Score ${(value as number).toFixed(2)}`;
    case 'summarizer':
      return 'Summary';
    case 'extractor':
      return 'Extracted fields';
    case 'find_moments':
      return 'Moment';
  }
}

const overlapShare = (a: ObservationDraft['evidence'], b: ObservationDraft['evidence']) => {
  const overlap = Math.min(a.end_ms, b.end_ms) - Math.max(a.start_ms, b.start_ms);
  return overlap <= 0 ? 0 : overlap / Math.min(a.duration_ms, b.duration_ms);
};

/**
 * Applies the whole contract: typed values, clamped ranges, ranking by relevance, the cap,
 * and SPEC's result semantics. Zero observations is a valid, meaningful answer.
 */
export function enforceContract(result: AnalyzerResult, ctx: ContractContext): ObservationDraft[] {
  // SPEC rule 2: a recording that cannot support an answer gives zero observations, never false.
  if (result.status === 'unsupported') return [];

  let drafts = result.findings.map((f) => toDraft(f, ctx)).filter((d): d is ObservationDraft => d !== null);
  drafts.sort((a, b) => b.relevance_score - a.relevance_score || a.evidence.start_ms - b.evidence.start_ms);

  if (ctx.scanner.type === 'monitor') {
    const matches = drafts.filter((d) => d.value === true);
    // SPEC rule 1: a supported full-source no-match is exactly one false observation over the full source.
    drafts = matches.length ? matches : [noMatch(ctx, drafts[0])];
  } else if (ctx.scanner.type === 'summarizer') {
    drafts = drafts.slice(0, 1); // one concise whole-source summary
  } else if (ctx.scanner.type === 'find_moments') {
    drafts = drafts.filter((d, i) => drafts.slice(0, i).every((better) => overlapShare(better.evidence, d.evidence) <= DUPLICATE_OVERLAP));
  }

  const cap = Math.min(ctx.maxObservations, ctx.scanner.max_observations ?? ctx.maxObservations);
  return drafts.slice(0, cap);
}

function noMatch(ctx: ContractContext, falseFinding: ObservationDraft | undefined): ObservationDraft {
  const { source } = ctx;
  return {
    type: 'monitor',
    ...observationTypes.monitor,
    value: false,
    title: falseFinding?.title ?? 'No match',
    summary: falseFinding?.summary ?? 'Nothing in the recording matched the instructions.',
    relevance_score: 0,
    evidence: {
      media_kind: ctx.mediaKind,
      evidence_kind: ctx.mediaKind === 'video' ? 'visual' : 'audio',
      start_ms: source.startMs,
      end_ms: source.endMs,
      duration_ms: source.endMs - source.startMs,
      transcript_excerpt: null,
      speaker: null,
      signals: falseFinding?.evidence.signals ?? [],
    },
  };
}
