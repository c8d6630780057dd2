/** waitForRun / waitForAnalysis / waitForBatch: SPEC polling (5-10 s with jitter), progress, timeouts. */
import { describe, expect, it } from 'vitest';
import { createMediaScannerClient, WaitTimeoutError } from '../../../packages/client/src/index.js';
import { fakeClock, fakeFetch, hex, json } from './fakes.js';

const runId = `run_${hex(1)}`;
const analysisId = `ana_${hex(2)}`;
const batchId = `bat_${hex(3)}`;

describe('waiting', () => {
  it('polls a run every 5-10 s with jitter until it ends, with its progress at each poll', async () => {
    const statuses = ['queued', 'processing', 'processing', 'completed'];
    const { fetch, seen } = fakeFetch({
      [`GET /v1/runs/${runId}`]: (_request, count) => json(200, { object: 'run', run_id: runId, analysis_id: analysisId, status: statuses[count - 1] }),
      [`GET /v1/analyses/${analysisId}/progress`]: (_request, count) => json(200, { object: 'analysis_progress', fraction: count / 4 }),
    });
    const clock = fakeClock(0.25);
    const client = createMediaScannerClient({ apiKey: 'k', baseUrl: 'http://api.test', fetch, clock });
    const fractions: number[] = [];
    const run = await client.waitForRun(runId, { onProgress: (progress) => fractions.push(progress.fraction) });

    expect(run.status).toBe('completed');
    expect(fractions).toEqual([0.25, 0.5, 0.75]);
    expect(clock.sleeps).toEqual([6250, 6250, 6250]);
    expect(seen.filter((request) => request.path.endsWith('/progress'))).toHaveLength(3);
  });

  it('waits for an analysis until it is completed, failed or canceled', async () => {
    const { fetch } = fakeFetch({
      [`GET /v1/analyses/${analysisId}`]: (_request, count) =>
        json(200, { object: 'analysis', analysis_id: analysisId, status: count < 3 ? 'queued' : 'canceled' }),
    });
    const clock = fakeClock(1);
    const client = createMediaScannerClient({ apiKey: 'k', baseUrl: 'http://api.test', fetch, clock });
    const seenStatuses: string[] = [];
    await expect(client.waitForAnalysis(analysisId, { onUpdate: (analysis) => seenStatuses.push(analysis.status) })).resolves.toMatchObject({
      status: 'canceled',
    });
    expect(seenStatuses).toEqual(['queued', 'queued']);
    expect(clock.sleeps).toEqual([10_000, 10_000]);
  });

  it('waits for a batch to settle, reading one item a page', async () => {
    const { fetch, seen } = fakeFetch({
      [`GET /v1/scanner-batches/${batchId}`]: (_request, count) =>
        json(200, { object: 'scanner_batch', batch_id: batchId, status: count === 1 ? 'processing' : 'partial' }),
    });
    const client = createMediaScannerClient({ apiKey: 'k', baseUrl: 'http://api.test', fetch, clock: fakeClock() });
    await expect(client.waitForBatch(batchId)).resolves.toMatchObject({ status: 'partial' });
    expect(new URL(seen[0]!.url).searchParams.get('item_limit')).toBe('1');
  });

  it('gives up after the timeout, saying the work goes on', async () => {
    const { fetch, seen } = fakeFetch({
      [`GET /v1/runs/${runId}`]: () => json(200, { object: 'run', run_id: runId, analysis_id: analysisId, status: 'queued' }),
    });
    const client = createMediaScannerClient({ apiKey: 'k', baseUrl: 'http://api.test', fetch, clock: fakeClock() });
    await expect(client.waitForRun(runId, { timeoutMs: 30_000, intervalMs: [5000, 5000] })).rejects.toBeInstanceOf(WaitTimeoutError);
    expect(seen).toHaveLength(7);
  });
});
