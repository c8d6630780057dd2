/**
 * The console's owners in the user pool (functions/adapters/console/cognito-owner-directory.ts), as
 * the admin CLI's `owners` commands change them on AWS: Cognito mocked with aws-sdk-client-mock.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import {
  AdminGetUserCommand,
  AdminUpdateUserAttributesCommand,
  CognitoIdentityProviderClient,
  UserNotFoundException,
} from '@aws-sdk/client-cognito-identity-provider';
import { cognitoOwnerDirectory } from '../../../../functions/adapters/console/cognito-owner-directory.js';

const cognito = mockClient(CognitoIdentityProviderClient);
const POOL = 'eu-west-1_Example';
const EMAIL = 'owner@example.com';
const SUB = '7f3e2c1a-0000-4000-8000-000000000001';
const directory = cognitoOwnerDirectory(new CognitoIdentityProviderClient({ region: 'eu-west-1' }), POOL);

afterAll(() => cognito.restore());
beforeEach(() => {
  cognito.reset();
  cognito.on(AdminGetUserCommand).resolves({
    Username: SUB,
    UserAttributes: [
      { Name: 'email', Value: EMAIL },
      { Name: 'sub', Value: SUB },
    ],
  });
});

/** The commands sent, in order, with what each named. */
const sent = () => cognito.calls().map((call) => [call.args[0].constructor.name, call.args[0].input]);

describe('cognitoOwnerDirectory', () => {
  it("names an owner by the pool's sub, found by their sign-in email", async () => {
    expect(await directory.ownerOf(EMAIL)).toBe(SUB);
    expect(sent()).toEqual([['AdminGetUserCommand', { UserPoolId: POOL, Username: EMAIL }]]);
  });

  it('disabling signs them out of everything Cognito issued, then disables them; enabling enables', async () => {
    await directory.setEnabled(EMAIL, false);
    await directory.setEnabled(EMAIL, true);
    expect(sent()).toEqual([
      ['AdminUserGlobalSignOutCommand', { UserPoolId: POOL, Username: EMAIL }],
      ['AdminDisableUserCommand', { UserPoolId: POOL, Username: EMAIL }],
      ['AdminEnableUserCommand', { UserPoolId: POOL, Username: EMAIL }],
    ]);
  });

  it('moves them by their custom:account_id, which their next ID token carries', async () => {
    await directory.setAccount(EMAIL, 'acct_0190a0b0c0d07e0f8a9b0c1d2e3f4a5c');
    expect(cognito.commandCalls(AdminUpdateUserAttributesCommand)[0]!.args[0].input).toEqual({
      UserPoolId: POOL,
      Username: EMAIL,
      UserAttributes: [{ Name: 'custom:account_id', Value: 'acct_0190a0b0c0d07e0f8a9b0c1d2e3f4a5c' }],
    });
  });

  it('answers not_found for an email the pool does not know, whatever the command', async () => {
    cognito.onAnyCommand().rejects(new UserNotFoundException({ message: 'User does not exist.', $metadata: {} }));
    for (const call of [() => directory.ownerOf(EMAIL), () => directory.setEnabled(EMAIL, false), () => directory.setAccount(EMAIL, 'acct_x')]) {
      await expect(call()).rejects.toMatchObject({ code: 'not_found', status: 404 });
    }
  });
});
