import { config } from '../config.js';
import { dynamoScannerStore } from '../adapters/table/scanner-store.js';
import type { ScannerDeps } from '../domain/scanners/scanners.js';
import { lazy } from '../shared/memo.js';
import { table } from './table.js';

export const scanners = lazy((): ScannerDeps => ({ scanners: dynamoScannerStore(table()), deploymentMaxObservations: config().MAX_OBSERVATIONS_CAP }));
