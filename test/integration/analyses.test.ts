/**
 * One-off analyses from source URLs on the local host (SPEC "One-off analysis", DESIGN 10): the
 * sources are served from a loopback media server, trusted for each test account through the admin
 * CLI, which a host with LOCAL_ALLOW_LOOPBACK_TARGETS=1 allows. Preflight, quote, submission,
 * progress, moments, the analysis record and list, cancel while queued (one refund) and 409 after
 * start, the proof allowance claimed once under concurrency, idempotent replay, and refusals.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { adminOutput, clientFor, createAccount, expectError, runAdmin, type AccountOptions, type Client, type List } from '../helpers/api.js';
import { balanceOf, generated, longVideo, momentsOf, sleep, toneWav, type MomentList } from '../helpers/runs.js';
import { startMediaServer, type MediaServer } from '../helpers/media-server.js';
import { eventLogOnce, type EventLogLine } from '../helpers/events.js';

interface Analysis {
  object: 'analysis';
  analysis_id: string;
  kind: 'one_off' | 'scanner_run';
  run_id: string | null;
  status: 'queued' | 'dispatched' | 'processing' | 'completed' | 'failed' | 'canceled';
  source: { kind: string; provider: { kind: string; host?: string }; host: string; duration_ms: number; size_bytes: number | null };
  window: { analysis_start_seconds: number; analysis_end_seconds: number };
  what_to_find: string | null;
  profile: string;
  chat_moment_types: string[];
  speech_cleanup: string;
  max_moments: number;
  billing: { credits: number; state: string; proof: boolean };
  error: { code: string } | null;
}

const SOURCE_SECONDS = 90;
let server: MediaServer;
let video: string;
let tone: string;
/** Speech-like bursts with pauses of 0.6 s, over a video with cuts: material for speech cleanup. */
let pausedSpeech: string;

beforeAll(async () => {
  server = await startMediaServer();
  [video, tone, pausedSpeech] = await Promise.all([
    longVideo(SOURCE_SECONDS),
    toneWav(20),
    generated('paused-speech-30s.mp4', (path) => [
      ...['-f', 'lavfi', '-i', 'testsrc2=s=160x120:r=25:d=30'],
      // 1.4 s of modulated tone, then 0.6 s of digital silence, repeated.
      ...['-f', 'lavfi', '-i', "aevalsrc='if(lt(mod(t,2),1.4),0.5*sin(2*PI*220*t)*(0.6+0.4*sin(2*PI*4*t)),0)':s=16000:d=30"],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', '-f', 'mp4', path],
    ]),
  ]);
});

afterAll(() => server.close());

/** A fresh account that trusts the loopback media server's host. */
async function trustedClient(options: AccountOptions = {}): Promise<{ client: Client; accountId: string }> {
  const account = await createAccount({ plan: 'creator', credits: 100, ...options });
  adminOutput(await runAdmin(['accounts', 'trust-host', '127.0.0.1', '--account', account.accountId], inject('dataDir')));
  return { client: clientFor(account.apiKey), accountId: account.accountId };
}

const isTerminal = (status: Analysis['status']) => ['completed', 'failed', 'canceled'].includes(status);

async function waitForAnalysis(client: Client, analysisId: string, until = isTerminal, timeoutMs = 90_000): Promise<Analysis> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await client.get<Analysis>(`/v1/analyses/${analysisId}`);
    expect(response.status).toBe(200);
    if (until(response.body.status) || Date.now() > deadline) return response.body;
    await sleep(250);
  }
}

/** The analysis's events once `count` of them are there (the outbox relay appends them a moment after the state change). */
async function eventsOf(subjectId: string, count = 1): Promise<{ type: string; id: string }[]> {
  const ofSubject = (lines: readonly EventLogLine[]) => lines.filter((line) => (line.event.data.object as { analysis_id?: string }).analysis_id === subjectId);
  const lines = await eventLogOnce(inject('dataDir'), (all) => ofSubject(all).length >= count);
  return ofSubject(lines).map(({ event: { id, type } }) => ({ id, type }));
}

const windowBody = (url: string, start: number, end: number, extra: Record<string, unknown> = {}) => ({
  source_url: url,
  analysis_start_seconds: start,
  analysis_end_seconds: end,
  ...extra,
});

// Several analyses run at once on two cores, with acquisition and signals each: room to finish.
describe.concurrent('one-off analyses', { timeout: 150_000 }, () => {
  test('preflight measures a trusted source without storing or charging anything', async () => {
    const { client } = await trustedClient({ credits: 1 });
    const url = server.add(video);
    const response = await client.post<Record<string, unknown>>('/v1/sources/preflight', { source_url: url });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({
      object: 'source_preflight',
      provider: { kind: 'trusted_host', host: '127.0.0.1' },
      media_kind: 'video',
      proof_available: true,
      // Proof allows up to the whole 90 s source, more than the one credit would.
      max_window_seconds: SOURCE_SECONDS,
    });
    expect(Math.abs((response.body.duration_ms as number) - SOURCE_SECONDS * 1000)).toBeLessThan(200);
    // The URL, with its unguessable path, is never echoed.
    expect(response.text).not.toContain(new URL(url).pathname);
    expect(await balanceOf(client)).toBe(1);
  });

  test('refusals: untrusted hosts and forbidden addresses are 422 before any connection; audio-only is source_unreadable', async () => {
    const { client } = await trustedClient();
    const audio = server.add(tone, 'tone.wav');
    for (const source_url of [
      'https://example.com/video.mp4',
      'http://10.0.0.1/video.mp4',
      'https://169.254.169.254/latest',
      'https://user:pw@127.0.0.1/x.mp4',
    ]) {
      expectError(await client.post('/v1/sources/preflight', { source_url }), 422, 'untrusted_source_url');
    }
    expectError(await client.post('/v1/sources/preflight', { source_url: audio }), 422, 'source_unreadable');
    expectError(await client.post('/v1/analyses', windowBody(audio, 0, 10)), 422, 'source_unreadable');
    expectError(await client.post('/v1/sources/preflight', { source_url: 'not a url' }), 400, 'validation_failed');
  });

  test('quote: 1 credit per started minute of the window; the proof allowance makes it free', async () => {
    const { client } = await trustedClient({ credits: 1 });
    const url = server.add(video);
    const paid = await client.post<Record<string, unknown>>('/v1/analyses/quote', windowBody(url, 10, 71));
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body).toMatchObject({
      object: 'analysis_quote',
      billed_seconds: 61,
      credits: 2,
      balance_credits: 1,
      affordable: false,
      proof: { available: true, applies: false },
    });
    const proof = await client.post<Record<string, unknown>>('/v1/analyses/quote', windowBody(url, 10, 71, { use_proof_allowance: true }));
    expect(proof.body).toMatchObject({ credits: 0, affordable: true, proof: { available: true, applies: true } });
    expectError(await client.post('/v1/analyses/quote', windowBody(url, 30, 20)), 400, 'window_out_of_range', 'analysis_end_seconds');
    expectError(await client.post('/v1/analyses/quote', windowBody(url, 0, SOURCE_SECONDS + 5)), 400, 'window_out_of_range', 'analysis_end_seconds');
  });

  test('quote takes the submission body as it will be sent: its other fields are checked as a submission checks them and do not change the price', async () => {
    const { client } = await trustedClient({ credits: 5 });
    const url = server.add(video);
    const submission = windowBody(url, 10, 71, {
      what_to_find: 'a story',
      profile: 'conversation',
      chat_moment_types: ['story'],
      speech_cleanup: 'tight',
      max_moments: 3,
      min_seconds: 5,
      max_seconds: 20,
    });
    const full = await client.post<Record<string, unknown>>('/v1/analyses/quote', submission);
    expect(full.status, full.text).toBe(200);
    const bare = await client.post<Record<string, unknown>>('/v1/analyses/quote', windowBody(url, 10, 71));
    expect(full.body).toEqual(bare.body);
    expect(full.body).toMatchObject({ credits: 2, affordable: true });
    // What a submission refuses, the quote refuses with the same answer, before measuring the source.
    for (const [extra, field] of [
      [{ profile: 'gameplay', speech_cleanup: 'tight' }, 'speech_cleanup'],
      [{ min_seconds: 30, max_seconds: 20 }, 'min_seconds'],
      [{ max_moments: 0 }, 'max_moments'],
      [{ what_to_find: 'x'.repeat(601) }, 'what_to_find'],
    ] as const) {
      const { request_id: _quoted, ...quoted } = expectError(
        await client.post('/v1/analyses/quote', windowBody(url, 10, 71, extra)),
        400,
        'validation_failed',
        field,
      );
      const { request_id: _submitted, ...submitted } = expectError(
        await client.post('/v1/analyses', windowBody(url, 10, 71, extra)),
        400,
        'validation_failed',
        field,
      );
      expect(quoted).toEqual(submitted);
    }
    expectError(await client.post('/v1/analyses/quote', windowBody(url, 10, 71, { webhook_url: 'https://example.com' })), 400, 'validation_failed');
    expect(await balanceOf(client)).toBe(5);
  });

  test('an analysis reserves its quote, acquires the source, completes with ranked moments and announces analysis.completed', async () => {
    const { client } = await trustedClient({ credits: 10 });
    const url = server.add(video);
    const created = await client.post<Analysis>(
      '/v1/analyses',
      windowBody(url, 0, 61, { what_to_find: 'scene changes', max_moments: 3, min_seconds: 5, max_seconds: 20 }),
    );
    expect(created.status, created.text).toBe(202);
    expect(created.body).toMatchObject({
      object: 'analysis',
      kind: 'one_off',
      run_id: null,
      status: 'queued',
      source: { kind: 'url', provider: { kind: 'trusted_host', host: '127.0.0.1' }, host: '127.0.0.1' },
      window: { analysis_start_seconds: 0, analysis_end_seconds: 61 },
      what_to_find: 'scene changes',
      profile: 'conversation',
      chat_moment_types: ['auto'],
      speech_cleanup: 'natural',
      max_moments: 3,
      billing: { credits: 2, state: 'reserved', proof: false },
      error: null,
    });
    expect(created.text).not.toContain(new URL(url).pathname);
    expect(await balanceOf(client)).toBe(8);

    const done = await waitForAnalysis(client, created.body.analysis_id);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    expect(done.billing).toEqual({ credits: 2, state: 'charged', proof: false });
    expect(await balanceOf(client)).toBe(8);

    const { moments, count } = await momentsOf(client, done.analysis_id);
    expect(count).toBe(moments.length);
    expect(count).toBeGreaterThan(0);
    expect(count).toBeLessThanOrEqual(3);
    for (const moment of moments) {
      expect(moment.start_ms).toBeGreaterThanOrEqual(0);
      expect(moment.end_ms).toBeLessThanOrEqual(61_000);
      expect(moment).toMatchObject({ run_id: null, observation_id: null, edit: { mode: 'continuous' } });
    }
    expect(moments.map((m) => m.score)).toEqual([...moments.map((m) => m.score)].sort((a, b) => b - a));

    const progress = await client.get<Record<string, unknown>>(`/v1/analyses/${done.analysis_id}/progress`);
    expect(progress.body).toMatchObject({ status: 'completed', fraction: 1, run_id: null });

    const listed = await client.get<List<Analysis>>('/v1/analyses?kind=one_off&status=completed');
    expect(listed.body.data.map((a) => a.analysis_id)).toContain(done.analysis_id);
    const none = await client.get<List<Analysis>>('/v1/analyses?kind=scanner_run');
    expect(none.body.data).toEqual([]);
    // Its internal work record is no run to the caller.
    expect((await client.get('/v1/observations')).body).toMatchObject({ data: [] });

    expect(await eventsOf(done.analysis_id)).toEqual([expect.objectContaining({ type: 'analysis.completed' })]);
  });

  test('speech_cleanup tight cuts the pauses inside each moment into subclips', async () => {
    const { client } = await trustedClient();
    const url = server.add(pausedSpeech);
    const created = await client.post<Analysis>(
      '/v1/analyses',
      windowBody(url, 0, 30, { what_to_find: 'motion', speech_cleanup: 'tight', min_seconds: 5, max_seconds: 10 }),
    );
    expect(created.status, created.text).toBe(202);
    const done = await waitForAnalysis(client, created.body.analysis_id);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    const { moments } = (await client.get<MomentList>(`/v1/analyses/${done.analysis_id}/moments`)).body;
    expect(moments.length).toBeGreaterThan(0);
    for (const moment of moments) {
      expect(moment.edit.mode).toBe('subclips');
      expect(moment.edit.subclips.length).toBeGreaterThan(1);
      for (const [i, clip] of moment.edit.subclips.entries()) {
        expect(clip.start_ms).toBeGreaterThanOrEqual(moment.start_ms);
        expect(clip.end_ms).toBeLessThanOrEqual(moment.end_ms);
        expect(clip.end_ms).toBeGreaterThan(clip.start_ms);
        if (i > 0) expect(clip.start_ms).toBeGreaterThanOrEqual(moment.edit.subclips[i - 1]!.end_ms);
      }
    }
  });

  test('cancel while queued refunds exactly once; cancel after start or after the end is 409', async () => {
    // One slot: the second analysis waits while the first holds it.
    const { client } = await trustedClient({ plan: 'beginner', credits: 10 });
    const url = server.add(video);
    const first = await client.post<Analysis>('/v1/analyses', windowBody(url, 0, SOURCE_SECONDS));
    const second = await client.post<Analysis>('/v1/analyses', windowBody(url, 0, 61));
    expect([first.status, second.status]).toEqual([202, 202]);
    expect(await balanceOf(client)).toBe(10 - 2 - 2);

    const canceled = await client.post<Analysis>(`/v1/analyses/${second.body.analysis_id}/cancel`);
    expect(canceled.status, canceled.text).toBe(202);
    expect(canceled.body).toMatchObject({ status: 'canceled', billing: { state: 'refunded' } });
    expect(await balanceOf(client)).toBe(8);
    expectError(await client.post(`/v1/analyses/${second.body.analysis_id}/cancel`), 409, 'analysis_not_cancelable');
    expect(await balanceOf(client)).toBe(8);

    const started = await waitForAnalysis(client, first.body.analysis_id, (status) => status !== 'queued');
    expectError(await client.post(`/v1/analyses/${started.analysis_id}/cancel`), 409, 'analysis_not_cancelable');
    expect((await waitForAnalysis(client, first.body.analysis_id)).status).toBe('completed');
    expectError(await client.post(`/v1/analyses/${first.body.analysis_id}/cancel`), 409, 'analysis_not_cancelable');
    // The canceled one stays canceled (its workflow woke and ended without running).
    await sleep(500);
    expect((await client.get<Analysis>(`/v1/analyses/${second.body.analysis_id}`)).body.status).toBe('canceled');
    expect(await balanceOf(client)).toBe(8);
    expect(await eventsOf(second.body.analysis_id)).toEqual([expect.objectContaining({ type: 'analysis.canceled' })]);
    expectError(await client.post(`/v1/analyses/ana_${'0'.repeat(32)}/cancel`), 404, 'not_found');
  });

  test('the proof allowance is claimed exactly once under 20 concurrent attempts, and costs no credits', async () => {
    const { client } = await trustedClient({ credits: 0 });
    const url = server.add(video);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => client.post<Analysis>('/v1/analyses', windowBody(url, 0, 61, { use_proof_allowance: true }))),
    );
    const accepted = answers.filter((a) => a.status === 202);
    expect(accepted).toHaveLength(1);
    for (const refused of answers.filter((a) => a.status !== 202)) expectError(refused, 402, 'proof_allowance_exhausted');
    expect(accepted[0]!.body.billing).toEqual({ credits: 0, state: 'reserved', proof: true });
    const account = await client.get<{ proof_allowance: { analysis_available: boolean } }>('/v1/account');
    expect(account.body.proof_allowance.analysis_available).toBe(false);
    expect((await waitForAnalysis(client, accepted[0]!.body.analysis_id)).status).toBe('completed');
    expect(await balanceOf(client)).toBe(0);
    // A paid analysis without credits is refused as such.
    expectError(await client.post('/v1/analyses', windowBody(url, 0, 10)), 402, 'insufficient_credits');
  });

  test('Idempotency-Key: a retry answers the first analysis; another body under the key is a conflict', async () => {
    const { client } = await trustedClient({ credits: 10 });
    const url = server.add(video);
    const key = { 'Idempotency-Key': randomUUID() };
    const first = await client.post<Analysis>('/v1/analyses', windowBody(url, 0, 30), key);
    const again = await client.post<Analysis>('/v1/analyses', windowBody(url, 0, 30), key);
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.body.analysis_id).toBe(first.body.analysis_id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expectError(await client.post('/v1/analyses', windowBody(url, 0, 31), key), 409, 'idempotency_key_reused');
    expect(await balanceOf(client)).toBe(9);
  });

  test('request rules: the window, what_to_find, chat moment types and moment sizes', async () => {
    const { client } = await trustedClient();
    const url = server.add(video);
    const cases: [Record<string, unknown>, string, string][] = [
      [{ source_url: url, analysis_start_seconds: 0 }, 'validation_failed', 'analysis_end_seconds'],
      [windowBody(url, 0, 10, { what_to_find: 'x'.repeat(601) }), 'validation_failed', 'what_to_find'],
      [windowBody(url, 0, 10, { chat_moment_types: ['auto', 'story'] }), 'validation_failed', 'chat_moment_types'],
      [windowBody(url, 0, 10, { profile: 'gameplay', chat_moment_types: ['story'] }), 'validation_failed', 'chat_moment_types'],
      [windowBody(url, 0, 10, { profile: 'gameplay', speech_cleanup: 'tight' }), 'validation_failed', 'speech_cleanup'],
      [windowBody(url, 0, 10, { max_moments: 51 }), 'validation_failed', 'max_moments'],
      [windowBody(url, 0, 10, { min_seconds: 4 }), 'validation_failed', 'min_seconds'],
      [windowBody(url, 0, 10, { min_seconds: 30, max_seconds: 20 }), 'validation_failed', 'min_seconds'],
      [windowBody(url, 0, 10, { unexpected: true }), 'validation_failed', 'unexpected'],
    ];
    for (const [body, code, param] of cases) expectError(await client.post('/v1/analyses', body), 400, code, param);
    expect(server.hits(url)).toBe(0);
  });

  // On the suite's unsandboxed host: sandboxed, a route ships no yt-dlp, as on AWS, and answers 503
  // (sandbox.test.ts) until provider pages are resolved in a unit that ships it (issue 24, item 3).
  test('a built-in provider page URL is resolved with yt-dlp (a stand-in here), acquired in a container task and analysed', async () => {
    const { client } = await trustedClient({ credits: 5 });
    const page = 'https://www.youtube.com/watch?v=clip';
    const preflight = await client.post<Record<string, unknown>>('/v1/sources/preflight', { source_url: page });
    expect(preflight.status, preflight.text).toBe(200);
    expect(preflight.body).toMatchObject({ provider: { id: 'youtube', kind: 'recorded_video' }, media_kind: 'video', host: 'www.youtube.com' });
    const created = await client.post<Analysis>('/v1/analyses', windowBody(page, 0, 2, { min_seconds: 5, max_seconds: 10 }));
    expect(created.status, created.text).toBe(202);
    const done = await waitForAnalysis(client, created.body.analysis_id);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    expect(done.source).toMatchObject({ provider: { id: 'youtube' } });
    expect(await balanceOf(client)).toBe(4);
    // An unavailable page is the source's fault: 422, nothing charged.
    expectError(await client.post('/v1/sources/preflight', { source_url: 'https://www.youtube.com/watch?v=unavailable' }), 422, 'source_unreadable');
    expectError(await client.post('/v1/sources/preflight', { source_url: 'https://www.youtube.com/watch?v=audio_only' }), 422, 'source_unreadable');
  });

  test('scanner runs own analyses too: listed with kind scanner_run and their run_id; one-off analyses are no runs', async () => {
    const client = clientFor(inject('apiKey'));
    const listed = await client.get<List<Analysis>>('/v1/analyses?kind=scanner_run&limit=5');
    expect(listed.status).toBe(200);
    for (const analysis of listed.body.data) expect(analysis.run_id).toMatch(/^run_[0-9a-f]{32}$/);
    expectError(await client.get('/v1/analyses?kind=other'), 400, 'validation_failed', 'kind');
    expectError(await client.get(`/v1/analyses/ana_${'0'.repeat(32)}`), 404, 'not_found');
  });
});
