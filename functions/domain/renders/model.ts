import type { Page, PageRequest } from '../pages.js';
import type { Announcement } from '../events/model.js';
import type { TerminalError } from '../runs/model.js';
import type { AspectRatioId, CaptionPresetId, FramingMode, RenderFormat } from './presets.js';

export const renderStatuses = ['queued', 'processing', 'completed', 'failed'] as const;
type RenderStatus = (typeof renderStatuses)[number];

/** What the client asked for, with every default filled in (the record echoes it). */
export interface RenderSettings {
  output: { format: RenderFormat; aspect_ratio: AspectRatioId };
  captions: { enabled: boolean; preset_id: CaptionPresetId };
  framing: { mode: FramingMode };
}

/** One moment's output: rendered (an object in the media bucket) or failed with a reason. */
export type RenderAsset =
  | {
      momentId: string;
      status: 'completed';
      /** Internal: where the MP4 is; clients get a time-limited signed URL instead. */
      objectKey: string;
      width: number;
      height: number;
      durationMs: number;
      sizeBytes: number;
      captions: boolean;
    }
  | { momentId: string; status: 'failed'; error: TerminalError };

export interface RenderRecord {
  renderId: string;
  accountId: string;
  analysisId: string;
  momentIds: string[];
  settings: RenderSettings;
  status: RenderStatus;
  /** Assets by moment id, written as each finishes (concurrent tasks write distinct keys). */
  assets: Record<string, RenderAsset>;
  /** Milliseconds of the proof allowance this render consumed (0 for paid analyses). */
  proofMs: number;
  error: TerminalError | null;
  createdAt: string;
  updatedAt: string;
}

/** The input of the render workflow: everything its Map needs. */
export interface RenderRef {
  accountId: string;
  renderId: string;
}

type RenderCreateOutcome = 'created' | 'already_created' | 'proof_allowance_exhausted';

export interface RenderStore {
  /**
   * The render record, and for a proof analysis the consumption of `proofMs` of the account's
   * proof render allowance (a conditional counter on the account item), in one transaction.
   */
  create(render: RenderRecord, proofAllowanceMs: number): Promise<RenderCreateOutcome>;
  get(accountId: string, renderId: string): Promise<RenderRecord | undefined>;
  /** Newest first. */
  list(accountId: string, page: PageRequest): Promise<Page<RenderRecord>>;
  /** queued -> processing; false when it is not queued (already processing, or settled). */
  markProcessing(ref: RenderRef, now: string): Promise<boolean>;
  /** Records one moment's asset while the render is unsettled; false once it is settled. */
  putAsset(ref: RenderRef, asset: RenderAsset, now: string): Promise<boolean>;
  /** The terminal status, the final assets and the terminal events in one transaction; false when already settled. */
  settle(render: RenderRecord, announcements: readonly Announcement[], now: string): Promise<boolean>;
}

export interface RenderWorkflowStarter {
  /** Starts the render workflow, named after the render (a repeated start runs nothing twice). */
  startRender(ref: RenderRef & { momentIds: string[] }): Promise<void>;
}

/** Total rendered length of a moment: its subclips when it has them, else its span. */
export function renderedMsOf(moment: { start_ms: number; end_ms: number; edit: { mode: string; subclips: { start_ms: number; end_ms: number }[] } }): number {
  if (moment.edit.mode === 'subclips' && moment.edit.subclips.length > 0) return moment.edit.subclips.reduce((sum, s) => sum + (s.end_ms - s.start_ms), 0);
  return moment.end_ms - moment.start_ms;
}

/** The spans of the source a moment's render is cut from, in order. */
export function segmentsOf(moment: {
  start_ms: number;
  end_ms: number;
  edit: { mode: string; subclips: { start_ms: number; end_ms: number }[] };
}): { startMs: number; endMs: number }[] {
  if (moment.edit.mode === 'subclips' && moment.edit.subclips.length > 0) return moment.edit.subclips.map((s) => ({ startMs: s.start_ms, endMs: s.end_ms }));
  return [{ startMs: moment.start_ms, endMs: moment.end_ms }];
}
