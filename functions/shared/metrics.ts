import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/**
 * Business figures as CloudWatch embedded metrics (Powertools Metrics writes them to the log;
 * no API call, no grant). Namespace and service from POWERTOOLS_METRICS_NAMESPACE and
 * POWERTOOLS_SERVICE_NAME; the local host turns them off (POWERTOOLS_METRICS_DISABLED).
 */
const metrics = new Metrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'MediaScanner',
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'media-scanner',
});

/** The business metrics the service emits; every name is listed here once. */
export type BusinessMetric = 'RunsSubmitted' | 'RunsCompleted' | 'RunsFailed' | 'CreditsReserved' | 'CreditsCharged' | 'CreditsRefunded' | 'UploadFailures';

/** Where business metrics go: a port, so adapters that emit them are tested without Powertools. */
export interface MetricsSink {
  count(name: BusinessMetric, value: number, dimension?: { name: string; value: string }): void;
}

export const powertoolsMetrics: MetricsSink = {
  count(name, value, dimension) {
    if (!dimension) return metrics.addMetric(name, MetricUnit.Count, value);
    // A dimensioned value goes out on its own, so its dimension does not stick to later metrics.
    const single = metrics.singleMetric();
    single.addDimension(dimension.name, dimension.value);
    single.addMetric(name, MetricUnit.Count, value);
  },
};

/** Flushes what an invocation recorded (the HTTP handler and task handler call it when they end). */
export function publishMetrics(): void {
  if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
}
