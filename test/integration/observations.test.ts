/**
 * GET /v1/observations: observations across an account's runs, newest first, with the filters
 * scanner_id, scanner_version, run_id, type, media_kind, evidence_kind and created_after, and
 * signed pagination. One fresh account owns everything here, so the totals are exact.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { clientFor, createAccount, createScanner, expectError, listAll, type Client } from '../helpers/api.js';
import { groundTruthAudio, groundTruthVideo } from '../helpers/ground-truth-media.js';
import { observationsOf, runToCompletion, uploadFile, type Observation, type Run } from '../helpers/runs.js';

let client: Client;
let runs: { video: Run; audio: Run; summary: Run };
let all: Observation[];

beforeAll(async () => {
  const account = await createAccount({ plan: 'creator', credits: 100 });
  client = clientFor(account.apiKey);
  const [video, audio] = await Promise.all([groundTruthVideo(), groundTruthAudio()]);
  const [videoUpload, audioUpload] = await Promise.all([uploadFile(client, video.path), uploadFile(client, audio.path)]);
  const cuts = await createScanner(client, { name: 'cuts', type: 'find_moments', instructions: 'Find the scene changes', min_seconds: 5, max_seconds: 10 });
  const summary = await createScanner(client, { name: 'summary', type: 'summarizer', instructions: 'Summarise the recording' });
  const [v, a, s] = await Promise.all([
    runToCompletion(client, cuts.scanner_id, { upload_id: videoUpload.upload_id }),
    runToCompletion(client, cuts.scanner_id, { upload_id: audioUpload.upload_id }),
    runToCompletion(client, summary.scanner_id, { upload_id: audioUpload.upload_id }),
  ]);
  runs = { video: v.run, audio: a.run, summary: s.run };
  all = [...v.observations, ...a.observations, ...s.observations];
}, 180_000);

describe('GET /v1/observations', () => {
  test('lists every observation of the account exactly once, newest first, across pages', async () => {
    expect(all.length).toBeGreaterThan(3);
    const { pages, items } = await listAll<Observation>(client, '/v1/observations', 2);
    expect(pages.at(-1)?.next_cursor).toBeNull();
    expect(items.map((o) => o.observation_id).sort()).toEqual(all.map((o) => o.observation_id).sort());
    const ids = items.map((o) => o.observation_id);
    expect(ids).toEqual([...ids].sort().reverse());
  });

  test('each filter narrows to exactly the matching observations', async () => {
    const expectSame = async (query: string, keep: (o: Observation) => boolean) => {
      const { items } = await listAll<Observation>(client, `/v1/observations?${query}`, 50);
      expect(items.map((o) => o.observation_id).sort(), query).toEqual(
        all
          .filter(keep)
          .map((o) => o.observation_id)
          .sort(),
      );
    };
    await expectSame(`run_id=${runs.video.run_id}`, (o) => o.run_id === runs.video.run_id);
    await expectSame(`scanner_id=${runs.summary.scanner_id}`, (o) => o.scanner_id === runs.summary.scanner_id);
    await expectSame('type=summarizer', (o) => o.type === 'summarizer');
    await expectSame('media_kind=video', (o) => o.evidence.media_kind === 'video');
    await expectSame('evidence_kind=visual', (o) => o.evidence.evidence_kind === 'visual');
    await expectSame('evidence_kind=audio&type=find_moments', (o) => o.evidence.evidence_kind === 'audio' && o.type === 'find_moments');
    await expectSame('scanner_version=1', () => true);
    await expectSame('scanner_version=2', () => false);
    // The filtered view and the run's own list agree.
    expect((await observationsOf(client, runs.audio.run_id)).map((o) => o.observation_id).sort()).toEqual(
      all
        .filter((o) => o.run_id === runs.audio.run_id)
        .map((o) => o.observation_id)
        .sort(),
    );
  });

  test('created_after keeps only later observations', async () => {
    const future = await client.get<{ data: Observation[] }>('/v1/observations?created_after=2100-01-01T00:00:00Z');
    expect(future.status).toBe(200);
    expect(future.body.data).toEqual([]);
    const { items } = await listAll<Observation>(client, '/v1/observations?created_after=2000-01-01T00:00:00Z', 50);
    expect(items).toHaveLength(all.length);
  });

  test('bad filters are 400 validation_failed naming the parameter; other accounts see nothing', async () => {
    expectError(await client.get('/v1/observations?type=bogus'), 400, 'validation_failed', 'type');
    expectError(await client.get('/v1/observations?media_kind=image'), 400, 'validation_failed', 'media_kind');
    expectError(await client.get('/v1/observations?created_after=yesterday'), 400, 'validation_failed', 'created_after');
    expectError(await client.get('/v1/observations?scanner_version=0'), 400, 'validation_failed', 'scanner_version');
    expectError(await client.get('/v1/observations?color=red'), 400, 'validation_failed', 'color');
    const other = clientFor((await createAccount({ plan: 'hobby', credits: 0 })).apiKey);
    const foreign = await other.get<{ data: Observation[] }>(`/v1/observations?run_id=${runs.video.run_id}`);
    expect(foreign.status).toBe(200);
    expect(foreign.body.data).toEqual([]);
  });
});
