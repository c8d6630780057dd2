import {
  AdminDisableUserCommand,
  AdminEnableUserCommand,
  AdminGetUserCommand,
  AdminUpdateUserAttributesCommand,
  AdminUserGlobalSignOutCommand,
  UserNotFoundException,
  type CognitoIdentityProviderClient,
} from '@aws-sdk/client-cognito-identity-provider';
import type { OwnerDirectory } from '../../domain/console/owners.js';
import { notFound } from '../../domain/errors.js';
import { ACCOUNT_CLAIM } from './owner-attributes.js';

/**
 * The console's owners in the deployment's user pool (the admin CLI's `owners` commands, run with the
 * operator's credentials): an owner is named by their sign-in email, and sessions name them by `sub`.
 */
export function cognitoOwnerDirectory(client: CognitoIdentityProviderClient, userPoolId: string): OwnerDirectory {
  const user = { UserPoolId: userPoolId };
  const known = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      if (error instanceof UserNotFoundException) throw notFound('owner');
      throw error;
    }
  };
  return {
    ownerOf: (email) =>
      known(async () => {
        const { UserAttributes = [] } = await client.send(new AdminGetUserCommand({ ...user, Username: email }));
        const sub = UserAttributes.find((attribute) => attribute.Name === 'sub')?.Value;
        if (!sub) throw new Error(`The user pool answered for ${email} without a sub`);
        return sub;
      }),
    setEnabled: (email, enabled) =>
      known(async () => {
        if (enabled) {
          await client.send(new AdminEnableUserCommand({ ...user, Username: email }));
          return;
        }
        // What Cognito issued them first (refresh tokens, the managed login's own session), while the user still takes admin calls.
        await client.send(new AdminUserGlobalSignOutCommand({ ...user, Username: email }));
        await client.send(new AdminDisableUserCommand({ ...user, Username: email }));
      }),
    setAccount: (email, accountId) =>
      known(async () => {
        await client.send(new AdminUpdateUserAttributesCommand({ ...user, Username: email, UserAttributes: [{ Name: ACCOUNT_CLAIM, Value: accountId }] }));
      }),
  };
}
