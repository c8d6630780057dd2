import type { ScannerDefinition } from '../scanners/model.js';
import { eventTypeOf, finiteNumber, isRecord, type AnalyzerResult } from './contract.js';
import type { Span } from './signals.js';

/**
 * Per-chunk answers as one answer (DESIGN §7). An event that straddles a chunk boundary is seen
 * by both chunks, each reporting its own side of it; here the sides become one finding again.
 * This runs before the contract layer, which then sizes, de-duplicates, ranks and caps the
 * merged findings as it would any analyzer's: a joined moment is cut to max_seconds (or grown to
 * min_seconds) from the event's real start, not from the boundary.
 */

/** One chunk's range and what the analyzer answered for it. */
export interface ChunkAnswer {
  chunk: Span;
  result: AnalyzerResult;
}

/**
 * How far from a boundary a side may end or begin and still be part of an event crossing it:
 * a detector's first or last bucket in a chunk (up to half a second) sees only part of its usual
 * context, so a side can stop or start that much short of the boundary.
 */
export const BOUNDARY_SLACK_MS = 500;

/** A finding that can be joined: what it describes and where. */
interface Side {
  finding: Record<string, unknown>;
  identity: string;
  range: Span;
}

/**
 * What makes two findings the same thing, by type; null for findings that are never joined
 * (malformed ones, those without a range, types answered once over the whole source).
 */
function identityOf(type: ScannerDefinition['type'], finding: Record<string, unknown>): string | null {
  switch (type) {
    case 'find_moments':
      return eventTypeOf(finding);
    case 'monitor':
      // A named concept keeps a loud burst and a silence that meet at a boundary apart.
      if (typeof finding.value !== 'boolean') return null;
      return typeof finding.event_type === 'string' ? `${finding.value}:${finding.event_type}` : String(finding.value);
    default:
      return null;
  }
}

function sideOf(type: ScannerDefinition['type'], finding: unknown): Side | null {
  if (!isRecord(finding)) return null;
  const identity = identityOf(type, finding);
  const startMs = finiteNumber(finding.start_ms);
  const endMs = finiteNumber(finding.end_ms);
  if (identity === null || startMs === null || endMs === null || endMs <= startMs) return null;
  return { finding, identity, range: { startMs, endMs } };
}

const distinctStrings = (values: unknown[]) => [...new Set(values.filter((v): v is string => typeof v === 'string' && v.trim() !== ''))];

/**
 * One finding for the sides of one event: their whole range, the strongest score, everything
 * each side cited. The earliest side's title and value stay: they name where the event begins.
 * Each side's summary and excerpt describe its own part, so together they describe the whole.
 */
function joined(sides: Side[]): Record<string, unknown> {
  const ordered = [...sides].sort((a, b) => a.range.startMs - b.range.startMs);
  const findings = ordered.map((s) => s.finding);
  const scores = findings.map((f) => finiteNumber(f.relevance_score)).filter((s) => s !== null);
  return {
    ...findings[0],
    start_ms: ordered[0]?.range.startMs,
    end_ms: Math.max(...ordered.map((s) => s.range.endMs)),
    relevance_score: scores.length ? Math.max(...scores) : findings[0]?.relevance_score,
    summary: distinctStrings(findings.map((f) => f.summary)).join(' ') || undefined,
    transcript_excerpt: distinctStrings(findings.map((f) => f.transcript_excerpt)).join(' ') || undefined,
    speaker: findings.map((f) => f.speaker).find((s) => typeof s === 'string'),
    signals: [...new Set(findings.flatMap((f) => (Array.isArray(f.signals) ? (f.signals as unknown[]) : [])))],
  };
}

/**
 * The findings of consecutive chunks with every event that crosses a boundary joined: a side
 * ending at (or within BOUNDARY_SLACK_MS before) a boundary and a side of the same identity
 * starting at (or within the slack after) it are one event, also across several boundaries.
 * Everything else is returned as it was, in order.
 */
function joinAcrossBoundaries(type: ScannerDefinition['type'], chunks: { chunk: Span; findings: unknown[] }[]): unknown[] {
  const entries = chunks.flatMap(({ findings }, chunkIndex) => findings.map((finding) => ({ finding, chunkIndex, side: sideOf(type, finding) })));
  // Union-find over the entries; a group's root is its first entry.
  const parent = entries.map((_, index) => index);
  const root = (index: number): number => (parent[index] === index ? index : (parent[index] = root(parent[index]!)));
  const union = (a: number, b: number) => {
    const [first, second] = [root(a), root(b)].sort((x, y) => x - y) as [number, number];
    parent[second] = first;
  };
  const sidesIn = (chunkIndex: number, touches: (range: Span) => boolean) =>
    entries.flatMap((entry, index) =>
      entry.chunkIndex === chunkIndex && entry.side && touches(entry.side.range) ? [{ index, identity: entry.side.identity }] : [],
    );

  for (let chunkIndex = 1; chunkIndex < chunks.length; chunkIndex += 1) {
    const boundary = chunks[chunkIndex]!.chunk.startMs;
    const ending = sidesIn(chunkIndex - 1, (range) => range.endMs >= boundary - BOUNDARY_SLACK_MS);
    const starting = sidesIn(chunkIndex, (range) => range.startMs <= boundary + BOUNDARY_SLACK_MS);
    for (const before of ending) for (const after of starting) if (before.identity === after.identity) union(before.index, after.index);
  }

  const groups = new Map<number, Side[]>();
  entries.forEach(({ side }, index) => {
    if (side) groups.set(root(index), [...(groups.get(root(index)) ?? []), side]);
  });
  return entries.flatMap(({ finding }, index) => {
    if (root(index) !== index) return []; // joined into its group's first entry
    const group = groups.get(index) ?? [];
    return [group.length > 1 ? joined(group) : finding];
  });
}

/**
 * One result from all chunks' answers: unsupported only when no chunk could answer; otherwise
 * every answered chunk's findings, joined across boundaries.
 */
export function mergeChunkAnswers(type: ScannerDefinition['type'], answers: readonly ChunkAnswer[]): AnalyzerResult {
  const ordered = [...answers].sort((a, b) => a.chunk.startMs - b.chunk.startMs);
  if (!ordered.some((a) => a.result.status === 'answered')) return ordered[0]?.result ?? { status: 'unsupported', reason: 'Nothing was analysed.' };
  const chunks = ordered.map(({ chunk, result }) => ({ chunk, findings: result.status === 'answered' ? result.findings : [] }));
  return { status: 'answered', findings: joinAcrossBoundaries(type, chunks) };
}
