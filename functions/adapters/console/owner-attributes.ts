/** The user pool's custom attribute naming an owner's account (infra/constructs/console-users.ts declares it). */
export const ACCOUNT_ID_ATTRIBUTE = 'account_id';
/** The same attribute as ID tokens and the user pool's admin API name it. */
export const ACCOUNT_CLAIM = `custom:${ACCOUNT_ID_ATTRIBUTE}`;
