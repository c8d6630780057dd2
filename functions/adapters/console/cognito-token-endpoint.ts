import { ApiError } from '../../domain/errors.js';
import type { CodeExchange, CognitoClient } from '../../domain/console/sign-in.js';
import * as z from '../../shared/zod.js';
import { ACCOUNT_CLAIM } from './owner-attributes.js';

const tokenResponse = z.object({ id_token: z.string().check(z.minLength(1)) });

const idTokenClaims = z.object({
  sub: z.string().check(z.minLength(1)),
  aud: z.string(),
  token_use: z.literal('id'),
  [ACCOUNT_CLAIM]: z.optional(z.string()),
});

/**
 * The ID token's claims. Its signature is not checked: the token comes straight from the user pool's
 * token endpoint over TLS, which OpenID Connect Core (3.1.3.7, step 6) accepts in its place; it is
 * read once here and never kept (the session is ours: domain/console/sessions.ts).
 */
function claimsOf(idToken: string): z.infer<typeof idTokenClaims> {
  const payload = idToken.split('.')[1] ?? '';
  try {
    return idTokenClaims.parse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
  } catch (error) {
    throw new Error('Cognito answered with an ID token that could not be read', { cause: error });
  }
}

/**
 * Cognito's token endpoint (`POST /oauth2/token`) for the console's public app client: PKCE, no
 * client secret. The owner is the ID token's `sub`, their account its `custom:account_id`.
 */
export function cognitoCodeExchange(client: CognitoClient, fetchFn: typeof fetch): CodeExchange {
  return async (code, verifier) => {
    const response = await fetchFn(new URL('/oauth2/token', client.domain), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: client.clientId,
        code,
        redirect_uri: client.redirectUri,
        code_verifier: verifier,
      }),
      signal: AbortSignal.timeout(10_000),
    });
    // 400 invalid_grant: a used, expired or forged code, or a verifier that does not match it.
    if (response.status === 400) throw new ApiError('unauthorized', 'The sign-in code was refused: sign in again.');
    if (!response.ok) throw new Error(`Cognito's token endpoint answered ${response.status}`);
    const claims = claimsOf(tokenResponse.parse(await response.json()).id_token);
    if (claims.aud !== client.clientId) throw new Error("Cognito's ID token is for another client");
    const accountId = claims[ACCOUNT_CLAIM];
    if (!accountId) throw new ApiError('unauthorized', 'This owner belongs to no account yet: an operator sets their custom:account_id.');
    return { owner: claims.sub, accountId };
  };
}
