import type { ScannerDefinition } from '../../schemas/scanner.js';

export interface ScannerRecord extends ScannerDefinition {
  scannerId: string;
  version: number;
  /** When the scanner (version 1) was created. */
  createdAt: string;
  /** When this version was created. */
  updatedAt: string;
}
