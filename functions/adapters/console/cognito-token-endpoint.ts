import { ApiError } from '../../domain/errors.js';
import type { CodeExchange, CognitoClient } from '../../domain/console/sign-in.js';
import * as z from '../../shared/zod.js';

const tokenResponse = z.object({ id_token: z.string().check(z.minLength(1)), expires_in: z.number().check(z.int(), z.positive()) });

/** Cognito's token endpoint (`POST /oauth2/token`) for the console's public app client: PKCE, no client secret. */
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
    const tokens = tokenResponse.parse(await response.json());
    return { idToken: tokens.id_token, expiresIn: tokens.expires_in };
  };
}
