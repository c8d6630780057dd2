import type { ScannerRecord } from '../../domain/scanners/model.js';
import type { ScannerResource } from './response.js';

export const presentScanner = (scanner: ScannerRecord): ScannerResource => ({
  object: 'scanner' as const,
  scanner_id: scanner.scannerId,
  version: scanner.version,
  name: scanner.name,
  instructions: scanner.instructions,
  type: scanner.type,
  profile: scanner.profile ?? null,
  max_observations: scanner.max_observations ?? null,
  min_seconds: scanner.min_seconds ?? null,
  max_seconds: scanner.max_seconds ?? null,
  output: scanner.output ?? null,
  metadata: scanner.metadata ?? {},
  created_at: scanner.createdAt,
  updated_at: scanner.updatedAt,
});
