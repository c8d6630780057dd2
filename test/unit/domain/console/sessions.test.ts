/**
 * Console sessions and what operators do to owners (functions/domain/console): a session answers
 * until it is signed out, expires, or its owner is disabled, signed out everywhere or moved; the
 * table's part (the store) in memory, the user pool's part (the directory) recorded.
 */
import { describe, expect, it } from 'vitest';
import {
  admitConsoleRequest,
  endSession,
  sessionOf,
  SESSION_HOURS,
  startSession,
  type ConsoleSession,
  type ConsoleSessionStore,
  type OwnerStanding,
} from '../../../../functions/domain/console/sessions.js';
import { disableOwner, enableOwner, moveOwner, signOutOwner, type OwnerDirectory } from '../../../../functions/domain/console/owners.js';
import type { BucketMove, RequestBucketStore } from '../../../../functions/domain/accounts/request-limits.js';
import { ACCOUNT_ID, OTHER_ACCOUNT_ID, testAccount } from '../../../helpers/unit-fixtures.js';

/** The table's items (console-session-store.ts) in memory. */
function memorySessions(): ConsoleSessionStore & { sessions: Map<string, ConsoleSession> } {
  const sessions = new Map<string, ConsoleSession>();
  const standings = new Map<string, OwnerStanding>();
  const standing = (owner: string) => standings.get(owner) ?? { generation: 0, disabled: false };
  return {
    sessions,
    put: (session) => Promise.resolve(void sessions.set(session.sessionId, session)),
    find: (sessionId) => Promise.resolve(sessions.get(sessionId)),
    delete: (sessionId) => Promise.resolve(void sessions.delete(sessionId)),
    standing: (owner) => Promise.resolve(standing(owner)),
    endOwnerSessions(owner, disabled) {
      const before = standing(owner);
      const after = { generation: before.generation + 1, disabled: disabled ?? before.disabled };
      standings.set(owner, after);
      return Promise.resolve(after);
    },
  };
}

/** A user pool of one owner, recording what was asked of it. */
function recordingDirectory(): OwnerDirectory & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    ownerOf: (name) => Promise.resolve(`sub-of-${name}`),
    setEnabled: (name, enabled) => Promise.resolve(void calls.push(`${name} enabled=${enabled}`)),
    setAccount: (name, accountId) => Promise.resolve(void calls.push(`${name} account=${accountId}`)),
  };
}

const T0 = 1_800_000_000_000;
const alice = { owner: 'sub-of-alice@example.com', accountId: ACCOUNT_ID };
const refusal = { code: 'unauthorized', status: 401 };

describe('a console session', () => {
  it('answers for its owner and account until it expires, SESSION_HOURS on', async () => {
    const store = memorySessions();
    const { token, session } = await startSession(store, alice, T0);
    expect(token).toMatch(/^[\w-]{43}$/);
    expect(session).toMatchObject({ ...alice, generation: 0, createdAt: T0, expiresAt: T0 + SESSION_HOURS * 3_600_000 });
    // Only the token's hash is kept.
    expect(JSON.stringify([...store.sessions.values()])).not.toContain(token);
    await expect(sessionOf(store, token, T0 + SESSION_HOURS * 3_600_000 - 1)).resolves.toEqual(session);
    await expect(sessionOf(store, token, T0 + SESSION_HOURS * 3_600_000)).rejects.toMatchObject(refusal);
  });

  it('is refused without a token, with an unknown one, and once signed out (a copy of the cookie too)', async () => {
    const store = memorySessions();
    const { token, session } = await startSession(store, alice, T0);
    await expect(sessionOf(store, undefined, T0)).rejects.toMatchObject(refusal);
    await expect(sessionOf(store, `${token.slice(0, -1)}x`, T0)).rejects.toMatchObject(refusal);
    await endSession(store, session.sessionId);
    await expect(sessionOf(store, token, T0)).rejects.toMatchObject(refusal);
  });

  it("takes a request token from its account's bucket, as an API key does", async () => {
    const store = memorySessions();
    const { token, session } = await startSession(store, alice, T0);
    const moves: string[] = [];
    // An empty table: the first request of the account restarts its bucket.
    const buckets: RequestBucketStore = {
      advance(accountId): Promise<BucketMove> {
        moves.push(`advance ${accountId}`);
        return Promise.resolve({ moved: false, stored: undefined });
      },
      restart(accountId, tat): Promise<BucketMove> {
        moves.push(`restart ${accountId}`);
        return Promise.resolve({ moved: true, tat });
      },
    };
    const accounts = { getAccount: (id: string) => Promise.resolve(id === ACCOUNT_ID ? testAccount() : undefined) };
    const admitted = await admitConsoleRequest(store, accounts, buckets, token, () => T0);
    expect(admitted).toMatchObject({ accountId: ACCOUNT_ID, sessionId: session.sessionId, verdict: { allowed: true } });
    expect(moves).toEqual([`restart ${ACCOUNT_ID}`]);
    // A session whose account is gone is as good as signed out.
    const orphan = await startSession(store, { owner: 'sub-of-bob', accountId: OTHER_ACCOUNT_ID }, T0);
    await expect(admitConsoleRequest(store, accounts, buckets, orphan.token, () => T0)).rejects.toMatchObject(refusal);
  });
});

describe("an operator's change to an owner", () => {
  it('sign-out everywhere ends every session of theirs, and only theirs; they may sign in again', async () => {
    const store = memorySessions();
    const directory = recordingDirectory();
    const [first, second] = [await startSession(store, alice, T0), await startSession(store, alice, T0)];
    const bob = await startSession(store, { owner: 'sub-of-bob', accountId: ACCOUNT_ID }, T0);
    expect(await signOutOwner(directory, store, 'alice@example.com')).toBe(alice.owner);
    for (const { token } of [first, second]) await expect(sessionOf(store, token, T0)).rejects.toMatchObject(refusal);
    await expect(sessionOf(store, bob.token, T0)).resolves.toMatchObject({ owner: 'sub-of-bob' });
    const again = await startSession(store, alice, T0);
    await expect(sessionOf(store, again.token, T0)).resolves.toMatchObject({ generation: 1 });
    expect(directory.calls).toEqual([]);
  });

  it('disable ends their sessions and refuses their next sign-in, in the directory and in the table; enable lets them back', async () => {
    const store = memorySessions();
    const directory = recordingDirectory();
    const { token } = await startSession(store, alice, T0);
    await disableOwner(directory, store, 'alice@example.com');
    await expect(sessionOf(store, token, T0)).rejects.toMatchObject(refusal);
    await expect(startSession(store, alice, T0)).rejects.toMatchObject(refusal);
    await enableOwner(directory, store, 'alice@example.com');
    await expect(startSession(store, alice, T0)).resolves.toMatchObject({ session: { generation: 2 } });
    expect(directory.calls).toEqual(['alice@example.com enabled=false', 'alice@example.com enabled=true']);
  });

  it('a sign-in that read the standing before a move is refused after it (the generation it began with is gone)', async () => {
    const store = memorySessions();
    const directory = recordingDirectory();
    // The callback read the standing (generation 0), then the operator moved the owner, then the session was written.
    const racing = {
      ...store,
      async put(session: ConsoleSession) {
        await moveOwner(directory, store, { getAccount: () => Promise.resolve(testAccount()) }, 'alice@example.com', OTHER_ACCOUNT_ID);
        await store.put(session);
      },
    };
    const { token } = await startSession(racing, alice, T0);
    await expect(sessionOf(store, token, T0)).rejects.toMatchObject(refusal);
    expect(directory.calls).toEqual([`alice@example.com account=${OTHER_ACCOUNT_ID}`]);
  });

  it('move refuses an account that does not exist, changing nothing', async () => {
    const store = memorySessions();
    const directory = recordingDirectory();
    const { token } = await startSession(store, alice, T0);
    await expect(moveOwner(directory, store, { getAccount: () => Promise.resolve(undefined) }, 'alice@example.com', 'acct_nope')).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(sessionOf(store, token, T0)).resolves.toMatchObject(alice);
    expect(directory.calls).toEqual([]);
  });
});
