/**
 * The typed client (packages/client) against the shared local host: upload a file (one PUT with
 * every signed header), create a scanner and a run, wait with progress, read observations, and
 * the error envelope as MediaScannerError. Its API answers are checked against openapi.json
 * too, like every answer of the integration suite (test/helpers/openapi-contract.ts).
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, inject, test } from 'vitest';
import { createMediaScannerClient, MediaScannerError, unwrap, type AnalysisProgress, type MediaScannerClient } from '../../packages/client/src/index.js';
import { createAccount, repoRoot } from '../helpers/api.js';
import { fixture } from '../helpers/media-fixtures.js';
import { OpenApiContract, recordPair } from '../helpers/openapi-contract.js';

const contract = new OpenApiContract();
let client: MediaScannerClient;

beforeAll(async () => {
  const { apiKey } = await createAccount({ plan: 'creator', credits: 20 });
  const baseUrl = inject('baseUrl');
  // Every API answer the client gets is held to the document; signed upload targets are not the API.
  const fetch = async (request: Request): Promise<Response> => {
    const response = await globalThis.fetch(request);
    if (request.url.startsWith(baseUrl)) {
      const text = await response.clone().text();
      recordPair(contract.check({ method: request.method, url: request.url, status: response.status, headers: response.headers, text }));
    }
    return response;
  };
  client = createMediaScannerClient({ apiKey, baseUrl, fetch, retry: { maxAttempts: 2, baseDelayMs: 50 } });
});

describe('the typed client on the local host', () => {
  test('uploads a file, runs a scanner over it and reads the observations', async () => {
    const sent: number[] = [];
    const upload = await client.uploadFile({ path: await fixture('audio.wav') }, { onProgress: ({ sentBytes }) => sent.push(sentBytes) });
    expect(upload).toMatchObject({ status: 'ready', media_kind: 'audio', content_type: 'audio/wav', filename: 'audio.wav' });
    expect(sent.at(-1)).toBe(upload.size_bytes);

    const scanner = await unwrap(client.api.POST('/v1/scanners', { body: { name: 'Loud', instructions: 'Find the loud moments', type: 'monitor' } }));
    const run = await unwrap(
      client.api.POST('/v1/scanners/{scanner_id}/runs', {
        params: { path: { scanner_id: scanner.scanner_id } },
        body: { upload_id: upload.upload_id, metadata: { source: 'client' } },
      }),
    );
    expect(run).toMatchObject({ status: 'queued', billing: { credits: 1, state: 'reserved' } });

    const progress: AnalysisProgress[] = [];
    const done = await client.waitForRun(run.run_id, { intervalMs: [200, 400], timeoutMs: 50_000, onProgress: (update) => progress.push(update) });
    expect(done).toMatchObject({ status: 'completed', billing: { state: 'charged' } });
    expect(progress.every((update) => update.analysis_id === run.analysis_id)).toBe(true);

    const observations = await unwrap(client.api.GET('/v1/runs/{run_id}/observations', { params: { path: { run_id: run.run_id } } }));
    expect(observations.data.length).toBe(done.observation_count);
    for (const observation of observations.data)
      expect(observation).toMatchObject({ type: 'monitor', value_type: 'boolean', source_metadata: { source: 'client' } });
  });

  test('throws the error envelope as MediaScannerError', async () => {
    const error = await unwrap(client.api.GET('/v1/runs/{run_id}', { params: { path: { run_id: 'run_unknown' } } })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MediaScannerError);
    expect(error).toMatchObject({ status: 404, code: 'not_found', requestId: expect.any(String) as unknown });
  });

  test('reads the OpenAPI document the host serves, which is the committed openapi.json', async () => {
    const served = await unwrap(client.api.GET('/v1/openapi.json'));
    expect(served).toEqual(JSON.parse(readFileSync(`${repoRoot}/openapi.json`, 'utf8')));
  });
});
