import { httpHandler } from '../../http/handler.js';
import { clearedSessionCookies } from '../../http/console-session.js';
import { endSession } from '../../domain/console/sessions.js';
import { noQuerySchema } from '../../resources/common/fields.js';
import { consoleSignOut } from '../../composition/console.js';

/** POST /console/api/sign-out: ends the session (its item goes: a copy of the cookie is refused too), clears its cookies, says where the browser goes next. */
export const handler = httpHandler(
  'console/session/sign-out',
  { query: noQuerySchema },
  consoleSignOut,
  async ({ sessionId }, { sessions, redirect, secure }) => {
    // A console route's caller is always a session (principalOf).
    if (sessionId) await endSession(sessions, sessionId);
    return { status: 200, body: { redirect }, cookies: clearedSessionCookies(secure) };
  },
);
