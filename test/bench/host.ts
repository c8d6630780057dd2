import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHost, type HostProcess, type StartOptions } from '../helpers/host-process.js';
import { allowTestPace } from '../helpers/processes.js';

export interface BenchHost extends HostProcess {
  dataDir: string;
  /** Ctrl-C, then removes the host's data. */
  stop: () => Promise<void>;
}

/**
 * A local host of its own (its own process and event loop, not the load generator's) on fresh
 * data, whose default account takes requests at any pace; `env` holds its settings (functions/config.ts), e.g. CHUNK_SECONDS.
 */
export async function benchHost(options: Pick<StartOptions, 'env'> = {}): Promise<BenchHost> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mss-bench-host-'));
  const host = await startHost({ dataDir, ...options });
  // The benches measure the host, not the plan's request limit (each request still takes its token).
  await allowTestPace(dataDir);
  return {
    ...host,
    dataDir,
    stop: async () => {
      host.child.kill('SIGINT');
      await host.exited;
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
