import autocannon from 'autocannon';
import { benchHost } from './host.js';

export interface LatencyFigure {
  endpoint: string;
  connections: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
}

const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

/** Requests/s and latency percentiles of two hot endpoints on the local host (issue 2 #13). */
export async function benchApi(): Promise<LatencyFigure[]> {
  const host = await benchHost();
  try {
    const headers = { authorization: `Bearer ${host.apiKey}`, 'content-type': 'application/json' };
    const body = JSON.stringify({ name: 'bench', instructions: 'Find the loud bursts', type: 'find_moments', min_seconds: 5, max_seconds: 20 });
    const created = await fetch(`${host.baseUrl}/v1/scanners`, { method: 'POST', headers, body });
    const { scanner_id } = (await created.json()) as { scanner_id: string };

    const cases = [
      { endpoint: 'GET /v1/scanners/{id}', method: 'GET' as const, url: `${host.baseUrl}/v1/scanners/${scanner_id}` },
      { endpoint: 'POST /v1/scanners', method: 'POST' as const, url: `${host.baseUrl}/v1/scanners`, body },
    ];
    const figures: LatencyFigure[] = [];
    for (const c of cases) {
      for (const connections of [1, 16]) {
        const result = await autocannon({ url: c.url, method: c.method, headers, body: c.body, connections, duration: DURATION_SECONDS });
        figures.push({
          endpoint: c.endpoint,
          connections,
          requestsPerSecond: Math.round(result.requests.average),
          p50Ms: result.latency.p50,
          p99Ms: result.latency.p99,
          non2xx: result.non2xx,
        });
      }
    }
    return figures;
  } finally {
    await host.stop();
  }
}
