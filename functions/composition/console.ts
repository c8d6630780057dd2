/** What the console-only routes (functions/console) call: the same stores the API's routes use. */
import { config } from '../config.js';
import { lazy } from '../shared/memo.js';
import { media } from './media.js';
import { accounts, consoleSessions } from './accounts.js';
import { uploadStore } from './uploads.js';

/** Which host serves the console (config().host, the one reading of the host's kind). */
export const consoleHost = lazy((): 'aws' | 'local' => config().host.kind);

/** The session's account, for the console's session route. */
export const consoleSession = lazy(() => ({ accounts: accounts(), host: consoleHost() }));

/**
 * Where sign-out sends the browser: the console's start locally; on AWS, CONSOLE_SIGN_OUT_URL
 * (Cognito's logout endpoint, which ends the managed login's own session too).
 */
export const consoleSignOut = lazy(() => ({
  sessions: consoleSessions(),
  redirect: config().CONSOLE_SIGN_OUT_URL ?? '/console/',
  // Cookies are Secure wherever the console is served over https: always on AWS, never on the local host's plain http.
  secure: consoleHost() === 'aws',
}));

/** An upload's private source, signed for the console's player. */
export const consoleMedia = lazy(() => ({ uploads: uploadStore(), media: media() }));
