/**
 * `npm run smoke` (test/smoke/smoke.ts) against the shared local host, as a subprocess, so the
 * script that checks a fresh deploy stays true: it passes every step on a healthy host, and
 * stops at the first failure with the step, the HTTP status, the error code and the request_id,
 * printing neither the API key nor the signed upload URL. Each case owns an account (the script
 * checks the balance to the credit).
 */
import { execFile, type ExecFileException } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, inject, test } from 'vitest';
import { routes } from '../../functions/routes.js';
import { childEnv, clientFor, createAccount, repoRoot, tsxCli, type Account, type NewAccount } from '../helpers/api.js';
import { parseStepLine, STEPS } from '../smoke/steps.js';

const SCRIPT = 'test/smoke/smoke.ts';
/** A run on a busy machine (other files share the host): room for the generation, the upload and the run. */
const SMOKE_TEST_MS = 150_000;

interface SmokeResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

const execFileAsync = promisify(execFile);

/** The script as `npm run smoke -- <args>` runs it (tsx, this Node), with short polls for loopback. */
async function runSmoke(args: string[]): Promise<SmokeResult> {
  const argv = [tsxCli, SCRIPT, '--poll-seconds', '0.5', '--timeout-seconds', '90', ...args];
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, argv, { cwd: repoRoot, env: childEnv({}), timeout: SMOKE_TEST_MS - 10_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as ExecFileException & { stdout: string; stderr: string };
    return { code: typeof failed.code === 'number' ? failed.code : null, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const stepLines = (stdout: string) => stdout.split('\n').flatMap((line) => parseStepLine(line) ?? []);

function expectNoSecrets(result: SmokeResult, apiKey: string): void {
  const output = result.stdout + result.stderr;
  expect(output).not.toContain(apiKey);
  expect(output).not.toMatch(/X-Amz-(Signature|Credential)=[^[]/i);
}

let funded: NewAccount;
let broke: NewAccount;

beforeAll(async () => {
  [funded, broke] = await Promise.all([createAccount({ plan: 'creator', credits: 10 }), createAccount({ plan: 'creator', credits: 0 })]);
});

describe.concurrent('npm run smoke', () => {
  test(
    'walks the main path against the local host: every step ok, the run charged 1 credit, exit 0',
    async () => {
      const result = await runSmoke(['--base-url', inject('baseUrl'), '--api-key', funded.apiKey]);
      const context = `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
      expect(result.code, context).toBe(0);
      const lines = stepLines(result.stdout);
      expect(
        lines.map((l) => l.name),
        context,
      ).toEqual([...STEPS]);
      for (const [i, line] of lines.entries()) {
        expect(line.result, context).toBe('ok');
        expect([line.index, line.total]).toEqual([i + 1, STEPS.length]);
      }
      expect(result.stdout.trimEnd().split('\n').at(-1)).toMatch(/^Smoke test passed in /);
      expectNoSecrets(result, funded.apiKey);

      // What the script reported is what the API says.
      const byName = new Map(lines.map((l) => [l.name, l.detail]));
      expect(byName.get('check billing')).toBe('1 credit(s) charged; balance 10 -> 9');
      expect(byName.get('read moments')).toMatch(/^[1-9]\d* moment\(s\): /);
      expect(byName.get('clean up')).toMatch(/^nothing deletable through the API/);
      const account = await clientFor(funded.apiKey).get<Account>('/v1/account');
      expect(account.body.wallet.balance_credits).toBe(9);
    },
    SMOKE_TEST_MS,
  );

  test('a wrong API key stops it at the first step: 401 unauthorized with its request_id, exit 1, the key never printed', async () => {
    const wrongKey = `sk_live_${'Wr0ngKey'.repeat(5)}`;
    const result = await runSmoke(['--base-url', inject('baseUrl'), '--api-key', wrongKey]);
    expect(result.code, result.stdout).toBe(1);
    const lines = stepLines(result.stdout);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ result: 'FAIL', index: 1, name: 'read account' });
    expect(lines[0]?.detail).toMatch(/^HTTP 401 unauthorized: .+ \(request_id [^\s()]+\)$/);
    expect(lines[0]?.detail).not.toContain('request_id none');
    expect(result.stdout).toMatch(/^Smoke test FAILED after /m);
    expectNoSecrets(result, wrongKey);
  });

  test(
    'a failure mid-way names its step: an empty wallet passes the upload, then the run is refused 402 insufficient_credits',
    async () => {
      const result = await runSmoke(['--base-url', inject('baseUrl'), '--api-key', broke.apiKey]);
      expect(result.code, result.stdout).toBe(1);
      const lines = stepLines(result.stdout);
      const failedAt = STEPS.indexOf('start run');
      expect(lines.map((l) => l.result)).toEqual([...Array<string>(failedAt).fill('ok'), 'FAIL']);
      expect(lines.at(-1)?.detail).toMatch(/^HTTP 402 insufficient_credits: .+ \(request_id [^\s()]+\)$/);
      expectNoSecrets(result, broke.apiKey);
    },
    SMOKE_TEST_MS,
  );

  test('usage errors exit 2 with the usage on stderr and nothing on stdout', async () => {
    const result = await runSmoke(['--base-url', inject('baseUrl')]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/--api-key is required[\s\S]*usage: npm run smoke/);
  });

  test('the clean-up step tells the truth: the route table has no DELETE route for what the smoke test makes, so none of it is deletable', () => {
    // When one appears (e.g. DELETE /v1/scanners/{scanner_id}), make the clean-up step call it.
    const made = ['/v1/scanners', '/v1/uploads', '/v1/runs'];
    expect(
      routes.filter((route) => (route.method as string) === 'DELETE' && made.some((prefix) => route.path.startsWith(prefix))).map((route) => route.path),
    ).toEqual([]);
  });

  test('npm run smoke runs this same script', async () => {
    const manifest = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(manifest.scripts.smoke).toBe(`tsx ${SCRIPT}`);
  });
});
