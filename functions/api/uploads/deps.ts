import { logger } from '../../http/logger.js';
import { presentUpload } from '../../http/presenters.js';
import type { UploadDeps } from '../../domain/uploads.js';
import type { Services } from '../../wiring.js';

export const uploadDeps = (services: Services): UploadDeps => ({
  uploads: services.uploads,
  media: services.media,
  inspector: services.inspector,
  events: services.events,
  multipartThresholdBytes: services.config.MULTIPART_THRESHOLD_BYTES,
  partSizeBytes: services.config.MULTIPART_PART_SIZE_BYTES,
  present: (upload, now) => presentUpload(upload, now),
  warn: (message, error) => logger.warn(message, error as Error),
});
