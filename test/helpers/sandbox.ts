/**
 * A unit's process in its sandbox, for tests of what the sandbox lets it do (test/integration/
 * sandbox.test.ts, test/parity): test/helpers/unit-probe.ts run as `unit`, with the contracts made
 * from `dockerfile` (a variant of layers/ffmpeg/Dockerfile) when given.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { LocalBundles } from '../../functions/local/bundles.js';
import { Sandbox } from '../../functions/local/sandbox/sandbox.js';
import { fakeYtDlpPath, repoRoot } from './processes.js';

const bundles = new LocalBundles();

export async function probeInUnit(unit: string, probe: [what: 'write' | 'yt-dlp', arg: string], dockerfile?: string): Promise<Record<string, unknown>> {
  // yt-dlp is the stand-in unless the suite names another: no test reaches a real provider.
  const env = { ...process.env, YT_DLP_PATH: process.env.YT_DLP_PATH ?? fakeYtDlpPath, ...(dockerfile ? { LOCAL_CONTAINER_DOCKERFILE: dockerfile } : {}) };
  const sandbox = await Sandbox.create(env);
  const bundle = await bundles.of('unit-probe', { entry: join(repoRoot, 'test', 'helpers', 'unit-probe.ts') });
  const run = sandbox.unitProcess(unit, [bundle, ...probe], env);
  const { stdout } = await promisify(execFile)(run.file, run.args, { env: run.env, cwd: repoRoot });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
}

/** layers/ffmpeg/Dockerfile as it was before issue 24: no VOLUME, so a Fargate bind mount at /tmp is root 0755. */
export const withoutVolume = (dockerfile: string): string => dockerfile.replace(/^VOLUME .*$/m, '');
