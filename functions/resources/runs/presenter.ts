import type { RunRecord } from '../../domain/runs/model.js';
import { presentWindow } from '../analyses/presenter.js';
import type { RunResource } from './response.js';

/** A run as GET /v1/runs/{run_id} returns it (and as run events carry it). */
export const presentRun = (run: RunRecord): RunResource => ({
  object: 'run' as const,
  run_id: run.runId,
  status: run.status,
  source_kind: 'upload' as const,
  media_kind: run.mediaKind,
  analysis_id: run.analysisId,
  scanner_id: run.scannerId,
  scanner_version: run.scannerVersion,
  upload_id: run.uploadId,
  source: { kind: 'upload' as const, upload_id: run.uploadId, media_kind: run.mediaKind, duration_ms: run.sourceDurationMs },
  window: run.window ? presentWindow(run.window) : null,
  metadata: run.metadata,
  // Reserved at submission, charged on completion, refunded on failure (DESIGN §5).
  billing: { credits: run.credits, state: run.status === 'completed' ? 'charged' : run.status === 'failed' ? 'refunded' : 'reserved' },
  observation_count: run.observationCount,
  error: run.error,
  provenance: { scanner: { scanner_id: run.scannerId, version: run.scannerVersion, definition: run.scanner } },
  created_at: run.createdAt,
  updated_at: run.updatedAt,
  started_at: run.startedAt,
  completed_at: run.completedAt,
});
