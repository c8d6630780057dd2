import { defineEntity } from '../entity.js';
import type { SignInLink } from '../../../domain/accounts/sign-in-links.js';

/** A console sign-in link of the local host, by its token's hash; DynamoDB's TTL removes it once expired. */
export const signInLinkEntity = defineEntity({
  name: 'sign_in_link',
  keys: { PK: 'SIGNIN#{tokenHash}', SK: 'SIGNIN' },
  toItem: (link: SignInLink) => ({ fields: link, attributes: link, expiresAt: Math.ceil(link.expiresAt / 1000) }),
});
