/**
 * Honest answers on every transcriber (issue 25 item 4), end to end: espeak-ng speech that says
 * "called" and "dollars" is scanned on a host with TRANSCRIBER=pocketsphinx and on one with none.
 * A sound or a sight the transcript cannot settle gets zero observations on both; a question
 * about what is said is unsupported without a transcript and answered only from the transcript
 * with one. Skipped where pocketsphinx, its model or espeak-ng are missing (CI installs them).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { POCKETSPHINX_DEFAULTS, pocketsphinxModelFiles } from '../../functions/config.js';
import { api, createScanner, type Client } from '../helpers/api.js';
import { ffmpeg } from '../helpers/ground-truth-media.js';
import { hostsOnOwnData } from '../helpers/host-process.js';
import { runToCompletion, uploadFile, type Observation } from '../helpers/runs.js';

const pocketsphinxInstalled = existsSync(POCKETSPHINX_DEFAULTS.bin) && Object.values(pocketsphinxModelFiles(POCKETSPHINX_DEFAULTS.modelDir)).every((path) => existsSync(path));
const espeakInstalled = spawnSync('espeak-ng', ['--version'], { stdio: 'ignore' }).status === 0;
const skipReason = !pocketsphinxInstalled ? 'pocketsphinx or pocketsphinx-en-us is not installed' : !espeakInstalled ? 'espeak-ng is not installed' : null;

/** Questions no transcript can settle, one per scanner type that could be tempted. */
const unsettled = [
  { type: 'monitor', instructions: 'Does a phone ring during the call?' },
  { type: 'find_moments', instructions: 'Find the phone calls' },
  { type: 'scorer', instructions: 'How much of it is a dog barking?' },
  { type: 'classifier', instructions: 'Which sound is heard?', output: { labels: ['phone ringing', 'doorbell'] } },
  { type: 'extractor', instructions: 'How often does the phone ring?', output: { fields: ['phone_rings'] } },
];

describe.skipIf(skipReason !== null)(`honest answers with and without a transcriber${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  // One data directory per host: two hosts cannot share one.
  const hosts = { pocketsphinx: hostsOnOwnData('mss-meaning-ps-'), none: hostsOnOwnData('mss-meaning-none-') };
  const clients: Record<'pocketsphinx' | 'none', Client> = {} as Record<'pocketsphinx' | 'none', Client>;
  const uploads: Record<string, string> = {};
  let workDir: string;

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'mss-meaning-'));
    const speechWav = join(workDir, 'speech.wav');
    const source = join(workDir, 'speech.m4a');
    expect(spawnSync('espeak-ng', ['-v', 'en-us', '-s', '130', '-w', speechWav, 'We paid twenty dollars for the tickets. Then my brother called me.']).status).toBe(0);
    await ffmpeg(['-i', speechWav, '-af', 'apad', '-t', '9', '-c:a', 'aac', source]);
    for (const transcriber of ['pocketsphinx', 'none'] as const) {
      const host = await hosts[transcriber].start({ TRANSCRIBER: transcriber });
      clients[transcriber] = api(host.baseUrl, host.apiKey);
      uploads[transcriber] = (await uploadFile(clients[transcriber], source)).upload_id;
    }
  }, 240_000);

  afterAll(async () => {
    await Promise.all([hosts.pocketsphinx.cleanUp(), hosts.none.cleanUp()]);
    if (workDir) await rm(workDir, { recursive: true, force: true });
  }, 60_000);

  async function scan(transcriber: 'pocketsphinx' | 'none', body: Record<string, unknown>): Promise<Observation[]> {
    const client = clients[transcriber];
    const scanner = await createScanner(client, { name: String(body.instructions), ...body });
    const { run, observations } = await runToCompletion(client, scanner.scanner_id, { upload_id: uploads[transcriber]! });
    expect(run.status).toBe('completed');
    return observations;
  }

  for (const transcriber of ['pocketsphinx', 'none'] as const) {
    test(`TRANSCRIBER=${transcriber}: a sound or sight the transcript cannot settle gets zero observations`, async () => {
      for (const body of unsettled) expect(await scan(transcriber, body), body.instructions).toEqual([]);
    }, 240_000);
  }

  test('a question about what is said: unsupported without a transcript, answered only from it with one', async () => {
    const question = { type: 'monitor', instructions: 'Does anyone talk about money?' };
    expect(await scan('none', question)).toEqual([]);
    const answered = await scan('pocketsphinx', question);
    // Whatever pocketsphinx heard (its words are poor on espeak-ng), the answer rests on the transcript alone.
    expect(answered.length).toBeGreaterThan(0);
    for (const o of answered) expect(o.evidence.signals[0]).toBe('transcript');
  }, 240_000);
});
