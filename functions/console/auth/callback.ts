import { codeExchange } from '../../composition/cognito.js';
import { completeSignIn, randomToken } from '../../domain/console/sign-in.js';
import { cookiesOf, SIGN_IN_COOKIE, signInCookie, sessionCookies } from '../../http/console-session.js';
import { redirect, redirectHandler } from '../../http/redirect-handler.js';

/** GET /console/auth/callback (AWS, public): Cognito's code becomes the session cookies (the ID token); then the console. */
export const handler = redirectHandler(async (event) => {
  const query = event.queryStringParameters ?? {};
  const tokens = await completeSignIn(
    { code: query.code, state: query.state, error: query.error, attempt: cookiesOf(event).get(SIGN_IN_COOKIE) },
    codeExchange(),
  );
  return redirect('/console/', [...sessionCookies(tokens.idToken, randomToken(), true, tokens.expiresIn), signInCookie('', 0)]);
});
