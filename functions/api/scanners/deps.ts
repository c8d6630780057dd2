import type { ScannerDeps } from '../../domain/scanners.js';
import type { Services } from '../../wiring.js';

export const scannerDeps = (services: Services): ScannerDeps => ({
  scanners: services.scanners,
  deploymentMaxObservations: services.config.MAX_OBSERVATIONS_CAP,
});
