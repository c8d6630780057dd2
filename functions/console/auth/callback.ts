import { codeExchange } from '../../composition/cognito.js';
import { consoleSessions } from '../../composition/accounts.js';
import { completeSignIn, randomToken } from '../../domain/console/sign-in.js';
import { SESSION_HOURS, startSession } from '../../domain/console/sessions.js';
import { cookiesOf, SIGN_IN_COOKIE, signInCookie, sessionCookies } from '../../http/console-session.js';
import { redirect, redirectHandler } from '../../http/redirect-handler.js';

/** GET /console/auth/callback (AWS, public): Cognito's code names the owner, who begins a session (its cookies); then the console. */
export const handler = redirectHandler(async (event) => {
  const query = event.queryStringParameters ?? {};
  const owner = await completeSignIn(
    { code: query.code, state: query.state, error: query.error, attempt: cookiesOf(event).get(SIGN_IN_COOKIE) },
    codeExchange(),
  );
  const { token } = await startSession(consoleSessions(), owner, Date.now());
  return redirect('/console/', [...sessionCookies(token, randomToken(), true, SESSION_HOURS * 3600), signInCookie('', 0)]);
});
