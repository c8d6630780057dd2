import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const guard = fileURLToPath(new URL('./offline-guard.js', import.meta.url));

/** A closed port on loopback (discard): where proxy-aware tools other than Node are sent. */
const NOWHERE = 'http://127.0.0.1:9';

/**
 * The environment of a process that must not reach the network, nor anything it starts: every
 * Node process loads offline-guard.js (through NODE_OPTIONS), npm gets an empty cache of its own
 * in `npmCacheDirectory` (a warm cache would serve a tarball without any network) and no retries,
 * and tools that honour proxy variables (curl, wget) a proxy that refuses connections.
 */
export function offlineEnvironment(env: NodeJS.ProcessEnv, npmCacheDirectory: string): NodeJS.ProcessEnv {
  mkdirSync(npmCacheDirectory, { recursive: true });
  const offline: NodeJS.ProcessEnv = {
    ...env,
    NODE_OPTIONS: [env.NODE_OPTIONS, `--import=${guard}`].filter(Boolean).join(' '),
    npm_config_cache: npmCacheDirectory,
    npm_config_fetch_retries: '0',
  };
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy']) offline[name] = NOWHERE;
  delete offline.NO_PROXY;
  delete offline.no_proxy;
  return offline;
}

/** Whether this process runs under offline-guard.js. */
export const isOffline = (): boolean => (globalThis as Record<symbol, unknown>)[Symbol.for('media-scanner.offline-guard')] === true;
