import { cognitoClient } from '../../composition/cognito.js';
import { SIGN_IN_MINUTES, startSignIn } from '../../domain/console/sign-in.js';
import { signInCookie } from '../../http/console-session.js';
import { redirect, redirectHandler } from '../../http/redirect-handler.js';

/** GET /console/auth/sign-in (AWS, public): off to the user pool's managed login, with PKCE. */
export const handler = redirectHandler(() => {
  const { location, attempt } = startSignIn(cognitoClient());
  return Promise.resolve(redirect(location, [signInCookie(attempt, SIGN_IN_MINUTES * 60)]));
});
