/**
 * Honest answers on every transcriber (issue 25 item 4), end to end: espeak-ng speech that talks
 * about money ("cost", "dollars", "price") and, 6 s later, says "called" is scanned on a host with
 * TRANSCRIBER=moonshine (npm start's default), on one with pocketsphinx (where installed) and on
 * one with none, one upload each of the same source. A sound or a sight the transcript cannot
 * settle gets zero observations on all of them, even where the transcript holds "called"; a
 * question about what is said is unsupported without a transcript and answered only from the
 * transcript with one. On moonshine, whose words are right, the answers are checked against
 * where each sentence was spoken: a paraphrase ("money") finds the money sentence alone, a
 * classifier of topics picks it, and the extractor's speech share is the transcript's.
 * Skipped where espeak-ng is missing (CI installs it, and pocketsphinx: .ci/run).
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { POCKETSPHINX_DEFAULTS, pocketsphinxInstalled } from '../../functions/config.js';
import { api, createScanner, type Client } from '../helpers/api.js';
import { ffmpeg } from '../helpers/ground-truth-media.js';
import { hostsOnOwnData } from '../helpers/host-process.js';
import { runToCompletion, uploadFile, type Observation } from '../helpers/runs.js';
import { espeakInstalled, speak } from '../helpers/speech-media.js';

const TRANSCRIBERS = [
  'moonshine',
  ...(pocketsphinxInstalled(POCKETSPHINX_DEFAULTS.bin, POCKETSPHINX_DEFAULTS.modelDir) ? ['pocketsphinx' as const] : []),
  'none',
] as const;
type TranscriberName = (typeof TRANSCRIBERS)[number];

/** Where each sentence is spoken in the source (espeak-ng at 130 words a minute takes about 3.5 s for either). */
const MONEY = { text: 'The tickets cost twenty dollars, a fair price.', atMs: 500 };
const CALL = { text: 'Then my brother called me about the weather.', atMs: 7_000 };
const SOURCE_SECONDS = 13;

/** Questions no transcript can settle, one per scanner type that could be tempted. */
const unsettled = [
  { type: 'monitor', instructions: 'Does a phone ring during the call?' },
  { type: 'find_moments', instructions: 'Find the phone calls' },
  { type: 'scorer', instructions: 'How much of it is a dog barking?' },
  { type: 'classifier', instructions: 'Which sound is heard?', output: { labels: ['phone ringing', 'doorbell'] } },
  { type: 'extractor', instructions: 'How often does the phone ring?', output: { fields: ['phone_rings'] } },
];

describe.skipIf(!espeakInstalled)(`honest answers on every transcriber${espeakInstalled ? '' : ' (skipped: espeak-ng is not installed)'}`, () => {
  // One data directory per host: two hosts cannot share one. Short prefixes, as before: with
  // "pocketsphinx" in its directory's name that host exited before it was ready, twice.
  const hosts = Object.fromEntries(TRANSCRIBERS.map((name) => [name, hostsOnOwnData(`mss-meaning-${name.slice(0, 2)}-`)]));
  const clients = {} as Record<TranscriberName, Client>;
  const uploads = {} as Record<TranscriberName, string>;
  /** The spoken sentences' spans in the source, from espeak-ng's own length. */
  const spoken = {} as Record<'money' | 'call', { startMs: number; endMs: number }>;
  let workDir: string;

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'mss-meaning-'));
    const sentences = { money: MONEY, call: CALL };
    const inputs: string[] = [];
    for (const [name, { text, atMs }] of Object.entries(sentences) as ['money' | 'call', typeof MONEY][]) {
      const { path } = await speak('espeak:en-us:130', text, join(workDir, `${name}.wav`), 0);
      // 16 kHz 16-bit mono after a 44-byte header: 32 bytes a millisecond.
      spoken[name] = { startMs: atMs, endMs: atMs + ((await stat(path)).size - 44) / 32 };
      inputs.push(path);
    }
    const source = join(workDir, 'speech.m4a');
    await ffmpeg([
      ...inputs.flatMap((path) => ['-i', path]),
      // The money sentence from MONEY.atMs, padded to CALL.atMs; the call sentence after it; silence to the end.
      ...['-filter_complex', `[0]adelay=${MONEY.atMs},apad,atrim=end=${CALL.atMs / 1000}[a];[a][1]concat=n=2:v=0:a=1,apad`],
      ...['-t', String(SOURCE_SECONDS), '-c:a', 'aac', source],
    ]);
    // One after another: hosts starting side by side on a loaded machine missed their start timeout.
    for (const transcriber of TRANSCRIBERS) {
      const host = await hosts[transcriber]!.start({ TRANSCRIBER: transcriber }, 180_000);
      clients[transcriber] = api(host.baseUrl, host.apiKey);
      uploads[transcriber] = (await uploadFile(clients[transcriber], source)).upload_id;
    }
  }, 600_000);

  afterAll(async () => {
    await Promise.all(Object.values(hosts).map((host) => host.cleanUp()));
    if (workDir) await rm(workDir, { recursive: true, force: true });
  }, 60_000);

  async function scan(transcriber: TranscriberName, body: Record<string, unknown>): Promise<Observation[]> {
    const client = clients[transcriber];
    const scanner = await createScanner(client, { name: String(body.instructions), ...body });
    const { run, observations } = await runToCompletion(client, scanner.scanner_id, { upload_id: uploads[transcriber] });
    expect(run.status).toBe('completed');
    return observations;
  }

  const overlaps = (o: Observation, span: { startMs: number; endMs: number }) => o.evidence.start_ms < span.endMs && o.evidence.end_ms > span.startMs;

  for (const transcriber of TRANSCRIBERS) {
    test(`TRANSCRIBER=${transcriber}: a sound or sight the transcript cannot settle gets zero observations`, async () => {
      for (const body of unsettled) expect(await scan(transcriber, body), body.instructions).toEqual([]);
    }, 240_000);
  }

  test('a question about what is said: unsupported without a transcript, answered only from it with one', async () => {
    const question = { type: 'monitor', instructions: 'Does anyone talk about money?' };
    expect(await scan('none', question)).toEqual([]);
    for (const transcriber of TRANSCRIBERS.filter((name) => name !== 'none')) {
      const answered = await scan(transcriber, question);
      // Whatever the transcriber heard (pocketsphinx's words are poor on espeak-ng), the answer rests on the transcript alone.
      expect(answered.length, transcriber).toBeGreaterThan(0);
      for (const o of answered) expect(o.evidence.signals[0], transcriber).toBe('transcript');
    }
  }, 240_000);

  test('moonshine: "called" is heard and said, yet a phone ringing stays unanswered', async () => {
    const mentions = await scan('moonshine', { type: 'monitor', instructions: 'Does anyone mention a call?' });
    expect(mentions.length, JSON.stringify(mentions)).toBeGreaterThan(0);
    for (const o of mentions) {
      expect(o.value).toBe(true);
      expect(overlaps(o, spoken.call), JSON.stringify(o.evidence)).toBe(true);
      expect(o.evidence.transcript_excerpt?.toLowerCase()).toContain('called');
    }
    expect(await scan('moonshine', { type: 'monitor', instructions: 'Does a phone ring during the call?' })).toEqual([]);
  }, 240_000);

  test('moonshine: a paraphrase finds the money sentence first, by meaning', async () => {
    const moments = await scan('moonshine', { type: 'find_moments', instructions: 'Find where they talk about money', min_seconds: 5, max_seconds: 6 });
    expect(moments.length, JSON.stringify(moments)).toBeGreaterThan(0);
    // The most relevant: observations come in time order, and the money sentence is also the earlier one.
    const first = [...moments].sort((a, b) => b.relevance_score - a.relevance_score)[0];
    expect(overlaps(first!, spoken.money), JSON.stringify(first!.evidence)).toBe(true);
    expect(overlaps(first!, spoken.call), JSON.stringify(first!.evidence)).toBe(false);
    // "money" is never said: the match is by word vector, and the evidence names the words.
    expect(first!.evidence.signals).toContain('transcript:meaning');
    expect(
      first!.evidence.signals.some((signal) => /^transcript:money~(cost|dollars?|price|tickets?)$/.test(signal)),
      first!.evidence.signals.join(' '),
    ).toBe(true);
    // Known weakness (docs/local-analyzer.md): a common word sits close to many topics in the
    // 100-d table (money/way 0.66), so moonshine's "about the way" (espeak-ng's "weather") may be
    // found too, but less relevant than the sentence that carries the topic.
    for (const m of moments.filter((o) => o !== first)) expect(m.relevance_score, JSON.stringify(moments)).toBeLessThan(first!.relevance_score);
    // Said nowhere, by any words of the same meaning: a monitor settles it as false from the transcript.
    const football = await scan('moonshine', { type: 'monitor', instructions: 'Does anyone talk about football?' });
    expect(football.map((o) => [o.value, o.evidence.signals[0]])).toEqual([[false, 'transcript']]);
  }, 240_000);

  test('moonshine: a classifier of topics picks what is talked about; the extractor measures speech from the transcript', async () => {
    const [topic] = await scan('moonshine', { type: 'classifier', instructions: 'What do they talk about?', output: { labels: ['sports', 'money', 'music'] } });
    expect(topic?.value, JSON.stringify(topic)).toBe('money');
    expect(topic?.evidence.signals).toContain('transcript');
    const [fields] = await scan('moonshine', {
      type: 'extractor',
      instructions: 'How much of it is spoken, and what did they pay?',
      output: { fields: ['speech_share', 'amount_paid'] },
    });
    const value = fields?.value as { speech_share: number; amount_paid: unknown };
    // The transcript's segments are the speech spans: the two sentences' share of the source, within a VAD frame or two each.
    const said = (spoken.money.endMs - spoken.money.startMs + spoken.call.endMs - spoken.call.startMs) / (SOURCE_SECONDS * 1000);
    expect(value.speech_share).toBeGreaterThan(said - 0.08);
    expect(value.speech_share).toBeLessThan(said + 0.08);
    // No field reads what is said (docs/local-analyzer.md): what they paid is not measured, not guessed.
    expect(value.amount_paid).toBeNull();
  }, 240_000);
});
