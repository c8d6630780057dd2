import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { enforceContract, eventTypeOf, type AnalyzerResult } from '../../../../functions/domain/engine/contract.js';
import { BOUNDARY_SLACK_MS, mergeChunkAnswers, type ChunkAnswer } from '../../../../functions/domain/engine/merge-findings.js';
import type { Span } from '../../../../functions/domain/engine/signals.js';

const CHUNK_MS = 600_000;
const chunk = (index: number, lengthMs = CHUNK_MS): Span => ({ startMs: index * lengthMs, endMs: (index + 1) * lengthMs });
const answered = (findings: unknown[]): AnalyzerResult => ({ status: 'answered', findings });

/** A finding as the local analyzer writes one. */
const moment = (eventType: string, startMs: number, endMs: number, score = 1, extra: Record<string, unknown> = {}) => ({
  value: { event_type: eventType },
  event_type: eventType,
  relevance_score: score,
  start_ms: startMs,
  end_ms: endMs,
  title: `${eventType} at ${startMs / 1000} s`,
  summary: `${eventType} from ${startMs / 1000} s to ${endMs / 1000} s.`,
  signals: ['loudness'],
  ...extra,
});

const findingsOf = (result: AnalyzerResult) => {
  if (result.status !== 'answered') throw new Error(`expected an answer, got ${result.reason}`);
  return result.findings as Record<string, unknown>[];
};

describe('mergeChunkAnswers', () => {
  it('joins the two sides of a burst straddling a boundary into one finding', () => {
    const before = moment('loud', 598_000, 600_000, 0.6, { signals: ['loudness'], transcript_excerpt: 'and then', speaker: 'spk_0' });
    const after = moment('loud', 600_000, 602_000, 0.9, { signals: ['loudness', 'speech_activity'], transcript_excerpt: 'a bang' });
    const [merged, ...rest] = findingsOf(
      mergeChunkAnswers('find_moments', [
        { chunk: chunk(0), result: answered([before]) },
        { chunk: chunk(1), result: answered([after]) },
      ]),
    );

    expect(rest).toEqual([]);
    expect(merged).toEqual({
      value: { event_type: 'loud' },
      event_type: 'loud',
      start_ms: 598_000,
      end_ms: 602_000,
      relevance_score: 0.9,
      // The earliest side names where the event begins; each side describes its own part.
      title: 'loud at 598 s',
      summary: 'loud from 598 s to 600 s. loud from 600 s to 602 s.',
      transcript_excerpt: 'and then a bang',
      speaker: 'spk_0',
      signals: ['loudness', 'speech_activity'],
    });
  });

  it('joins sides that stop or start within the slack of the boundary, not farther', () => {
    const merge = (endMs: number, startMs: number) =>
      findingsOf(
        mergeChunkAnswers('find_moments', [
          { chunk: chunk(0), result: answered([moment('speech', 590_000, endMs)]) },
          { chunk: chunk(1), result: answered([moment('speech', startMs, 610_000)]) },
        ]),
      );
    expect(merge(CHUNK_MS - BOUNDARY_SLACK_MS, CHUNK_MS + BOUNDARY_SLACK_MS)).toHaveLength(1);
    expect(merge(CHUNK_MS - BOUNDARY_SLACK_MS - 1, CHUNK_MS)).toHaveLength(2);
    expect(merge(CHUNK_MS, CHUNK_MS + BOUNDARY_SLACK_MS + 1)).toHaveLength(2);
  });

  it('leaves findings that do not touch a boundary, and different events that do, as they were', () => {
    const inside = moment('loud', 100_000, 102_000);
    const loudBefore = moment('loud', 598_000, 600_000);
    const silenceAfter = moment('silence', 600_000, 650_000);
    const later = moment('loud', 700_000, 702_000);
    const findings = findingsOf(
      mergeChunkAnswers('find_moments', [
        { chunk: chunk(0), result: answered([inside, loudBefore]) },
        { chunk: chunk(1), result: answered([silenceAfter, later]) },
      ]),
    );
    expect(findings).toEqual([inside, loudBefore, silenceAfter, later]);
    findings.forEach((finding, i) => expect(finding).toBe([inside, loudBefore, silenceAfter, later][i]));
  });

  it('joins an event that spans whole chunks into one, across every boundary it crosses', () => {
    const answers: ChunkAnswer[] = [
      { chunk: chunk(0), result: answered([moment('silence', 550_000, 600_000, 0.2)]) },
      { chunk: chunk(1), result: answered([moment('silence', 600_000, 1_200_000, 1)]) },
      { chunk: chunk(2), result: answered([moment('silence', 1_200_000, 1_250_000, 0.5), moment('silence', 1_300_000, 1_310_000)]) },
    ];
    const findings = findingsOf(mergeChunkAnswers('find_moments', answers));
    expect(findings.map((f) => [f.start_ms, f.end_ms, f.relevance_score])).toEqual([
      [550_000, 1_250_000, 1],
      [1_300_000, 1_310_000, 1],
    ]);
  });

  it('joins monitor matches of the same value and concept, never a match with a no-match', () => {
    const match = (startMs: number, endMs: number, concept = 'loud') => ({
      value: true,
      event_type: concept,
      relevance_score: 1,
      start_ms: startMs,
      end_ms: endMs,
    });
    const noMatch = { value: false, relevance_score: 0, title: 'No match', signals: ['loudness'] };
    const findings = findingsOf(
      mergeChunkAnswers('monitor', [
        { chunk: chunk(0), result: answered([match(598_000, 600_000), match(599_000, 600_000, 'silence')]) },
        { chunk: chunk(1), result: answered([match(600_000, 601_000), { ...match(600_000, 700_000), value: false }]) },
        { chunk: chunk(2), result: answered([noMatch]) },
      ]),
    );
    expect(findings.map((f) => [f.value, f.event_type, f.start_ms, f.end_ms])).toEqual([
      [true, 'loud', 598_000, 601_000],
      [true, 'silence', 599_000, 600_000],
      [false, 'loud', 600_000, 700_000],
      [false, undefined, undefined, undefined],
    ]);
  });

  it('is unsupported only when no chunk could answer, and never joins across a chunk that could not', () => {
    const unsupported: AnalyzerResult = { status: 'unsupported', reason: 'The instructions name nothing the local analyzer can measure.' };
    expect(
      mergeChunkAnswers('find_moments', [
        { chunk: chunk(0), result: unsupported },
        { chunk: chunk(1), result: unsupported },
      ]),
    ).toEqual(unsupported);
    expect(mergeChunkAnswers('find_moments', [])).toEqual({ status: 'unsupported', reason: 'Nothing was analysed.' });

    const before = moment('loud', 598_000, 600_000);
    const after = moment('loud', 1_200_000, 1_201_000);
    const result = mergeChunkAnswers('find_moments', [
      { chunk: chunk(2), result: answered([after]) },
      { chunk: chunk(1), result: unsupported },
      { chunk: chunk(0), result: answered([before]) },
    ]);
    expect(findingsOf(result)).toEqual([before, after]);
  });

  it('hands the contract the whole event, which it then cuts to max_seconds from the real start', () => {
    const result = mergeChunkAnswers('find_moments', [
      { chunk: chunk(0), result: answered([moment('loud', 595_000, 600_000, 0.5)]) },
      { chunk: chunk(1), result: answered([moment('loud', 600_000, 606_000, 0.8)]) },
    ]);
    const drafts = enforceContract(result, {
      scanner: { type: 'find_moments', min_seconds: 2, max_seconds: 8 },
      mediaKind: 'audio',
      source: { startMs: 0, endMs: 3 * CHUNK_MS },
      window: { startMs: 0, endMs: 3 * CHUNK_MS },
      maxObservations: 50,
      hasTranscript: false,
    });
    expect(drafts.map((d) => [d.evidence.start_ms, d.evidence.end_ms, d.relevance_score])).toEqual([[595_000, 603_000, 0.8]]);
  });
});

// ---------------------------------------------------------------------------------------------
// Properties

const eventTypes = ['loud', 'silence', 'speech'];

/** Contiguous chunks of one length from 0, each with findings inside it, many touching its edges. */
const chunkedAnswersArb: fc.Arbitrary<ChunkAnswer[]> = fc
  .record({ chunkMs: fc.integer({ min: 10_000, max: 120_000 }), count: fc.integer({ min: 1, max: 4 }) })
  .chain(({ chunkMs, count }) =>
    fc.tuple(
      ...Array.from({ length: count }, (_, index) => {
        const { startMs, endMs } = chunk(index, chunkMs);
        const edgeOr = (edge: number) => fc.oneof(fc.constant(edge), fc.integer({ min: startMs, max: endMs }));
        const findingArb = fc
          .record({
            eventType: fc.constantFrom(...eventTypes),
            from: edgeOr(startMs),
            to: edgeOr(endMs),
            score: fc.double({ min: 0, max: 1, noNaN: true }),
          })
          .filter(({ from, to }) => from !== to)
          .map(({ eventType, from, to, score }) => moment(eventType, Math.min(from, to), Math.max(from, to), score));
        return fc.array(findingArb, { maxLength: 6 }).map((findings): ChunkAnswer => ({ chunk: { startMs, endMs }, result: answered(findings) }));
      }),
    ),
  );

const rangeOf = (f: Record<string, unknown>) => ({ startMs: f.start_ms as number, endMs: f.end_ms as number });

describe('mergeChunkAnswers properties', () => {
  it('no two findings of the same event type meet across a boundary after merging', () => {
    fc.assert(
      fc.property(chunkedAnswersArb, (answers) => {
        const findings = findingsOf(mergeChunkAnswers('find_moments', answers)).map((f) => ({ identity: eventTypeOf(f), ...rangeOf(f) }));
        for (const {
          chunk: { startMs: boundary },
        } of answers.slice(1)) {
          const reaching = findings.filter((f) => f.startMs < boundary && f.endMs >= boundary - BOUNDARY_SLACK_MS);
          const continuing = findings.filter((f) => f.endMs > boundary && f.startMs <= boundary + BOUNDARY_SLACK_MS);
          for (const a of reaching) for (const b of continuing) if (a !== b) expect(a.identity).not.toBe(b.identity);
        }
      }),
    );
  });

  it('merging a single chunk’s findings is the identity', () => {
    fc.assert(
      fc.property(chunkedAnswersArb, (answers) => {
        const only = answers[0]!;
        const findings = findingsOf(mergeChunkAnswers('find_moments', [only]));
        expect(findings).toEqual(findingsOf(only.result));
        findings.forEach((finding, i) => expect(finding).toBe(findingsOf(only.result)[i]));
      }),
    );
  });

  it('every finding is covered by a merged one of its event type, at least as strong', () => {
    fc.assert(
      fc.property(chunkedAnswersArb, (answers) => {
        const input = answers.flatMap((a) => findingsOf(a.result));
        const merged = findingsOf(mergeChunkAnswers('find_moments', answers));
        expect(merged.length).toBeLessThanOrEqual(input.length);
        for (const finding of input) {
          const { startMs, endMs } = rangeOf(finding);
          const cover = merged.find(
            (m) =>
              eventTypeOf(m) === eventTypeOf(finding) &&
              rangeOf(m).startMs <= startMs &&
              rangeOf(m).endMs >= endMs &&
              (m.relevance_score as number) >= (finding.relevance_score as number),
          );
          expect(cover, JSON.stringify(finding)).toBeDefined();
        }
      }),
    );
  });

  it('passes whatever an analyzer returned that it cannot join through unchanged', () => {
    const junk = fc.oneof(
      fc.string(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.integer(),
      fc.array(fc.integer()),
      fc.record({ start_ms: fc.string(), end_ms: fc.double() }),
    );
    fc.assert(
      fc.property(fc.array(junk, { maxLength: 10 }), fc.array(junk, { maxLength: 10 }), (first, second) => {
        const result = mergeChunkAnswers('find_moments', [
          { chunk: chunk(0), result: answered(first) },
          { chunk: chunk(1), result: answered(second) },
        ]);
        expect(findingsOf(result)).toEqual([...first, ...second]);
      }),
    );
  });
});
