import { cognitoClient } from '../../composition/cognito.js';
import { startSignIn } from '../../domain/console/sign-in.js';
import { redirect, redirectHandler } from '../../http/redirect-handler.js';

/** GET /console/auth/sign-in (AWS, public): off to the user pool's managed login, with PKCE. */
export const handler = redirectHandler(() => {
  const { location, cookie } = startSignIn(cognitoClient());
  return Promise.resolve(redirect(location, [cookie]));
});
