/** The one-off analysis brief (profile, chat moment types, what to find) in the model analyzers' prompt and answers. */
import { describe, expect, it } from 'vitest';
import { keepRequestedTypes, modelAnalyzer, promptFor, type ChatTurn } from '../../../../functions/adapters/analyzers/llm-prompt.js';
import { chatMomentTypes, DEFAULT_WHAT_TO_FIND } from '../../../../functions/domain/engine/moment-brief.js';
import { audioSignals, observationsOf, scanner } from './fixtures.js';

const oneOff = scanner('find_moments', DEFAULT_WHAT_TO_FIND, { profile: 'conversation', min_seconds: 5, max_seconds: 30, max_observations: 10 });
const brief = { chatMomentTypes: ['q_and_a', 'story'] as const };

interface Question {
  scanner: { instructions: string; profile?: string; chat_moment_types?: string[] };
}

const moment = (eventType: string, startMs: number) => ({ value: { event_type: eventType }, relevance_score: 0.8, start_ms: startMs, end_ms: startMs + 6_000 });

describe('the prompt of a one-off analysis', () => {
  it('gives the model the brief, the profile and the requested chat moment types', () => {
    const { system, user } = promptFor(oneOff, audioSignals(), brief);
    expect((JSON.parse(user) as Question).scanner).toMatchObject({
      instructions: DEFAULT_WHAT_TO_FIND,
      profile: 'conversation',
      chat_moment_types: ['q_and_a', 'story'],
    });
    for (const type of chatMomentTypes) expect(system).toContain(type);
    expect(system).toMatch(/every event_type must be one of them/);
    expect(system).toMatch(/"conversation"/);
  });

  it('says nothing of chat moment types to a scanner run', () => {
    const { user } = promptFor(oneOff, audioSignals());
    expect((JSON.parse(user) as Question).scanner).not.toHaveProperty('chat_moment_types');
  });
});

describe('keepRequestedTypes', () => {
  const answered = {
    status: 'answered' as const,
    findings: [moment('q_and_a', 0), moment('Q and A', 10_000), moment('story', 20_000), moment('cat_video', 30_000), 'junk'],
  };

  it('keeps only the named types, spelled exactly, and never relabels another type', () => {
    const kept = keepRequestedTypes(answered, brief);
    expect(kept.status === 'answered' && kept.findings.map((f) => (f as { value: { event_type: string } }).value.event_type)).toEqual([
      'q_and_a',
      'q_and_a',
      'story',
    ]);
  });

  it('leaves the answer as it is under auto or without a brief', () => {
    expect(keepRequestedTypes(answered, { chatMomentTypes: ['auto'] })).toBe(answered);
    expect(keepRequestedTypes(answered, undefined)).toBe(answered);
    const unsupported = { status: 'unsupported' as const, reason: 'no transcript' };
    expect(keepRequestedTypes(unsupported, brief)).toBe(unsupported);
  });
});

describe('a model analyzer given a brief', () => {
  it('asks with the brief and answers only moments of the requested types, which pass the contract', async () => {
    const asked: ChatTurn[][] = [];
    const analyzer = modelAnalyzer('fake', (_system, turns) => {
      asked.push([...turns]);
      return Promise.resolve(JSON.stringify({ status: 'answered', findings: [moment('story', 1_000), moment('reaction', 30_000)] }));
    });
    const signals = audioSignals();
    const result = await analyzer.analyze({ scanner: oneOff, signals, brief });
    expect((JSON.parse(asked[0]![0]!.text) as Question).scanner.chat_moment_types).toEqual(['q_and_a', 'story']);
    expect(observationsOf(result, oneOff, signals).map((o) => o.value)).toEqual([{ event_type: 'story' }]);
  });
});
