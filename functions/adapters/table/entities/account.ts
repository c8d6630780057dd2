import { defineEntity } from '../entity.js';
import { ACCOUNT_PARTITION } from '../keys.js';
import type { Account } from '../../../domain/accounts/model.js';

export const accountEntity = defineEntity({
  name: 'account',
  keys: { PK: ACCOUNT_PARTITION, SK: 'ACCOUNT' },
  // DynamoDB cannot store an empty set: trusted hosts are added one by one (a string set) and absent until then.
  toItem: ({ trustedHosts: _none, ...account }: Account) => ({ fields: account, attributes: account }),
  toRecord: (attributes): Account => {
    const { trustedHosts, ...account } = attributes as Omit<Account, 'trustedHosts'> & { trustedHosts?: Set<string> };
    return { ...account, trustedHosts: [...(trustedHosts ?? [])].sort() };
  },
});
