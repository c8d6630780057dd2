/**
 * The local host's console sign-in (docs/console.md): a one-time link, printed by `npm start` and
 * the admin CLI, that needs no outside service. Only the token's hash is stored; a link works once,
 * within 15 minutes, and consuming it is a single conditional delete, so two uses cannot both win.
 */
import { createHash, randomBytes } from 'node:crypto';

export const SIGN_IN_LINK_MINUTES = 15;

export interface SignInLink {
  tokenHash: string;
  accountId: string;
  /** Epoch milliseconds after which the link is refused. */
  expiresAt: number;
}

export interface SignInLinkStore {
  put(link: SignInLink): Promise<void>;
  /** Deletes the link when it is there and unexpired at `now`, and names its account; undefined otherwise. */
  consume(tokenHash: string, now: number): Promise<string | undefined>;
}

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** A new link's token for the account (32 random bytes, base64url); only its hash is stored. */
export async function issueSignInToken(store: Pick<SignInLinkStore, 'put'>, accountId: string, now = Date.now()): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await store.put({ tokenHash: hashToken(token), accountId, expiresAt: now + SIGN_IN_LINK_MINUTES * 60_000 });
  return token;
}

/** The account a token signs in, consuming it; undefined for an unknown, used or expired one. */
export const redeemSignInToken = (store: Pick<SignInLinkStore, 'consume'>, token: string, now = Date.now()): Promise<string | undefined> =>
  token ? store.consume(hashToken(token), now) : Promise.resolve(undefined);

/** The path of the local host's sign-in step; the link is the host's address, this path and `?token=`. */
export const LOCAL_SIGN_IN_PATH = '/console/auth/local';

export const signInLink = (baseUrl: string, token: string): string => `${baseUrl}${LOCAL_SIGN_IN_PATH}?token=${token}`;
