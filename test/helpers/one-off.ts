/**
 * One-off analyses and renders over HTTP on any local host (the shared one or a host of a test's
 * own), for the tests that follow them through the units the sandbox confines.
 */
import { expect } from 'vitest';
import { adminOutput, api, createAccount, runAdmin, type Client } from './api.js';
import { sleep } from './runs.js';
import type { Render } from '../../packages/client/src/schema.js';

export interface OneOff {
  analysis_id: string;
  status: 'queued' | 'dispatched' | 'processing' | 'completed' | 'failed' | 'canceled';
  error: { code: string; message?: string } | null;
}

/** A new account that trusts loopback sources, on the host at `baseUrl` with data in `dataDir`. */
export async function trustedClient(baseUrl: string, dataDir: string, credits = 100): Promise<Client> {
  const account = await createAccount({ plan: 'creator', credits }, dataDir);
  adminOutput(await runAdmin(['accounts', 'trust-host', '127.0.0.1', '--account', account.accountId], dataDir));
  return api(baseUrl, account.apiKey);
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await sleep(500);
  }
}

/** Submits a one-off analysis of `url`'s first `seconds` (asking `brief.what_to_find`, if given) and waits until it has ended. */
export async function analyseOnce(client: Client, url: string, seconds: number, timeoutMs = 180_000, brief: { what_to_find?: string } = {}): Promise<OneOff> {
  const created = await client.post<OneOff>('/v1/analyses', {
    source_url: url,
    analysis_start_seconds: 0,
    analysis_end_seconds: seconds,
    min_seconds: 5,
    max_seconds: 10,
    ...brief,
  });
  expect(created.status, created.text).toBe(202);
  const read = async () => (await client.get<OneOff>(`/v1/analyses/${created.body.analysis_id}`)).body;
  return until(read, (a) => ['completed', 'failed', 'canceled'].includes(a.status), timeoutMs);
}

/** Renders the analysis's first moment with `render` settings and waits until it has ended. */
export async function renderFirstMoment(client: Client, analysisId: string, render: Record<string, unknown>, timeoutMs = 240_000): Promise<Render> {
  const { body } = await client.get<{ moments: { id: string }[] }>(`/v1/analyses/${analysisId}/moments`);
  const moment = body.moments[0];
  if (!moment) throw new Error(`analysis ${analysisId} has no moment`);
  const accepted = await client.post<Render>('/v1/renders', { analysis_id: analysisId, moment_ids: [moment.id], render });
  expect(accepted.status, accepted.text).toBe(202);
  const read = async () => (await client.get<Render>(`/v1/renders/${accepted.body.render_id}`)).body;
  return until(read, (r) => r.status === 'completed' || r.status === 'failed', timeoutMs);
}
