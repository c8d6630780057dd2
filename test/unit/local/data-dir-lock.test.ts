/**
 * One host per data directory (functions/local/data-dir-lock.ts): a second lock fails naming the
 * holder's pid and port; a stale lock (its process gone, or its pid now another process) is taken
 * over, by exactly one of several hosts starting at once.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { DataDirInUse, lockDataDir, type HostLockRecord } from '../../../functions/local/data-dir-lock.js';
import { selfIdentity } from '../../../functions/local/host-processes.js';

let dataDir = '';
const newInstance = () => randomBytes(16).toString('hex');
const lockFile = () => join(dataDir, 'host.lock');
const readLock = async () => JSON.parse(await readFile(lockFile(), 'utf8')) as HostLockRecord;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mss-lock-'));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

/** A lock as a host that is no longer there left it. */
async function leftLock(pid: number, startTime?: number): Promise<HostLockRecord> {
  const self = selfIdentity();
  const record: HostLockRecord = {
    ...self,
    pid,
    start_time: startTime ?? self.start_time,
    instance: newInstance(),
    port: 4000,
    base_url: 'http://127.0.0.1:4000',
    started_at: new Date().toISOString(),
  };
  await writeFile(lockFile(), JSON.stringify(record));
  return record;
}

describe('a data directory in use', () => {
  test("a second lock fails at once naming the holder's pid, then its port once it listens", async () => {
    const first = await lockDataDir(dataDir, newInstance());
    expect(first.previous).toBeUndefined();
    const starting = await lockDataDir(dataDir, newInstance()).catch((error: unknown) => error);
    expect(starting).toBeInstanceOf(DataDirInUse);
    expect((starting as Error).message).toMatch(new RegExp(`pid ${process.pid}, still starting`));

    await first.listening('http://127.0.0.1:4123');
    expect(await readLock()).toMatchObject({ pid: process.pid, port: 4123, base_url: 'http://127.0.0.1:4123' });
    await expect(lockDataDir(dataDir, newInstance())).rejects.toThrow(new RegExp(`pid ${process.pid}, port 4123 \\(http://127\\.0\\.0\\.1:4123\\)`));

    await first.release();
    expect(await readdir(dataDir)).toEqual([]);
    const next = await lockDataDir(dataDir, newInstance());
    expect(next.previous).toBeUndefined();
    await next.release();
  });

  test('release leaves a lock that is not its own', async () => {
    const lock = await lockDataDir(dataDir, newInstance());
    const other = await leftLock(process.pid);
    await lock.release();
    expect((await readLock()).instance).toBe(other.instance);
  });
});

describe.runIf(process.platform === 'linux')('a stale lock', () => {
  test('of a process that is gone is taken over, and names the instance that died', async () => {
    const gone = spawnSync('true').pid;
    const stale = await leftLock(gone);
    const lock = await lockDataDir(dataDir, newInstance());
    expect(lock.previous).toEqual(stale);
    expect((await readLock()).pid).toBe(process.pid);
    await lock.release();
    expect(await readdir(dataDir)).toEqual([]);
  });

  test('of a pid now used by another process (another start time) is taken over', async () => {
    const stale = await leftLock(process.pid, selfIdentity().start_time - 1);
    const lock = await lockDataDir(dataDir, newInstance());
    expect(lock.previous?.instance).toBe(stale.instance);
    await lock.release();
  });

  test('that cannot be read is taken over', async () => {
    await writeFile(lockFile(), '{"pid": 12');
    const lock = await lockDataDir(dataDir, newInstance());
    expect(lock.previous).toBeUndefined();
    expect((await readLock()).pid).toBe(process.pid);
    await lock.release();
  });

  test('is taken over by exactly one of eight hosts starting at once; the others name it', async () => {
    await leftLock(spawnSync('true').pid);
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => lockDataDir(dataDir, newInstance())));
    const held = outcomes.filter((o) => o.status === 'fulfilled');
    expect(held).toHaveLength(1);
    for (const outcome of outcomes) if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(DataDirInUse);
    await held[0]?.value.release();
  });
});
