import type { ScannerDefinition } from '../scanners/model.js';
import type { AnalyzerResult } from './contract.js';
import type { MomentBrief } from './moment-brief.js';
import type { SourceSignals } from './signals.js';

/**
 * Port: answers a scanner's question from measured signals (DESIGN §7 stage 2). Its output is
 * untrusted until enforceContract has passed over it. `brief` comes with one-off analyses only
 * (their chat moment types); scanner runs send none.
 */
export interface Analyzer {
  readonly name: string;
  analyze(input: { scanner: ScannerDefinition; signals: SourceSignals; brief?: MomentBrief }): Promise<AnalyzerResult>;
}
