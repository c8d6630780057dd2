import { beforeAll, describe, expect, it } from 'vitest';
import { enforceContract } from '../../../../functions/domain/engine/contract.js';
import type { SourceSignals } from '../../../../functions/domain/engine/signals.js';
import type { ScannerDefinition } from '../../../../functions/domain/scanners/model.js';
import { testLocalAnalyzer, testMeaning } from '../../../helpers/local-analyzer.js';

// The NLP model loads once per file: seconds on a loaded machine, more than a test's own timeout.
beforeAll(() => testMeaning(), 120_000);

/** 30 s of audio: three spoken lines over 0-15 s, music 15-30 s. */
const segment = (startMs: number, text: string) => ({ startMs, endMs: startMs + 5_000, text, speaker: null, words: [] });
const withTranscript: SourceSignals = {
  mediaKind: 'audio',
  durationMs: 30_000,
  window: { startMs: 0, endMs: 30_000 },
  video: null,
  audio: {
    loudness: [],
    integratedLufs: -20,
    loudPeaks: [],
    silence: [],
    speech: [{ startMs: 0, endMs: 15_000 }],
    music: [{ startMs: 15_000, endMs: 30_000 }],
  },
  transcript: [
    segment(0, 'We paid twenty dollars for the tickets.'),
    segment(5_000, 'The weather was lovely all week.'),
    segment(10_000, 'Then my brother called me.'),
  ],
};
const withoutTranscript: SourceSignals = { ...withTranscript, transcript: null };

const scanner = (type: ScannerDefinition['type'], instructions: string, output?: ScannerDefinition['output']): ScannerDefinition => ({
  name: 't',
  type,
  instructions,
  ...(output ? { output } : {}),
});

async function observe(def: ScannerDefinition, signals: SourceSignals) {
  const result = await testLocalAnalyzer.analyze({ scanner: def, signals });
  return enforceContract(result, {
    scanner: def,
    mediaKind: 'audio',
    source: signals.window,
    window: signals.window,
    maxObservations: 50,
    hasTranscript: signals.transcript !== null,
  });
}

describe('honesty: what a transcript cannot settle gets zero observations, whatever transcriber ran', () => {
  const unsettled: [string, ScannerDefinition][] = [
    ['a sound whose word is said ("called")', scanner('monitor', 'Does a phone ring during the call?')],
    ['a sound nobody names', scanner('monitor', 'Is there a dog barking?')],
    ['a sight', scanner('monitor', 'Is there a red car on screen?')],
    ['a sound, as moments', scanner('find_moments', 'Find the phone calls')],
    ['a sound, as a score', scanner('scorer', 'How much of it is a phone ringing?')],
    ['sounds, as labels', scanner('classifier', 'Which sound is heard?', { labels: ['phone ringing', 'doorbell'] })],
    ['a field nothing measures', scanner('extractor', 'How many times does the phone ring?', { fields: ['phone_rings'] })],
  ];
  for (const [what, def] of unsettled) {
    it(`${def.type}: ${what}`, async () => {
      expect(await observe(def, withTranscript)).toEqual([]);
      expect(await observe(def, withoutTranscript)).toEqual([]);
    });
  }

  it('a question about what is said: settled either way with a transcript, unsupported without one', async () => {
    for (const type of ['monitor', 'find_moments', 'scorer'] as const) {
      expect(await observe(scanner(type, 'Does anyone mention a rocket?'), withoutTranscript)).toEqual([]);
    }
    expect(await observe(scanner('classifier', 'What do they talk about?', { labels: ['money', 'sports'] }), withoutTranscript)).toEqual([]);
    const no = await observe(scanner('monitor', 'Does anyone mention a rocket?'), withTranscript);
    expect(no).toMatchObject([{ value: false, evidence: { start_ms: 0, end_ms: 30_000, signals: ['transcript'] } }]);
  });
});

describe('meaning: paraphrases, lemmas and negation', () => {
  it('finds a paraphrase and says which words grounded it', async () => {
    const out = await observe(scanner('find_moments', 'Find where they talk about money'), withTranscript);
    expect(out).toHaveLength(1);
    expect(out[0]!.evidence).toMatchObject({
      start_ms: 0,
      transcript_excerpt: 'We paid twenty dollars for the tickets.',
      signals: ['transcript', 'transcript:meaning', 'transcript:money~paid'],
    });
  });

  it('matches by lemma as the same word', async () => {
    const out = await observe(scanner('monitor', 'Does someone mention a call?'), withTranscript);
    // "called" is "call": the strongest answer, cited as the transcript alone (looser matches follow it).
    expect(out[0]).toMatchObject({ value: true, relevance_score: 1, evidence: { start_ms: 10_000, signals: ['transcript'] } });
  });

  it('reads "no music" and "without talking" as the absence', async () => {
    const noMusic = await observe(scanner('find_moments', 'Find the parts with no music'), withTranscript);
    expect(noMusic.map((o) => [o.evidence.start_ms, o.evidence.signals])).toEqual([[0, ['music_tone']]]);
    const quiet = await observe(scanner('monitor', 'Is there a moment without talking?'), withTranscript);
    expect(quiet).toMatchObject([{ value: true, evidence: { start_ms: 15_000, end_ms: 30_000, signals: ['speech_activity'] } }]);
  });

  it('reads "don\'t mention" as the topic\'s absence', async () => {
    const out = await observe(scanner('find_moments', "Find where they don't mention the weather"), withTranscript);
    expect(out.map((o) => o.evidence.start_ms).sort((a, b) => a - b)).toEqual([0, 10_000]);
  });

  it('classifies by topic and scores what is said', async () => {
    const label = await observe(scanner('classifier', 'What do they talk about?', { labels: ['sports', 'money'] }), withTranscript);
    expect(label).toMatchObject([{ value: 'money' }]);
    const share = await observe(scanner('scorer', 'How much do they talk about the weather?'), withTranscript);
    expect(share).toMatchObject([{ value: 5_000 / 30_000 }]);
  });
});
