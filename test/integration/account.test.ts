/**
 * GET /v1/account (SPEC: wallet, plan limits, retention, concurrency, built-in providers) and
 * the operator CLI that creates accounts, moves credits and trusts hosts. Every CLI call costs
 * a process start, so accounts are shared between the tests of this file.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, test } from 'vitest';
import { hostsOnOwnData } from '../helpers/host-process.js';
import {
  adminOutput,
  clientFor,
  createAccount,
  expectError,
  isoMillisPattern,
  runAdmin,
  type Account,
  type NewAccount,
  type ProcessResult,
} from '../helpers/api.js';

const GiB = 1024 ** 3;

const plans = [
  { plan: 'beginner', retention: 7, concurrency: 1, credits: 7 },
  { plan: 'hobby', retention: 30, concurrency: 2, credits: 30 },
  { plan: 'creator', retention: 90, concurrency: 3, credits: 90 },
] as const;
type Plan = (typeof plans)[number]['plan'];
const accounts = new Map<Plan, NewAccount>();
const accountOf = (plan: Plan): NewAccount => {
  const account = accounts.get(plan);
  if (!account) throw new Error(`no ${plan} account`);
  return account;
};

beforeAll(async () => {
  const created = await Promise.all(plans.map((p) => createAccount({ plan: p.plan, credits: p.credits })));
  plans.forEach((p, i) => accounts.set(p.plan, created[i] as NewAccount));
});

/** The shared host, as the admin CLI names the host it acted on. */
const sharedHost = () => ({ base_url: inject('baseUrl'), data_dir: inject('dataDir') });

const getAccount = async (apiKey: string): Promise<Account> => {
  const response = await clientFor(apiKey).get<Account>('/v1/account');
  expect(response.status, response.text).toBe(200);
  return response.body;
};

function expectFailure(result: ProcessResult, label: string, message: RegExp = /./): void {
  expect(result.code, `${label}: stdout=${result.stdout} stderr=${result.stderr}`).toBe(1);
  expect(result.stdout, label).toBe('');
  expect(result.stderr, label).toMatch(message);
}

describe('GET /v1/account', () => {
  test.for(plans)('$plan: plan, wallet, limits, retention $retention days, concurrency $concurrency', async ({ plan, retention, concurrency, credits }) => {
    const created = accountOf(plan);
    const account = await getAccount(created.apiKey);
    expect(account).toMatchObject({
      object: 'account',
      account_id: created.accountId,
      plan,
      wallet: { balance_credits: credits, credit_unit_seconds: 60 },
      limits: { max_video_bytes: 8 * GiB, max_audio_bytes: 2 * GiB, max_source_minutes: 120, max_observations: 50 },
      retention: { days: retention },
      concurrency: { limit: concurrency, in_use: 0, queued: 0 },
      trusted_hosts: [],
    });
    expect(account.created_at).toMatch(isoMillisPattern);
    expect(account.updated_at).toMatch(isoMillisPattern);
  });

  test('the seeded default account: creator plan with (at least) 10,000 credits', async () => {
    const account = await getAccount(inject('apiKey'));
    expect(account).toMatchObject({ account_id: inject('accountId'), plan: 'creator', retention: { days: 90 }, concurrency: { limit: 3 } });
    expect(account.wallet.balance_credits).toBeGreaterThanOrEqual(10_000);
  });

  test('built-in providers are listed with id, name and kind (DESIGN §10)', async () => {
    const account = await getAccount(accountOf('hobby').apiKey);
    expect(account.built_in_providers.length).toBeGreaterThan(0);
    for (const provider of account.built_in_providers) {
      expect(Object.keys(provider).sort()).toEqual(['id', 'kind', 'name']);
      expect(provider.id).toMatch(/^[a-z0-9_]+$/);
      expect(provider.name).not.toBe('');
      expect(['recorded_video', 'social', 'meeting', 'storage']).toContain(provider.kind);
    }
    expect(new Set(account.built_in_providers.map((p) => p.kind))).toEqual(new Set(['recorded_video', 'social', 'meeting', 'storage']));
    expect(account.built_in_providers.map((p) => p.id)).toContain('youtube');
  });

  test('the account never shows a key, a hash or table internals', async () => {
    const { apiKey } = accountOf('beginner');
    const response = await clientFor(apiKey).get('/v1/account');
    expect(response.text).not.toContain(apiKey);
    expect(response.text).not.toMatch(/"(PK|SK|entity|keyHash|api_key|limitOverrides|ttl)"/);
    expect(Object.keys(response.body as object).sort()).toEqual(
      [
        'object',
        'account_id',
        'plan',
        'wallet',
        'limits',
        'retention',
        'concurrency',
        'proof_allowance',
        'built_in_providers',
        'trusted_hosts',
        'event_delivery',
        'created_at',
        'updated_at',
      ].sort(),
    );
  });

  test('query parameters are refused', async () => {
    expectError(await clientFor(inject('apiKey')).get('/v1/account?plan=enterprise'), 400, 'validation_failed', 'plan');
  });
});

describe('admin CLI: accounts add-credits', () => {
  test('moves the balance, and GET /v1/account shows it', async () => {
    const { accountId, apiKey } = accountOf('hobby');
    const before = (await getAccount(apiKey)).wallet.balance_credits;
    const result = adminOutput<{ account_id: string; balance_credits: number }>(
      await runAdmin(['accounts', 'add-credits', '--account', accountId, '--credits', '250']),
    );
    expect(result).toEqual({ account_id: accountId, balance_credits: before + 250, host: sharedHost() });
    const account = await getAccount(apiKey);
    expect(account.wallet.balance_credits).toBe(before + 250);
    expect(Date.parse(account.updated_at)).toBeGreaterThanOrEqual(Date.parse(account.created_at));
  });

  test('refuses zero credits and unknown accounts (exit 1), and the balance does not move', async () => {
    const { accountId, apiKey } = accountOf('beginner');
    const before = (await getAccount(apiKey)).wallet.balance_credits;
    const cases: [string, string[]][] = [
      ['zero', ['--account', accountId, '--credits', '0']],
      ['unknown account', ['--account', `acct_${'0'.repeat(32)}`, '--credits', '5']],
    ];
    const results = await Promise.all(cases.map(([, args]) => runAdmin(['accounts', 'add-credits', ...args])));
    results.forEach((result, i) => expectFailure(result, cases[i]?.[0] ?? ''));
    expect((await getAccount(apiKey)).wallet.balance_credits).toBe(before);
  });
});

describe('admin CLI: accounts trust-host', () => {
  test('adds an exact hostname (lower-cased) and GET /v1/account lists it', async () => {
    const { accountId, apiKey } = accountOf('creator');
    const [first, second] = await Promise.all([
      runAdmin(['accounts', 'trust-host', 'Media.Example.COM', '--account', accountId]),
      runAdmin(['accounts', 'trust-host', 'cdn.example.org', '--account', accountId]),
    ]);
    expect(adminOutput<{ account_id: string; trusted_hosts: string[] }>(first)).toMatchObject({ account_id: accountId });
    expect(adminOutput<{ trusted_hosts: string[] }>(first).trusted_hosts).toContain('media.example.com');
    expect(adminOutput<{ trusted_hosts: string[] }>(second).trusted_hosts).toContain('cdn.example.org');
    expect((await getAccount(apiKey)).trusted_hosts).toEqual(['cdn.example.org', 'media.example.com']);
  });

  test('on the shared host, started with LOCAL_ALLOW_LOOPBACK_TARGETS=1, loopback names may be trusted without setting it again; other addresses never', {
    timeout: 120_000,
  }, async () => {
    const { accountId, apiKey } = await createAccount({ plan: 'hobby' });
    // runAdmin passes none of this process's LOCAL_ALLOW_LOOPBACK_TARGETS: the CLI reads the host's.
    const hosts = ['localhost', '::1', '10.0.0.1', '8.8.8.8'];
    const [localhost, ipv6, ...refused] = await Promise.all(hosts.map((host) => runAdmin(['accounts', 'trust-host', host, '--account', accountId])));
    for (const result of [localhost, ipv6]) expect(adminOutput(result!)).toMatchObject({ account_id: accountId, host: sharedHost() });
    refused.forEach((result, i) => expectFailure(result, hosts[i + 2] ?? '', /hostname/i));
    expect((await getAccount(apiKey)).trusted_hosts).toEqual(['[::1]', 'localhost']);
  });

  test('on a host started without LOCAL_ALLOW_LOOPBACK_TARGETS, localhost or an IP literal fails with exit code 1, even with the variable set for the CLI', {
    timeout: 300_000,
  }, async () => {
    const own = hostsOnOwnData('mss-no-loopback-');
    try {
      const host = await own.start(undefined, 180_000);
      const hosts = ['localhost', '127.0.0.1', '[::1]', '10.0.0.1', '8.8.8.8'];
      const [trusted, ...results] = await Promise.all([
        runAdmin(['accounts', 'trust-host', 'media.example.com', '--account', host.accountId], own.dataDir()),
        ...hosts.map((name) => runAdmin(['accounts', 'trust-host', name, '--account', host.accountId], own.dataDir(), { LOCAL_ALLOW_LOOPBACK_TARGETS: '1' })),
      ]);
      results.forEach((result, i) => expectFailure(result, hosts[i] ?? '', /loopback|hostname/i));
      expect(adminOutput(trusted)).toEqual({
        account_id: host.accountId,
        trusted_hosts: ['media.example.com'],
        host: { base_url: host.baseUrl, data_dir: own.dataDir() },
      });
    } finally {
      await own.cleanUp();
    }
  });
});

describe('admin CLI: accounts create', () => {
  test('prints exactly one JSON object with account_id and api_key, and the key works', async () => {
    const result = await runAdmin(['accounts', 'create', '--plan', 'hobby', '--credits', '42', '--max-observations', '12']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split('\n').filter((line) => line.length > 0);
    expect(lines).toHaveLength(1);
    const created = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    expect(Object.keys(created).sort()).toEqual(['account_id', 'api_key', 'host']);
    // It says which host it acted on: the one whose running.json it read.
    expect(created.host).toEqual(sharedHost());
    expect(created.account_id).toMatch(/^acct_[0-9a-f]{32}$/);
    expect(created.api_key).toMatch(/^sk_(live|test)_[0-9A-Za-z]{40}$/);
    const account = await getAccount(String(created.api_key));
    expect(account).toMatchObject({ account_id: created.account_id, plan: 'hobby', wallet: { balance_credits: 42 }, limits: { max_observations: 12 } });
    // every account and key minted so far is distinct
    const ids = [created.account_id, ...[...accounts.values()].map((a) => a.accountId)];
    const keys = [created.api_key, ...[...accounts.values()].map((a) => a.apiKey)];
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(keys).size).toBe(keys.length);
  });

  test('bad arguments exit 1 with a message on stderr and nothing on stdout', async () => {
    const cases: [string, string[], RegExp][] = [
      ['bad --plan', ['accounts', 'create', '--plan', 'platinum', '--credits', '1'], /--plan must be one of/],
      ['negative --credits', ['accounts', 'create', '--plan', 'hobby', '--credits', '-1'], /credits/],
      ['unknown command', ['accounts', 'delete'], /Usage/],
    ];
    const results = await Promise.all(cases.map(([, args]) => runAdmin(args)));
    results.forEach((result, i) => expectFailure(result, cases[i]?.[0] ?? '', cases[i]?.[2]));
  });

  test('without a running host under LOCAL_DATA_DIR it exits 1 and says so', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'mss-no-host-'));
    try {
      expectFailure(await runAdmin(['accounts', 'create', '--plan', 'hobby', '--credits', '1'], empty), 'no host', /No local host is running/);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
