import { cognitoCodeExchange } from '../adapters/console/cognito-token-endpoint.js';
import { config, requiredSetting } from '../config.js';
import type { CognitoClient } from '../domain/console/sign-in.js';
import { lazy } from '../shared/memo.js';

/** The console's app client, as the stack sets it on the sign-in functions. */
export const cognitoClient = lazy(
  (): CognitoClient => ({
    domain: requiredSetting(config().COGNITO_DOMAIN, 'COGNITO_DOMAIN'),
    clientId: requiredSetting(config().COGNITO_CLIENT_ID, 'COGNITO_CLIENT_ID'),
    redirectUri: new URL('/console/auth/callback', requiredSetting(config().CONSOLE_URL, 'CONSOLE_URL')).toString(),
  }),
);

export const codeExchange = lazy(() => cognitoCodeExchange(cognitoClient(), fetch));
