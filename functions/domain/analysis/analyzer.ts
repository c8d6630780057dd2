import type { ScannerDefinition } from '../../schemas/scanner.js';
import type { AnalyzerResult } from './contract.js';
import type { SourceSignals } from './signals.js';

/**
 * Port: answers a scanner's question from measured signals (DESIGN §7 stage 2). Its output is
 * untrusted until enforceContract has passed over it.
 */
export interface Analyzer {
  readonly name: string;
  analyze(input: { scanner: ScannerDefinition; signals: SourceSignals }): Promise<AnalyzerResult>;
}
