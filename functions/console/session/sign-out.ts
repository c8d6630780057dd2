import { httpHandler } from '../../http/handler.js';
import { clearedSessionCookies } from '../../http/console-session.js';
import { noQuerySchema } from '../../resources/common/fields.js';
import { consoleSignOut } from '../../composition/console.js';

/** POST /console/api/sign-out: clears the session's cookies and says where the browser goes next. */
export const handler = httpHandler('console/session/sign-out', { query: noQuerySchema }, consoleSignOut, (_request, { redirect, secure }) =>
  Promise.resolve({ status: 200, body: { redirect }, cookies: clearedSessionCookies(secure) }),
);
