/**
 * The local host as a user runs it (`npm start` = node --import tsx functions/local/start.ts), in its own
 * process and data dir: SIGINT stops it cleanly (exit 0, DynamoDB Local's Java gone), state
 * survives a restart (same key, same scanners), and LOCAL_API_KEY adds a chosen key.
 */
import { randomInt } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { api, createScanner, expectError, validScanner, type Account, type List, type Scanner } from '../helpers/api.js';
import { childPids, portOpen, processAlive, readRunning, spawnHost, startHost, type HostProcess } from '../helpers/host-process.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const freshKey = () => `sk_test_${Array.from({ length: 40 }, () => BASE62[randomInt(BASE62.length)]).join('')}`;

let dataDir: string;
const running = new Set<HostProcess>();

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mss-restart-'));
});

afterAll(async () => {
  // Never leave a host (or its Java) behind, whatever failed.
  for (const host of running) {
    if (host.child.exitCode === null && host.child.signalCode === null) {
      host.child.kill('SIGINT');
      const stopped = await Promise.race([host.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 20_000))]);
      if (!stopped) host.child.kill('SIGKILL');
    }
  }
  await rm(dataDir, { recursive: true, force: true });
});

async function start(apiKey?: string): Promise<HostProcess> {
  const host = await startHost({ dataDir, ...(apiKey !== undefined ? { apiKey } : {}) });
  running.add(host);
  return host;
}

/** SIGINT, then: exit code 0, API / DynamoDB Local / s3rver ports closed, Java gone, running.json removed. */
async function stopAndCheck(host: HostProcess): Promise<void> {
  const info = readRunning(dataDir);
  expect(info.pid).toBeGreaterThan(0);
  const java = childPids(info.pid, 'java');
  if (existsSync('/proc')) expect(java, 'DynamoDB Local (java) is a child of the host').toHaveLength(1);
  const ports = [info.base_url, info.dynamodb_endpoint, info.s3_endpoint].map((url) => Number(new URL(url).port));
  expect(await portOpen(ports[1] ?? 0)).toBe(true);

  host.child.kill('SIGINT');
  const exit = await Promise.race([host.exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 30_000))]);
  expect(exit, host.output().stderr).toEqual({ code: 0, signal: null });
  expect(host.output().stdout).toMatch(/SIGINT: stopping the local host/);
  running.delete(host);

  for (const port of ports) expect(await portOpen(port), `port ${port} still open`).toBe(false);
  for (const pid of java) expect(processAlive(pid), `java ${pid} still running`).toBe(false);
  expect(existsSync(join(dataDir, 'running.json'))).toBe(false);
}

describe('restart', () => {
  let first: HostProcess;
  let scanner: Scanner;
  let patched: Scanner;

  test('a first start prints the URL, the default account and its key, and serves the API', async () => {
    first = await start();
    expect(first.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(first.apiKey).toMatch(/^sk_(live|test)_[0-9A-Za-z]{40}$/);
    expect(first.accountId).toMatch(/^acct_[0-9a-f]{32}$/);
    const account = await api(first.baseUrl, first.apiKey).get<Account>('/v1/account');
    expect(account.status).toBe(200);
    expect(account.body).toMatchObject({ account_id: first.accountId, plan: 'creator', wallet: { balance_credits: 10_000 } });
    expect(readRunning(dataDir).base_url).toBe(first.baseUrl);

    const client = api(first.baseUrl, first.apiKey);
    scanner = await createScanner(client, validScanner('classifier', { name: 'survives restarts', metadata: { n: 1 } }));
    const response = await client.patch<Scanner>(
      `/v1/scanners/${scanner.scanner_id}`,
      { name: 'survives restarts v2' },
      { 'idempotency-key': 'restart-patch' },
    );
    expect(response.status).toBe(200);
    patched = response.body;
  });

  test('SIGINT stops it: exit code 0, no port left open, no Java left running', async () => {
    await stopAndCheck(first);
  });

  test('a restart on the same data dir: same key, same account, the scanner and its versions are still there', async () => {
    const second = await start();
    expect(second.apiKey).toBe(first.apiKey);
    expect(second.accountId).toBe(first.accountId);
    const client = api(second.baseUrl, second.apiKey);
    const fetched = await client.get<Scanner>(`/v1/scanners/${scanner.scanner_id}`);
    expect(fetched.status, fetched.text).toBe(200);
    expect(fetched.body).toEqual(patched);
    const versions = await client.get<List<Scanner>>(`/v1/scanners/${scanner.scanner_id}/versions`);
    expect(versions.body.data).toEqual([patched, scanner]);
    // idempotency records survive too
    const replay = await client.patch<Scanner>(`/v1/scanners/${scanner.scanner_id}`, { name: 'survives restarts v2' }, { 'idempotency-key': 'restart-patch' });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(patched);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    await stopAndCheck(second);
  });

  test('with LOCAL_API_KEY set to a fresh valid key, that key is printed and works on the same account', async () => {
    const chosen = freshKey();
    const third = await start(chosen);
    expect(third.apiKey).toBe(chosen);
    expect(third.accountId).toBe(first.accountId);
    const client = api(third.baseUrl, chosen);
    const account = await client.get<Account>('/v1/account');
    expect(account.status, account.text).toBe(200);
    expect(account.body.account_id).toBe(first.accountId);
    expect((await client.get<Scanner>(`/v1/scanners/${scanner.scanner_id}`)).body).toEqual(patched);
    // an unknown key is still refused
    expectError(await api(third.baseUrl, freshKey()).get('/v1/account'), 401, 'unauthorized');
    await stopAndCheck(third);
  });

  test('a malformed LOCAL_API_KEY on restart is refused at start-up (exit 1)', async () => {
    const launched = spawnHost({ dataDir, apiKey: 'not-a-valid-key' });
    const outcome = await Promise.race([
      launched.ready.then((host) => {
        running.add(host);
        return 'started' as const;
      }),
      launched.exited,
    ]).catch(() => launched.exited);
    if (outcome === 'started') {
      const { stdout } = launched.output();
      // It started: a key that can never authenticate was advertised as the API key.
      expect.fail(
        `the host started with an unusable key; it printed:\n${stdout
          .split('\n')
          .filter((l) => l.startsWith('API key'))
          .join('\n')}`,
      );
    }
    expect(outcome).toEqual({ code: 1, signal: null });
    expect(launched.output().stderr).toMatch(/API key/i);
  });
});
