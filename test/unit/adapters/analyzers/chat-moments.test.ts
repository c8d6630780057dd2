import { beforeAll, describe, expect, it } from 'vitest';
import { testLocalAnalyzer as localAnalyzer, testMeaning } from '../../../helpers/local-analyzer.js';
import { conceptsIn, readInstruction } from '../../../../functions/adapters/analyzers/vocabulary.js';
import { enforceContract } from '../../../../functions/domain/engine/contract.js';
import { DEFAULT_WHAT_TO_FIND, type ChatMomentType } from '../../../../functions/domain/engine/moment-brief.js';
import type { LevelSpan, SourceSignals, TranscriptSegment } from '../../../../functions/domain/engine/signals.js';
import type { ScannerDefinition } from '../../../../functions/domain/scanners/model.js';

// The NLP model loads once per file: seconds on a loaded machine, more than a test's own timeout.
beforeAll(() => testMeaning(), 120_000);

/** A segment whose words share its span evenly. */
function said(startMs: number, endMs: number, text: string, speaker: string | null = 'spk_0'): TranscriptSegment {
  const tokens = text.split(' ');
  const step = (endMs - startMs) / tokens.length;
  return {
    startMs,
    endMs,
    text,
    speaker,
    words: tokens.map((t, i) => ({ startMs: Math.round(startMs + i * step), endMs: Math.round(startMs + (i + 1) * step), text: t })),
  };
}

const peak = (startMs: number, endMs: number, level = 1): LevelSpan => ({ startMs, endMs, level });

/** 60 s of conversation video: no cuts, no bursts, speech activity where the transcript has words. */
function conversation({
  transcript = null,
  loudPeaks = [],
  cuts = [],
}: {
  transcript?: TranscriptSegment[] | null;
  loudPeaks?: LevelSpan[];
  cuts?: number[];
} = {}): SourceSignals {
  return {
    mediaKind: 'video',
    durationMs: 60_000,
    window: { startMs: 0, endMs: 60_000 },
    video: {
      width: 1280,
      height: 720,
      frameRate: 30,
      sceneCuts: cuts.map((atMs) => ({ atMs, score: 0.9 })),
      motion: [],
      black: [],
      frozen: [],
      dominantColor: null,
      visual: null,
    },
    audio: {
      loudness: [],
      integratedLufs: -20,
      loudPeaks,
      silence: [],
      speech: (transcript ?? [{ startMs: 0, endMs: 20_000 }]).map((s) => ({ startMs: s.startMs, endMs: s.endMs })),
      music: [],
    },
    transcript,
  };
}

const findMoments = (instructions = DEFAULT_WHAT_TO_FIND): ScannerDefinition => ({
  name: 'one-off',
  type: 'find_moments',
  instructions,
  profile: 'conversation',
  min_seconds: 5,
  max_seconds: 30,
});

async function moments(signals: SourceSignals, types: ChatMomentType[] | null, instructions?: string) {
  const scanner = findMoments(instructions);
  const result = await localAnalyzer.analyze({ scanner, signals, ...(types ? { brief: { chatMomentTypes: types } } : {}) });
  const drafts = enforceContract(result, {
    scanner,
    mediaKind: signals.mediaKind,
    source: { startMs: 0, endMs: signals.durationMs },
    window: signals.window,
    maxObservations: 50,
    hasTranscript: Boolean(signals.transcript?.length),
  });
  return drafts.map((d) => ({
    type: (d.value as { event_type: string }).event_type,
    start: d.evidence.start_ms,
    score: d.relevance_score,
    signals: d.evidence.signals,
    excerpt: d.evidence.transcript_excerpt,
  }));
}

const typesOf = (found: { type: string }[]) => found.map((m) => m.type).sort();

describe('chat moment types in the local analyzer', () => {
  it('q_and_a: a question and the answer that follows, strongest when another speaker answers', async () => {
    const transcript = [
      said(0, 3_000, 'So what got you into podcasting?', 'spk_0'),
      said(3_500, 9_000, 'Honestly a friend dared me to start one', 'spk_1'),
      said(9_200, 12_000, 'and it stuck with me', 'spk_1'),
      said(20_000, 23_000, 'How does it work?', 'spk_0'),
      // No answer for 10 s: an unanswered question is no Q&A.
      said(33_000, 36_000, 'Nobody knows', 'spk_1'),
    ];
    const found = await moments(conversation({ transcript }), ['q_and_a']);
    expect(found).toEqual([
      {
        type: 'q_and_a',
        start: 0,
        score: 1,
        signals: ['transcript'],
        excerpt: 'So what got you into podcasting? Honestly a friend dared me to start one and it stuck with me',
      },
    ]);
  });

  it('q_and_a: an interrogative opening without a question mark, answered by the same speaker, is weaker', async () => {
    const transcript = [said(0, 2_000, 'Do you know what happened next', 'spk_0'), said(2_500, 8_000, 'we lost the signal', 'spk_0')];
    const found = await moments(conversation({ transcript }), ['q_and_a']);
    expect(found.map((m) => [m.type, m.score])).toEqual([['q_and_a', 0.6]]);
  });

  it('story, opinion and advice: from what is said, each over the speaker’s turn', async () => {
    const transcript = [
      said(0, 6_000, 'When I was a kid we drove to the lake every summer', 'spk_0'),
      said(6_200, 12_000, 'and my dad caught a fish that was bigger than me', 'spk_0'),
      said(20_000, 25_000, 'In my opinion the first season was the best one', 'spk_1'),
      said(40_000, 45_000, 'You should always make sure your files are backed up', 'spk_0'),
    ];
    const found = await moments(conversation({ transcript }), ['story', 'opinion', 'advice']);
    expect(found.map((m) => [m.type, m.start])).toEqual(
      expect.arrayContaining([
        ['story', 0],
        ['opinion', 20_000],
        ['advice', 40_000],
      ]),
    );
    expect(found).toHaveLength(3);
    expect(found.every((m) => m.signals.join() === 'transcript')).toBe(true);
  });

  it('funny: laughter in the transcript with what was said before it, and a non-verbal burst right after speech', async () => {
    const transcript = [
      said(0, 4_000, 'and then the cat sat on the keyboard', 'spk_0'),
      said(4_200, 6_000, 'haha [laughter]', 'spk_1'),
      said(30_000, 34_000, 'that is the whole plan', 'spk_0'),
      said(40_000, 44_000, 'it was LOUD when I said it', 'spk_0'),
    ];
    // A burst 1 s after the plan (nobody speaks: laughter-like) and one over words (someone shouting: not laughter).
    const loudPeaks = [peak(35_000, 36_500, 0.8), peak(41_000, 42_000)];
    const found = await moments(conversation({ transcript, loudPeaks }), ['funny'], 'Find the funny bits');
    expect(found.map((m) => [m.type, m.start, m.signals])).toEqual([
      ['funny', 0, ['transcript']],
      ['funny', 30_000, ['loudness', 'transcript']],
    ]);
    expect(found[1]!.score).toBeCloseTo(0.4, 5); // half the burst's level: weaker evidence than a laughter token
  });

  it('reaction: a loud burst right after speech or a scene cut, nothing for a burst out of nowhere', async () => {
    // Speech activity 0-20 s (no transcript); a cut at 40 s.
    const loudPeaks = [peak(21_000, 22_000, 0.9), peak(41_000, 42_000, 0.7), peak(50_000, 51_000)];
    const found = await moments(conversation({ loudPeaks, cuts: [40_000] }), ['reaction']);
    expect(found.map((m) => [m.type, m.start, m.signals])).toEqual([
      ['reaction', 16_000, ['loudness', 'speech_activity']],
      ['reaction', 40_000, ['loudness', 'scene_cuts']],
    ]);
  });

  it('without a transcript, q_and_a (and every type that needs one) yields nothing, never a guess', async () => {
    const signals = conversation({ loudPeaks: [peak(21_000, 22_000)] });
    expect(await moments(signals, ['q_and_a'])).toEqual([]);
    expect(await moments(signals, ['q_and_a', 'story', 'opinion', 'advice', 'funny'])).toEqual([]);
    const result = await localAnalyzer.analyze({ scanner: findMoments(), signals, brief: { chatMomentTypes: ['q_and_a'] } });
    expect(result.status).toBe('unsupported');
  });

  it('a type that cannot be grounded gives no moment of that type, the others still answer', async () => {
    const found = await moments(conversation({ loudPeaks: [peak(21_000, 22_000)] }), ['q_and_a', 'reaction']);
    expect(typesOf(found)).toEqual(['reaction']);
  });

  it('a type that is measurable but absent gives fewer moments, not invented ones', async () => {
    const transcript = [said(0, 5_000, 'Welcome back to the show everyone'), said(6_000, 10_000, 'today we talk about gardens')];
    expect(await moments(conversation({ transcript }), ['q_and_a', 'story', 'advice'])).toEqual([]);
  });

  it('named types replace the instructions’ own moments, which rank them instead', async () => {
    const transcript = [said(0, 5_000, 'I think the weather will turn', 'spk_0'), said(20_000, 25_000, 'I think the pricing is too high', 'spk_1')];
    const found = await moments(conversation({ transcript, cuts: [10_000] }), ['opinion'], 'Find the scene changes and talk about pricing');
    expect(found.map((m) => [m.type, m.start])).toEqual([
      ['opinion', 20_000],
      ['opinion', 0],
    ]);
  });

  it('auto keeps the instructions’ moments as they were, and adds the chat types the source supports', async () => {
    // Nothing a chat type can ground: auto answers exactly as no brief does.
    const plain = conversation({ cuts: [10_000, 30_000], loudPeaks: [peak(50_000, 51_000)] });
    expect(await moments(plain, ['auto'], 'Find the scene changes')).toEqual(await moments(plain, null, 'Find the scene changes'));
    expect(await moments(plain, [], 'Find the scene changes')).toEqual(await moments(plain, null, 'Find the scene changes'));

    const transcript = [said(0, 2_000, 'Why did it break?', 'spk_0'), said(2_500, 8_000, 'the cable was loose', 'spk_1')];
    const talk = conversation({ transcript, cuts: [10_000] });
    expect(typesOf(await moments(talk, null, 'Find the scene changes'))).toEqual(['scene_change']);
    expect(typesOf(await moments(talk, ['auto'], 'Find the scene changes'))).toEqual(['q_and_a', 'scene_change']);
  });

  it('passes the contract with the type as event_type, inside the window of a chunk', async () => {
    const transcript = [
      said(0, 3_000, 'Is it live?', 'spk_0'),
      said(3_500, 6_000, 'yes it is', 'spk_1'),
      said(40_000, 42_000, 'Can you hear me?', 'spk_0'),
      said(42_500, 45_000, 'loud and clear', 'spk_1'),
    ];
    const chunk = { ...conversation({ transcript }), window: { startMs: 30_000, endMs: 60_000 } };
    expect((await moments(chunk, ['q_and_a'])).map((m) => [m.type, m.start])).toEqual([['q_and_a', 40_000]]);
  });
});

describe('DEFAULT_WHAT_TO_FIND', () => {
  it('is grounded in the vocabulary alone: loud peaks and scene cuts, no transcript words', async () => {
    expect(conceptsIn(DEFAULT_WHAT_TO_FIND).map((c) => c.name)).toEqual(['scene_change', 'loud']);
    expect(readInstruction(DEFAULT_WHAT_TO_FIND, (await testMeaning()).words(DEFAULT_WHAT_TO_FIND)).topic).toEqual([]);
  });
});
