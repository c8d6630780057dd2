/** The openai analyzer against a fake OpenAI-compatible server on loopback. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MalformedModelAnswer } from '../../../../functions/adapters/analyzers/llm-prompt.js';
import { OpenAiRequestFailed, openAiAnalyzer } from '../../../../functions/adapters/analyzers/openai.js';
import { audioSignals, chatCompletion, observationsOf, scanner, startFakeChatServer, type FakeChatServer } from './fixtures.js';

let chat: FakeChatServer;
beforeAll(async () => {
  chat = await startFakeChatServer();
});
afterAll(() => chat.close());
beforeEach(() => {
  chat.received.length = 0;
});

const analyzerWith = (apiKey?: string) => openAiAnalyzer({ baseUrl: chat.baseUrl, model: 'local-model', apiKey: () => Promise.resolve(apiKey) });

const moments = scanner('find_moments', 'Find the loudest moments', { min_seconds: 5, max_seconds: 8 });
const momentsAnswer = JSON.stringify({
  status: 'answered',
  findings: [
    { value: { event_type: 'loud_burst' }, relevance_score: 0.9, start_ms: 40_000, end_ms: 41_000, title: 'Burst at 40 s', signals: ['loud_peaks'] },
    { value: { event_type: 'loud_burst' }, relevance_score: 0.4, start_ms: 58_000, end_ms: 70_000, title: 'Past the end', signals: ['loudness'] },
  ],
});

describe('openai analyzer', () => {
  it('posts one JSON-mode chat completion with the bearer key, the system prompt and the question', async () => {
    chat.replies = [{ status: 200, body: chatCompletion(momentsAnswer) }];
    await analyzerWith('sk-test-key').analyze({ scanner: moments, signals: audioSignals() });

    expect(chat.received).toHaveLength(1);
    const [request] = chat.received;
    expect(request).toMatchObject({
      method: 'POST',
      path: '/v1/chat/completions',
      headers: { authorization: 'Bearer sk-test-key', 'content-type': 'application/json' },
    });
    expect(request!.body).toMatchObject({ model: 'local-model', response_format: { type: 'json_object' }, temperature: 0 });
    expect(request!.body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(request!.body.messages[0]!.content).toMatch(/JSON/);
    expect(JSON.parse(request!.body.messages[1]!.content)).toMatchObject({ scanner: { type: 'find_moments', min_seconds: 5, max_seconds: 8 } });
  });

  it('sends no authorization header when no key is configured (a local model server)', async () => {
    chat.replies = [{ status: 200, body: chatCompletion(momentsAnswer) }];
    await analyzerWith(undefined).analyze({ scanner: moments, signals: audioSignals() });
    expect(chat.received[0]!.headers).not.toHaveProperty('authorization');
  });

  it('turns the answer into moments that pass the contract: sized, clamped to the source, ranked', async () => {
    chat.replies = [{ status: 200, body: chatCompletion(momentsAnswer) }];
    const signals = audioSignals();
    const observations = observationsOf(await analyzerWith().analyze({ scanner: moments, signals }), moments, signals);

    expect(observations.map((o) => [o.evidence.start_ms, o.evidence.end_ms, o.value])).toEqual([
      [40_000, 45_000, { event_type: 'loud_burst' }],
      [55_000, 60_000, { event_type: 'loud_burst' }],
    ]);
  });

  it.each([429, 500, 503])('fails the task on HTTP %i with the status and the start of the body', async (status) => {
    chat.replies = [{ status, body: JSON.stringify({ error: { message: 'Rate limit reached for local-model' } }) }];
    const analysis = analyzerWith().analyze({ scanner: moments, signals: audioSignals() });

    await expect(analysis).rejects.toThrow(OpenAiRequestFailed);
    await expect(analysis).rejects.toThrow(new RegExp(`answered ${status}: .*Rate limit reached`));
    expect(chat.received).toHaveLength(1);
  });

  it('fails the task when the endpoint answers something that is not a chat completion', async () => {
    chat.replies = [{ status: 200, body: '<html>captive portal</html>' }];
    await expect(analyzerWith().analyze({ scanner: moments, signals: audioSignals() })).rejects.toThrow(/other than a chat completion/);
  });

  it('asks once more after malformed content, then uses the corrected answer', async () => {
    chat.replies = [
      { status: 200, body: chatCompletion('Sure! The loudest moment is at 40 s.') },
      { status: 200, body: chatCompletion(momentsAnswer) },
    ];
    await expect(analyzerWith().analyze({ scanner: moments, signals: audioSignals() })).resolves.toMatchObject({ status: 'answered' });
    expect(chat.received).toHaveLength(2);
    expect(chat.received[1]!.body.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(chat.received[1]!.body.messages[2]!.content).toBe('Sure! The loudest moment is at 40 s.');
  });

  it('fails the task with MalformedModelAnswer after two malformed replies (empty content included)', async () => {
    chat.replies = [
      { status: 200, body: chatCompletion(null) },
      { status: 200, body: chatCompletion('{"status":"answered"}') },
    ];
    await expect(analyzerWith().analyze({ scanner: moments, signals: audioSignals() })).rejects.toThrow(MalformedModelAnswer);
    expect(chat.received).toHaveLength(2);
    // An empty reply is shown to the model as such: chat APIs refuse empty turns.
    expect(chat.received[1]!.body.messages[2]!.content).toBe('(no reply)');
  });
});
