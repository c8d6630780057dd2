import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { BedrockRuntimeClient, ConverseCommand, ThrottlingException, type ConverseCommandOutput } from '@aws-sdk/client-bedrock-runtime';
import { bedrockAnalyzer } from '../../../../functions/adapters/analyzers/bedrock.js';
import { MalformedModelAnswer } from '../../../../functions/adapters/analyzers/llm-prompt.js';
import { audioSignals, observationsOf, scanner } from './fixtures.js';

const bedrockMock = mockClient(BedrockRuntimeClient);
afterAll(() => bedrockMock.restore());
beforeEach(() => bedrockMock.reset());

const MODEL_ID = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const analyzer = bedrockAnalyzer({ client: new BedrockRuntimeClient({ region: 'eu-west-1' }), modelId: MODEL_ID });

const reply = (text: string): ConverseCommandOutput => ({
  output: { message: { role: 'assistant', content: [{ text }] } },
  stopReason: 'end_turn',
  usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
  metrics: { latencyMs: 1 },
  $metadata: {},
});

const classifier = scanner('classifier', 'Is this mostly music or mostly talk?', { output: { labels: ['Music', 'Talk'] }, metadata: { customer: 'c-42' } });
const classified = JSON.stringify({
  status: 'answered',
  findings: [{ value: 'music', relevance_score: 0.8, title: 'Mostly music', summary: 'Music-like tone covers 30 of 60 s.', signals: ['music_tone'] }],
});

describe('bedrock analyzer', () => {
  it('asks the configured model through Converse with the JSON-only prompt, the scanner and the signals in ms', async () => {
    bedrockMock.on(ConverseCommand).resolves(reply(classified));
    await analyzer.analyze({ scanner: classifier, signals: audioSignals() });

    const [call] = bedrockMock.commandCalls(ConverseCommand);
    const input = call!.args[0].input;
    expect(input.modelId).toBe(MODEL_ID);
    expect(input.inferenceConfig).toMatchObject({ temperature: 0 });
    expect(input.system?.[0]?.text).toMatch(/exactly one JSON object and nothing else/);
    expect(input.messages).toHaveLength(1);
    expect(input.messages![0]!.role).toBe('user');
    const question = JSON.parse(input.messages![0]!.content![0]!.text!) as {
      scanner: Record<string, unknown>;
      signals: { window: unknown; audio: { silence: { items: unknown[] } } };
    };
    expect(question.scanner).toMatchObject({
      type: 'classifier',
      instructions: 'Is this mostly music or mostly talk?',
      output: { labels: ['Music', 'Talk'] },
      max_observations: 50,
    });
    // The integrator's metadata is none of the model's business.
    expect(question.scanner).not.toHaveProperty('metadata');
    expect(question.signals.window).toEqual({ start_ms: 0, end_ms: 60_000 });
    expect(question.signals.audio.silence.items).toEqual([{ start_ms: 20_000, end_ms: 30_000 }]);
  });

  it('turns the answer into observations that pass the contract (the label as configured)', async () => {
    bedrockMock.on(ConverseCommand).resolves(reply(classified));
    const signals = audioSignals();
    const observations = observationsOf(await analyzer.analyze({ scanner: classifier, signals }), classifier, signals);

    expect(observations).toHaveLength(1);
    expect(observations[0]).toMatchObject({ value: 'Music', semantics: 'classification_label', relevance_score: 0.8, evidence: { signals: ['music_tone'] } });
  });

  it('reads an answer wrapped in a Markdown fence', async () => {
    bedrockMock.on(ConverseCommand).resolves(reply(`Here is the answer:\n\`\`\`json\n${classified}\n\`\`\``));
    await expect(analyzer.analyze({ scanner: classifier, signals: audioSignals() })).resolves.toMatchObject({ status: 'answered' });
  });

  it('passes `unsupported` through: zero observations, never a guess', async () => {
    bedrockMock.on(ConverseCommand).resolves(reply('{"status":"unsupported","reason":"Faces were not measured."}'));
    const def = scanner('monitor', 'Alert when a face appears');
    const signals = audioSignals();
    const result = await analyzer.analyze({ scanner: def, signals });

    expect(result).toEqual({ status: 'unsupported', reason: 'Faces were not measured.' });
    expect(observationsOf(result, def, signals)).toEqual([]);
  });

  it('asks once more, showing the model its malformed reply and what is wrong, and uses the corrected answer', async () => {
    bedrockMock.on(ConverseCommand).resolvesOnce(reply('The recording is mostly music.')).resolves(reply(classified));
    const result = await analyzer.analyze({ scanner: classifier, signals: audioSignals() });

    expect(result).toMatchObject({ status: 'answered', findings: [{ value: 'music' }] });
    const calls = bedrockMock.commandCalls(ConverseCommand);
    expect(calls).toHaveLength(2);
    const retry = calls[1]!.args[0].input.messages!;
    expect(retry.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(retry[1]!.content![0]!.text).toBe('The recording is mostly music.');
    expect(retry[2]!.content![0]!.text).toMatch(/no JSON object/);
  });

  it('fails the task with MalformedModelAnswer when the second reply is malformed too', async () => {
    bedrockMock.on(ConverseCommand).resolves(reply('{"status":"answered","findings":"music"}'));
    const analysis = analyzer.analyze({ scanner: classifier, signals: audioSignals() });

    await expect(analysis).rejects.toThrow(MalformedModelAnswer);
    await expect(analysis).rejects.toThrow(/findings/);
    expect(bedrockMock.commandCalls(ConverseCommand)).toHaveLength(2);
  });

  it('lets throttling surface as a task failure for Step Functions to retry, without asking again itself', async () => {
    bedrockMock.on(ConverseCommand).rejects(new ThrottlingException({ message: 'Too many requests', $metadata: { httpStatusCode: 429 } }));

    await expect(analyzer.analyze({ scanner: classifier, signals: audioSignals() })).rejects.toThrow(ThrottlingException);
    expect(bedrockMock.commandCalls(ConverseCommand)).toHaveLength(1);
  });
});
