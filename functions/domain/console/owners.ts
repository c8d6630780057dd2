/**
 * What an operator does to a console owner (the admin CLI's `owners` commands, docs/console.md):
 * end their sessions, disable or enable them, move them to another account. The directory says who
 * may sign in and to which account (Cognito's user pool on AWS); the table's owner standing
 * (sessions.ts) ends the sessions already open, so each change holds from the next request on.
 */
import type { AccountStore } from '../accounts/ports.js';
import { notFound } from '../errors.js';
import type { ConsoleSessionStore } from './sessions.js';

export interface OwnerDirectory {
  /** The owner's id, as sessions name it, by the name the operator knows them by; not_found when there is none. */
  ownerOf(name: string): Promise<string>;
  /** Whether they may sign in. */
  setEnabled(name: string, enabled: boolean): Promise<void>;
  /** The account their next sign-in is to. */
  setAccount(name: string, accountId: string): Promise<void>;
}

type Sessions = Pick<ConsoleSessionStore, 'endOwnerSessions'>;

/** Ends every session of the owner (a lost laptop): they may sign in again. */
export async function signOutOwner(directory: OwnerDirectory, sessions: Sessions, name: string): Promise<string> {
  const owner = await directory.ownerOf(name);
  await sessions.endOwnerSessions(owner);
  return owner;
}

/** No sign-in from now on, and none of their sessions answers again. */
export async function disableOwner(directory: OwnerDirectory, sessions: Sessions, name: string): Promise<string> {
  const owner = await directory.ownerOf(name);
  await directory.setEnabled(name, false);
  await sessions.endOwnerSessions(owner, true);
  return owner;
}

export async function enableOwner(directory: OwnerDirectory, sessions: Sessions, name: string): Promise<string> {
  const owner = await directory.ownerOf(name);
  await directory.setEnabled(name, true);
  await sessions.endOwnerSessions(owner, false);
  return owner;
}

/** Their next sign-in is to `accountId`; their sessions in the account they leave end now. */
export async function moveOwner(
  directory: OwnerDirectory,
  sessions: Sessions,
  accounts: Pick<AccountStore, 'getAccount'>,
  name: string,
  accountId: string,
): Promise<string> {
  if (!(await accounts.getAccount(accountId))) throw notFound('account');
  const owner = await directory.ownerOf(name);
  await directory.setAccount(name, accountId);
  await sessions.endOwnerSessions(owner);
  return owner;
}
