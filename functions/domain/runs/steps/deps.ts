import type { Analyzer } from '../../engine/analyzer.js';
import type { SignalExtractor, Speech } from '../../engine/signals.js';
import type { AccountStore } from '../../accounts/ports.js';
import type { ArtifactStore, RunEndedListener, RunStore, SourceUrlSigner } from '../ports.js';
import type { SchedulingDeps } from '../scheduling.js';

/**
 * The analysis workflow's steps (statemachines/analysis.asl.json). Each is one Task state and
 * is safe to retry: it reads its inputs from the store and writes its outputs at fixed keys.
 */
export interface PipelineDeps extends SchedulingDeps {
  onRunEnded: RunEndedListener;
  runs: RunStore;
  accounts: AccountStore;
  artifacts: ArtifactStore;
  signSourceUrl: SourceUrlSigner;
  extractor: SignalExtractor;
  transcriber: Speech;
  analyzer: Analyzer;
  deploymentMaxObservations: number;
  /** Sources longer than this are analysed as bounded chunks (DESIGN §7). */
  chunkMs: number;
  signalsRunner: SignalsRunnerSetting;
  /** Where a one-off source is acquired (`auto`: see acquisitionRunnerFor). */
  acquisitionRunner: SignalsRunnerSetting;
}

/** Where a chunk's signals are extracted: the ExtractChunkSignals function, or a container task (Fargate on AWS, a child process locally). */
export type SignalsRunner = 'lambda' | 'container';
export type SignalsRunnerSetting = SignalsRunner | 'auto';
