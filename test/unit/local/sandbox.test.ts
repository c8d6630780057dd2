/**
 * The sandbox on this machine (functions/local/sandbox/sandbox.ts), with bubblewrap itself: it is
 * made from the host's PATH whatever that holds (entries that do not exist, relative ones, empty ones,
 * links to folders), and a view bubblewrap cannot make is the host's failure (SandboxFailure, its
 * reason named), never an exit status a caller would read as the media's fault.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bubblewrapWorks, Sandbox, SandboxFailure } from '../../../functions/local/sandbox/sandbox.js';
import { inUnit } from '../../../functions/local/unit-context.js';
import { installLauncher } from '../../../functions/adapters/child-process.js';
import { ffprobeInspector, spawnFfprobe } from '../../../functions/adapters/media/ffprobe-inspector.js';
import { resolveFfprobePath } from '../../../functions/adapters/ffmpeg-binaries.js';
import { units } from '../../../functions/runtime/contracts.js';
import { repoRoot } from '../../helpers/processes.js';

const preflight = units.route('POST /v1/sources/preflight');
let dir: string;

beforeAll(async () => {
  // Not under /tmp, which a route's own /tmp would hide anyway: in the checkout's test-results.
  await mkdir(join(repoRoot, 'test-results'), { recursive: true });
  dir = await mkdtemp(join(repoRoot, 'test-results', 'sandbox path '));
});
afterAll(async () => {
  installLauncher(spawn);
  await rm(dir, { recursive: true, force: true });
});

describe.runIf(bubblewrapWorks())('the sandbox on this machine', () => {
  test('is made from a PATH with entries that do not exist, relative and empty ones, and a link to a folder of executables', async () => {
    const tools = join(dir, 'real tools');
    await mkdir(tools);
    await writeFile(join(tools, 'tool'), '#!/bin/sh\necho tool\n', { mode: 0o755 });
    await symlink(tools, join(dir, 'linked tools'));
    const env = { ...process.env, PATH: ['/nonexistent/bin', 'relative/bin', '', join(dir, 'linked tools'), process.env.PATH].join(delimiter) };
    const sandbox = await Sandbox.create(env);
    const hidden = sandbox.viewOf(preflight).hidden;
    expect(hidden).toContain(realpathSync(tools));
    expect(hidden.filter((path) => path.includes('nonexistent') || !path.startsWith('/'))).toEqual([]);
    const run = sandbox.unitProcess(
      preflight,
      ['-e', 'process.stdout.write(require("node:fs").existsSync(process.argv[1]) ? "seen" : "hidden")', join(tools, 'tool')],
      env,
    );
    const { stdout } = await promisify(execFile)(run.file, run.args, { env: run.env });
    expect(stdout).toBe('hidden');
  });

  test("a view bubblewrap cannot make is a SandboxFailure naming bubblewrap's reason: for a unit's process and for a binary a route starts", async () => {
    // The call recorder's log is bound into every view; gone after the sandbox was made, no view can be made.
    const log = join(dir, 'aws-calls.ndjson');
    const sandbox = await Sandbox.create({ ...process.env, AWS_CALL_LOG: log });
    await rm(log);
    expect(() => sandbox.unitProcess(units.container('analysis', 'AcquireSourceTaskDefinitionArn'), [], process.env)).toThrow(SandboxFailure);
    expect(() => sandbox.unitProcess(preflight, [], process.env)).toThrow(/bwrap: .*aws-calls\.ndjson/);

    // Before, ffprobe's bubblewrap exited 1 and the probe read that as media it could not read (422 source_unreadable, unreadable_media).
    installLauncher(sandbox.launch);
    const inspector = ffprobeInspector(
      spawnFfprobe(() => resolveFfprobePath()),
      10_000,
    );
    await expect(inUnit(preflight, () => inspector.inspect('http://127.0.0.1:9/source.mp4', 'video', { maxDurationMs: 60_000 }))).rejects.toThrow(
      SandboxFailure,
    );
  });
});
