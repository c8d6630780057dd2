import { Logger } from '@aws-lambda-powertools/logger';

/** One logger per process. Request bodies and headers are never logged: they may hold secrets. */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'media-scanner' });
