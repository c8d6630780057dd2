import { unwrap } from '../../../client/src/index.js';
import { bytes, keyValues } from '../output.js';
import type { Cli } from './cli.js';

/** `account`: plan, wallet, limits, concurrency. */
export function accountCommand(cli: Cli): void {
  cli.root
    .command('account')
    .description('plan, wallet, limits, concurrency')
    .action(
      cli.run(async ({ api, out }) => {
        const account = await unwrap(api.api.GET('/v1/account'));
        out.result(account, () =>
          keyValues({
            account_id: account.account_id,
            plan: account.plan,
            balance: `${account.wallet.balance_credits} credits`,
            concurrency: `${account.concurrency.in_use}/${account.concurrency.limit} in use, ${account.concurrency.queued} queued`,
            retention: `${account.retention.days} days`,
            max_video: bytes(account.limits.max_video_bytes),
            max_audio: bytes(account.limits.max_audio_bytes),
            proof_analysis: account.proof_allowance.analysis_available ? 'available' : 'used',
            trusted_hosts: account.trusted_hosts.join(', ') || '-',
          }),
        );
      }),
    );
}
