import { codeExchange } from '../../composition/cognito.js';
import { completeSignIn, CONSOLE_HOME, cookieValue, SIGN_IN_COOKIE } from '../../domain/console/sign-in.js';
import { redirect, redirectHandler } from '../../http/redirect-handler.js';

/** GET /console/auth/callback (AWS, public): Cognito's code becomes the session cookies; then the console. */
export const handler = redirectHandler(async (event) => {
  const query = event.queryStringParameters ?? {};
  const { cookies } = await completeSignIn(
    { code: query.code, state: query.state, error: query.error, signInCookie: cookieValue(event.cookies, SIGN_IN_COOKIE) },
    codeExchange(),
  );
  return redirect(CONSOLE_HOME, cookies);
});
