/**
 * The media-scanner CLI (packages/cli) as a subprocess against the shared local host, as
 * `npx media-scanner` runs it: JSON for scripts, tables for people, and the exit codes.
 */
import { execFile, type ExecFileException } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, inject, test } from 'vitest';
import { childEnv, createAccount, repoRoot } from '../helpers/api.js';
import { fixture } from '../helpers/media-fixtures.js';

const execFileAsync = promisify(execFile);
const bin = join(repoRoot, 'packages', 'cli', 'bin', 'media-scanner.js');

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

let apiKey: string;

async function cli(args: string[], env: Record<string, string> = {}): Promise<Result> {
  const environment = childEnv({ MEDIA_SCANNER_API_KEY: apiKey, MEDIA_SCANNER_BASE_URL: inject('baseUrl'), ...env });
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [bin, ...args], { cwd: repoRoot, env: environment, timeout: 90_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as ExecFileException & { stdout: string; stderr: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout, stderr: failed.stderr };
  }
}

beforeAll(async () => {
  ({ apiKey } = await createAccount({ plan: 'hobby', credits: 10 }));
});

describe.concurrent('media-scanner', () => {
  test('scan: uploads, creates the scanner, runs it and prints run and observations as JSON', async () => {
    const result = await cli(['--json', '--poll-seconds', '0.2', 'scan', await fixture('audio.mp3'), '--type', 'summarizer', '--instructions', 'Summarise the sound']);
    expect(result.code, result.stderr).toBe(0);
    const output = JSON.parse(result.stdout) as { upload: { status: string }; run: { status: string; scanner_id: string }; scanner_id: string; observations: unknown[] };
    expect(output.upload.status).toBe('ready');
    expect(output.run).toMatchObject({ status: 'completed', scanner_id: output.scanner_id });
    expect(Array.isArray(output.observations)).toBe(true);
    // --json keeps stderr free of progress and notes.
    expect(result.stderr).toBe('');
  }, 90_000);

  test('prints tables for people', async () => {
    const created = await cli(['scanners', 'create', '--type', 'classifier', '--name', 'Kinds', '--instructions', 'What is it', '--labels', 'music,speech']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^scanner_id:\s+scn_[0-9a-f]{32}$/m);
    const listed = await cli(['scanners', 'list', '--limit', '5']);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\n')[0]).toMatch(/^SCANNER_ID\s+VERSION\s+TYPE\s+NAME\s+CREATED_AT$/);
    expect(listed.stdout).toContain('Kinds');
    const account = await cli(['account']);
    expect(account.stdout).toMatch(/^plan:\s+hobby$/m);
  });

  test('exits 3 with the API error code and request id', async () => {
    const result = await cli(['runs', 'get', 'run_unknown']);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^error: not_found \(HTTP 404\): No such run\. \(request \S+\)$/m);
    const json = await cli(['--json', 'runs', 'get', 'run_unknown']);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { status: 404, code: 'not_found', request_id: expect.any(String) as unknown } });
  });

  test('exits 2 on usage errors, before calling the API', async () => {
    expect((await cli(['runs', 'create', 'scn_x'])).code).toBe(2);
    expect((await cli(['scan', 'nothing.mp4'])).code).toBe(2);
    const noKey = await cli(['account'], { MEDIA_SCANNER_API_KEY: '' });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('MEDIA_SCANNER_API_KEY');
  });

  test('exits 4 when the work fails: bytes that are not media', async () => {
    const result = await cli(['upload', await fixture('random.bin'), '--content-type', 'video/mp4']);
    expect(result.code, result.stderr).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: Upload upl_[0-9a-f]{32} is failed: \w+/m);
  });
});
