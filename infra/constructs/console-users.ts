import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  AccountRecovery,
  CfnManagedLoginBranding,
  ClientAttributes,
  FeaturePlan,
  ManagedLoginVersion,
  Mfa,
  OAuthScope,
  StringAttribute,
  UserPool,
  UserPoolClientIdentityProvider,
  type UserPoolClient,
  type UserPoolDomain,
} from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import { ACCOUNT_ID_ATTRIBUTE } from '../../functions/adapters/console/owner-attributes.js';

/**
 * The pool's tokens are read once, by the sign-in callback, which begins a session of ours
 * (functions/domain/console/sessions.ts) and keeps none of them: each lives as short as Cognito allows.
 */
const ID_AND_ACCESS_TOKENS = Duration.minutes(5);
const REFRESH_TOKENS = Duration.minutes(60);

export interface ConsoleUsersProps {
  /** `https://<console host>`: the app client's only callback and sign-out destinations are on it. */
  readonly consoleOrigin: string;
  /** The managed-login domain's prefix (`<prefix>.auth.<region>.amazoncognito.com`), unique in the region. */
  readonly domainPrefix: string;
}

/**
 * The console's account owners (docs/console.md): a Cognito user pool nobody can sign up to (an
 * operator creates each owner with the account it owns), its managed-login domain, and the console's
 * app client (authorization code + PKCE, no secret: the callback function holds none).
 */
export class ConsoleUsers extends Construct {
  public readonly userPool: UserPool;
  public readonly client: UserPoolClient;
  public readonly domain: UserPoolDomain;

  public constructor(scope: Construct, id: string, props: ConsoleUsersProps) {
    super(scope, id);

    this.userPool = new UserPool(this, 'UserPool', {
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      autoVerify: { email: true },
      standardAttributes: { email: { required: true, mutable: true } },
      // Mutable for operators (AdminUpdateUserAttributes); no app client may write it.
      customAttributes: { [ACCOUNT_ID_ATTRIBUTE]: new StringAttribute({ minLen: 1, maxLen: 64, mutable: true }) },
      passwordPolicy: {
        minLength: 12,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(3),
      },
      mfa: Mfa.OPTIONAL,
      mfaSecondFactor: { sms: false, otp: true },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      // Managed login (the newer hosted pages) needs Essentials or Plus.
      featurePlan: FeaturePlan.ESSENTIALS,
      deletionProtection: true,
      // The owners and their MFA devices outlive a torn-down stack.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.userPool).acknowledge(
      {
        id: 'AwsSolutions-COG2',
        reason: 'MFA is optional (TOTP): owners are created by an operator, and a pool-wide requirement is a choice for the deployment (docs/console.md).',
      },
      {
        id: 'AwsSolutions-COG8',
        reason:
          'Threat protection needs the Plus feature plan, billed per monthly active user; no self sign-up, a strong password policy and optional TOTP are the baseline. A deployment may raise the plan (docs/console.md).',
      },
    );

    this.domain = this.userPool.addDomain('Domain', {
      cognitoDomain: { domainPrefix: props.domainPrefix },
      managedLoginVersion: ManagedLoginVersion.NEWER_MANAGED_LOGIN,
    });

    this.client = this.userPool.addClient('ConsoleClient', {
      generateSecret: false,
      oAuth: {
        flows: { authorizationCodeGrant: true, implicitCodeGrant: false },
        scopes: [OAuthScope.OPENID, OAuthScope.EMAIL],
        callbackUrls: [`${props.consoleOrigin}/console/auth/callback`],
        logoutUrls: [`${props.consoleOrigin}/console/`],
      },
      supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO],
      idTokenValidity: ID_AND_ACCESS_TOKENS,
      accessTokenValidity: ID_AND_ACCESS_TOKENS,
      refreshTokenValidity: REFRESH_TOKENS,
      enableTokenRevocation: true,
      preventUserExistenceErrors: true,
      readAttributes: new ClientAttributes().withStandardAttributes({ email: true, emailVerified: true }).withCustomAttributes(ACCOUNT_ID_ATTRIBUTE),
      // Owners may not move themselves to another account: the attribute is the operator's.
      writeAttributes: new ClientAttributes().withStandardAttributes({ email: true }),
    });

    // Managed login shows a client's pages only once it has a style: Cognito's own.
    new CfnManagedLoginBranding(this, 'Branding', {
      userPoolId: this.userPool.userPoolId,
      clientId: this.client.userPoolClientId,
      useCognitoProvidedValues: true,
    });
  }

  /** The managed-login domain's base URL (`https://<prefix>.auth.<region>.amazoncognito.com`). */
  public get domainUrl(): string {
    return this.domain.baseUrl();
  }

  /** The issuer of the pool's tokens, which the API's JWT authorizer trusts. */
  public get issuer(): string {
    return this.userPool.userPoolProviderUrl;
  }
}
