/**
 * One host per data directory. `<dataDir>/host.lock` names the host holding it: its identity
 * (pid, boot id, start time, command line), its instance id and, once it listens, its port.
 *
 * - It is created atomically: a complete file is hard-linked into place, which fails if one is
 *   there. A second host (`npm start` or a test host) then fails at once, naming that pid and port.
 * - A lock whose process is gone (pid dead or a zombie, or the pid now another process: another
 *   start time) is stale and is taken over, by one host only: the taker first creates
 *   `host.lock.takeover-<stale instance>` exclusively, then renames its own lock over the stale one.
 *   The takeover says which instance died, so that its leftovers can be ended (host-processes.ts).
 */
import { link, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { selfIdentity, stillRunning, type ProcessIdentity } from './host-processes.js';

export interface HostLockRecord extends ProcessIdentity {
  instance: string;
  /** null while the host is starting. */
  port: number | null;
  base_url: string | null;
  started_at: string;
}

/** A second host on a data directory in use. */
export class DataDirInUse extends Error {
  constructor(
    dataDir: string,
    readonly holder: HostLockRecord,
  ) {
    super(
      `Another local host is running on the data directory ${dataDir}: pid ${holder.pid}, ` +
        `${holder.port === null ? 'still starting (no port yet)' : `port ${holder.port} (${holder.base_url})`}. ` +
        'Stop it first, or start this one with another LOCAL_DATA_DIR.',
    );
    this.name = 'DataDirInUse';
  }
}

interface DataDirLock {
  /** The lock of a host that died, taken over; undefined after a clean stop or on a new directory. */
  readonly previous: HostLockRecord | undefined;
  /** Records the port the host listens on, for a second host's message. */
  listening(baseUrl: string): Promise<void>;
  /** A clean stop: the directory is free again. */
  release(): Promise<void>;
}

const LOCK = 'host.lock';
const TAKEOVER = `${LOCK}.takeover-`;
const instancePattern = /^[0-9a-f]{32}$/;

async function readRecord(file: string): Promise<HostLockRecord | 'missing' | 'unreadable'> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
  try {
    const record = JSON.parse(text) as HostLockRecord;
    return Number.isInteger(record.pid) && instancePattern.test(record.instance) ? record : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

/** Runs `create`; false if the file it creates exists already. */
async function created(create: () => Promise<void>): Promise<boolean> {
  try {
    await create();
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

const holds = (record: HostLockRecord) => stillRunning(record, false) !== false;

/** Takes the data directory for this host (instance: its random id), or throws DataDirInUse. */
export async function lockDataDir(dataDir: string, instance: string): Promise<DataDirLock> {
  const lockFile = join(dataDir, LOCK);
  const mine: HostLockRecord = { ...selfIdentity(), instance, port: null, base_url: null, started_at: new Date().toISOString() };
  const staged = `${lockFile}.${instance}`;
  await writeFile(staged, JSON.stringify(mine, null, 2));
  let previous: HostLockRecord | undefined;
  try {
    for (let attempt = 0; ; attempt++) {
      if (attempt === 200) throw new Error(`Could not lock the data directory ${dataDir}: its lock kept changing (${lockFile}).`);
      if (await created(() => link(staged, lockFile))) break;
      const holder = await readRecord(lockFile);
      if (holder === 'missing') continue; // released meanwhile
      if (holder !== 'unreadable' && holds(holder)) throw new DataDirInUse(dataDir, holder);
      const claim = join(dataDir, `${TAKEOVER}${holder === 'unreadable' ? 'unreadable' : holder.instance}`);
      if (await created(() => writeFile(claim, JSON.stringify(mine), { flag: 'wx' }))) {
        await rename(staged, lockFile);
        previous = holder === 'unreadable' ? undefined : holder;
        break;
      }
      // Another host is taking this stale lock over right now (then it holds it next time round),
      // or died doing so (then its claim goes).
      const claimant = await readRecord(claim);
      if (claimant === 'unreadable' || (claimant !== 'missing' && !holds(claimant))) await rm(claim, { force: true });
      else await new Promise((resolve) => setTimeout(resolve, 25));
    }
  } finally {
    await rm(staged, { force: true });
  }

  let current = mine;
  return {
    previous,
    async listening(baseUrl) {
      current = { ...current, port: Number(new URL(baseUrl).port), base_url: baseUrl };
      await writeFile(staged, JSON.stringify(current, null, 2));
      await rename(staged, lockFile);
    },
    async release() {
      const holder = await readRecord(lockFile);
      if (holder !== 'missing' && holder !== 'unreadable' && holder.instance !== instance) return;
      await rm(lockFile, { force: true });
      // Claims of stale locks taken over before: nobody takes a lock over while its host runs.
      const claims = (await readdir(dataDir)).filter((name) => name.startsWith(TAKEOVER));
      await Promise.all(claims.map((name) => rm(join(dataDir, name), { force: true })));
    },
  };
}
