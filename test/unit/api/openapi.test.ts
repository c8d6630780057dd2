/**
 * The OpenAPI document (functions/api/openapi.ts): openapi.json and the client's types are what
 * `npm run openapi` generates now, every route is in it as the route table and the handlers
 * say, every example it shows is valid, and what the presenters shape passes its schemas.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { clientTypesFile, documentFile, generate } from '../../../functions/api/openapi-cli.js';
import { operations } from '../../../functions/api/operations.js';
import { routeKey, routes } from '../../../functions/routes.js';
import { presentUpload } from '../../../functions/resources/uploads/presenter.js';
import { presentAccount } from '../../../functions/resources/account/presenter.js';
import { presentList } from '../../../functions/resources/common/list.js';
import { presentScanner } from '../../../functions/resources/scanners/presenter.js';
import { presentObservation } from '../../../functions/resources/observations/presenter.js';
import { presentRun } from '../../../functions/resources/runs/presenter.js';
import { presentBatch, presentBatchSummary } from '../../../functions/resources/batches/presenter.js';
import { presentAnalysis, presentMoments, presentPreflight, presentProgress, presentQuote } from '../../../functions/resources/analyses/presenter.js';
import type { AnalysisRecord, MomentRecord, ObservationRecord, RunRecord } from '../../../functions/domain/runs/model.js';
import type { BatchItemRecord, BatchRecord } from '../../../functions/domain/batches/model.js';
import type { ScannerRecord } from '../../../functions/domain/scanners/model.js';
import { OpenApiContract } from '../../helpers/openapi-contract.js';
import { testAccount, uploadRecord } from '../../helpers/unit-fixtures.js';

type Json = Record<string, unknown>;
type Document = Json & {
  paths: Record<string, Record<string, Json & { parameters?: Json[]; requestBody?: Json; responses: Record<string, Json> }>>;
  components: Json;
};

let generated: { document: string; clientTypes: string };
let document: Document;
let contract: OpenApiContract;

beforeAll(async () => {
  generated = await generate();
  document = JSON.parse(generated.document) as Document;
  contract = new OpenApiContract(document);
}, 60_000);

describe('openapi.json', () => {
  it('is what `npm run openapi` generates from the route table and the schemas now', () => {
    // A plain comparison: a diff of 10,000 lines helps nobody; regenerate and read git diff instead.
    expect(readFileSync(documentFile, 'utf8') === generated.document, 'openapi.json is out of date: run `npm run openapi`').toBe(true);
    expect(readFileSync(clientTypesFile, 'utf8') === generated.clientTypes, 'packages/client/src/schema.ts is out of date: run `npm run openapi`').toBe(true);
  });

  it('documents every route of the route table, and nothing else', () => {
    const documented = Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`));
    expect(documented.sort()).toEqual(routes.map(routeKey).sort());
    expect(new Set(Object.values(operations).map((operation) => operation.operationId)).size).toBe(routes.length);
  });

  it('states the Idempotency-Key header as the route table does', () => {
    for (const route of routes) {
      const refs = (document.paths[route.path]?.[route.method.toLowerCase()]?.parameters ?? []).map((parameter) => parameter.$ref);
      const expected = {
        accepted: ['#/components/parameters/IdempotencyKey'],
        required: ['#/components/parameters/IdempotencyKeyRequired'],
        ignored: [],
        none: [],
      }[route.idempotency];
      expect(refs.filter(Boolean), routeKey(route)).toEqual(expected);
    }
  });

  it('lists the error codes a route can answer, from its route-table entry and its use case', () => {
    const codesOf = (method: string, path: string, status: string): string[] => {
      const response = document.paths[path]?.[method]?.responses[status] as { $ref?: string; content?: Record<string, { schema: { allOf: [unknown, Json] } }> };
      if (response.$ref) return [response.$ref.split('/').pop() ?? ''];
      const narrowing = response.content?.['application/json']?.schema.allOf[1] as { properties: { error: { properties: { code: { enum: string[] } } } } };
      return narrowing.properties.error.properties.code.enum;
    };
    expect(codesOf('post', '/v1/scanner-batches', '400')).toEqual(['validation_failed', 'idempotency_key_required', 'upload_not_found', 'upload_not_ready']);
    expect(codesOf('post', '/v1/scanner-batches', '413')).toEqual(['PayloadTooLarge']);
    expect(codesOf('post', '/v1/scanner-batches', '503')).toEqual(['uploads_unavailable', 'scanner_batch_service_unavailable', 'queue_unavailable']);
    expect(codesOf('get', '/v1/scanners', '400')).toEqual(['validation_failed', 'invalid_cursor']);
    expect(codesOf('get', '/v1/runs/{run_id}/observations', '409')).toEqual(['RunNotCompleted']);
    expect(Object.keys(document.paths['/v1/account']?.get?.responses ?? {})).toEqual(['200', '400', '401', '408', '429', '431', '500']);
    expect(Object.keys(document.paths['/v1/openapi.json']?.get?.responses ?? {})).toEqual(['200', '401', '408', '429', '431', '500']);
  });

  it('takes query strings as strings, with the defaults a client would send', () => {
    const parameters = document.paths['/v1/scanner-batches/{batch_id}']?.get?.parameters ?? [];
    expect(parameters).toContainEqual(expect.objectContaining({ name: 'batch_id', in: 'path', required: true }));
    expect(parameters).toContainEqual(
      expect.objectContaining({ name: 'item_cursor', in: 'query', required: false, schema: { type: 'string', pattern: '^\\d{1,6}$', default: '0' } }),
    );
  });

  it('shows only valid examples', () => {
    const components = document.components as { schemas: Record<string, Json>; examples: Record<string, { value: unknown }> };
    for (const [name, schema] of Object.entries(components.schemas)) {
      for (const example of (schema.examples as unknown[] | undefined) ?? []) expect(contract.validateComponent(name, example), name).toBeUndefined();
    }
    for (const [code, example] of Object.entries(components.examples)) expect(contract.validateComponent('ErrorEnvelope', example.value), code).toBeUndefined();
    let bodies = 0;
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const media = (operation.requestBody?.content as Record<string, { schema: Json; example?: unknown }> | undefined)?.['application/json'];
        if (media?.example === undefined) continue;
        bodies += 1;
        expect(contract.validateSchema(media.schema, media.example), `${method} ${path}`).toBeUndefined();
      }
    }
    expect(bodies).toBeGreaterThanOrEqual(6);
  });
});

// ---- What the presenters shape passes the document's schemas ------------------------------

const at = '2026-03-01T10:00:00.000Z';
const hex = (n: number) => n.toString(16).padStart(32, '0');
const scanner: ScannerRecord = {
  scannerId: `scn_${hex(1)}`,
  version: 2,
  name: 'Cuts',
  instructions: 'Find cuts',
  type: 'classifier',
  output: { labels: ['a', 'b'] },
  createdAt: at,
  updatedAt: at,
};
const run: RunRecord = {
  runId: `run_${hex(2)}`,
  accountId: testAccount().accountId,
  analysisId: `ana_${hex(3)}`,
  scannerId: scanner.scannerId,
  scannerVersion: 2,
  scanner: { name: 'Cuts', instructions: 'Find cuts', type: 'classifier', output: { labels: ['a', 'b'] } },
  uploadId: `upl_${hex(4)}`,
  objectKey: 'internal',
  mediaKind: 'audio',
  sourceDurationMs: 61_000,
  window: null,
  metadata: { episode: 1 },
  status: 'failed',
  credits: 2,
  error: { code: 'analysis_failed', message: 'It broke.' },
  observationCount: null,
  createdAt: at,
  updatedAt: at,
  startedAt: at,
  completedAt: at,
};
const analysis: AnalysisRecord = {
  analysisId: run.analysisId,
  accountId: run.accountId,
  runId: run.runId,
  kind: 'scanner_run',
  status: 'completed',
  reservedCredits: 2,
  billing: 'charged',
  source: { kind: 'upload', upload_id: run.uploadId, media_kind: 'audio', duration_ms: 61_000 },
  window: null,
  chunksTotal: 2,
  chunksDone: 2,
  error: null,
  createdAt: at,
  updatedAt: at,
};
const urlSource = {
  kind: 'url' as const,
  provider: { kind: 'trusted_host' as const, host: 'media.example.com' },
  host: 'media.example.com',
  media_kind: 'video' as const,
  duration_ms: 90_000,
  size_bytes: 1000,
  title: null,
};
const oneOff: AnalysisRecord = {
  ...analysis,
  kind: 'one_off',
  status: 'queued',
  billing: 'reserved',
  source: urlSource,
  window: { startMs: 0, endMs: 60_000 },
  request: {
    what_to_find: null,
    profile: 'conversation',
    chat_moment_types: ['auto'],
    speech_cleanup: 'tight',
    max_moments: 10,
    min_seconds: 15,
    max_seconds: 60,
  },
  proof: true,
  chunksTotal: null,
  chunksDone: 0,
};
const moment: MomentRecord = {
  object: 'moment',
  id: `mom_${hex(5)}`,
  analysis_id: analysis.analysisId,
  run_id: null,
  observation_id: null,
  rank: 1,
  start_ms: 0,
  end_ms: 5000,
  duration_ms: 5000,
  score: 0.5,
  title: 'A story',
  event_type: 'story',
  transcript_excerpt: 'Once upon a time',
  edit: { mode: 'subclips', subclips: [{ start_ms: 0, end_ms: 2000 }] },
};
const observationOf = (type: ObservationRecord['type'], value_type: string, semantics: string, value: ObservationRecord['value']): ObservationRecord => ({
  object: 'observation',
  observation_id: `obs_${hex(6)}`,
  scanner_id: scanner.scannerId,
  scanner_version: 2,
  run_id: run.runId,
  analysis_id: run.analysisId,
  type,
  value_type,
  semantics,
  value,
  title: 'T',
  summary: 'S',
  relevance_score: 0.4,
  evidence: {
    media_kind: 'audio',
    evidence_kind: 'audio_and_transcript',
    start_ms: 0,
    end_ms: 1000,
    duration_ms: 1000,
    transcript_excerpt: 'hi',
    speaker: 'spk_0',
    signals: [],
  },
  source_metadata: {},
  created_at: at,
});
const batch: BatchRecord = {
  batchId: `bat_${hex(7)}`,
  accountId: run.accountId,
  counters: { total: 2, queued: 0, processing: 0, completed: 1, failed: 1, canceled: 0 },
  cancelRequested: false,
  createdAt: at,
  updatedAt: at,
  completedAt: at,
};
const item: BatchItemRecord = {
  batchId: batch.batchId,
  accountId: run.accountId,
  index: 0,
  clientId: 'a',
  scannerId: scanner.scannerId,
  scannerVersion: 2,
  uploadId: run.uploadId,
  metadata: {},
  status: 'failed',
  runId: null,
  analysisId: null,
  error: { code: 'insufficient_credits', message: 'No credits.' },
  createdAt: at,
  updatedAt: at,
};
const upload = uploadRecord({ uploadId: `upl_${hex(4)}` });
const now = new Date('2026-03-01T10:05:00.000Z');

describe('the presenters', () => {
  it.each<[string, unknown]>([
    ['Account', presentAccount(testAccount({ accountId: `acct_${hex(8)}`, proofAnalysisId: oneOff.analysisId }), 50, 2, true)],
    ['Scanner', presentScanner(scanner)],
    ['ScannerList', presentList({ items: [scanner], nextCursor: 'opaque' }, presentScanner)],
    [
      'Upload',
      presentUpload(upload, now, { kind: 'single', target: { method: 'PUT', url: 'https://s3.example/put', headers: { 'content-type': 'audio/mpeg' } } }),
    ],
    ['Upload', presentUpload(upload, now, { kind: 'multipart', parts: [{ partNumber: 1, sizeBytes: 1, url: 'https://s3.example/part' }] })],
    ['Upload', presentUpload({ ...upload, status: 'failed', error: { code: 'no_audio_stream', message: 'None.' }, failedAt: at }, now)],
    ['Run', presentRun(run)],
    ['Run', presentRun({ ...run, mediaKind: 'video', window: { startMs: 1500, endMs: 9000 }, status: 'completed', error: null, observationCount: 0 })],
    ['Observation', presentObservation(observationOf('monitor', 'boolean', 'match_found', false))],
    ['Observation', presentObservation(observationOf('scorer', 'number', 'relevance_score', 0.25))],
    ['Observation', presentObservation(observationOf('extractor', 'object', 'extracted_fields', { duration: 61, speaker: null }))],
    ['Observation', presentObservation(observationOf('find_moments', 'object', 'timestamped_moment', { event_type: 'moment' }))],
    ['MomentList', presentMoments(analysis, [moment])],
    ['AnalysisProgress', presentProgress({ analysis, run: { ...run, status: 'queued' }, queuePosition: 1 })],
    ['AnalysisProgress', presentProgress({ analysis: oneOff, run: { ...run, status: 'completed', oneOff: {} as RunRecord['oneOff'] }, queuePosition: null })],
    ['Analysis', presentAnalysis(analysis)],
    ['Analysis', presentAnalysis(oneOff)],
    ['SourcePreflight', presentPreflight({ source: urlSource, maxWindowMs: 90_000, proofAvailable: true })],
    [
      'AnalysisQuote',
      presentQuote({
        window: { startMs: 0, endMs: 61_000 },
        billedMs: 61_000,
        credits: 2,
        balance: 1,
        affordable: false,
        proof: { available: false, applies: false },
        limits: { maxSourceBytes: 10, concurrency: 3 },
      }),
    ],
    ['ScannerBatch', presentBatch({ batch, items: [item], nextItemOffset: 1 })],
    ['ScannerBatchSummary', presentBatchSummary({ ...batch, cancelRequested: true })],
  ])('shape a valid %s', (name, value) => {
    expect(contract.validateComponent(name, value)).toBeUndefined();
  });

  it('are caught by the schemas when they drift', () => {
    expect(contract.validateComponent('Scanner', { ...presentScanner(scanner), internal_key: 'x' })).toMatch(/additional properties/);
    expect(contract.validateComponent('Observation', presentObservation(observationOf('monitor', 'string', 'match_found', 'yes')))).toBeDefined();
  });
});
