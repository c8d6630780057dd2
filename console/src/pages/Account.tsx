/** The account as GET /v1/account has it, and the wallet's ledger (paginated). */
import { type Account, type LedgerEntry, ok, type Page, request, v1 } from '../api.js';
import { bytes, ErrorBox, ListFooter, Loading, Table, when } from '../components/ui.js';
import { useList, useLoad } from '../hooks.js';

export function AccountPage() {
  const account = useLoad(() => ok(v1.GET('/v1/account')), []);
  const ledger = useList((cursor) => request<Page<LedgerEntry>>('GET', `/ledger?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`));
  return (
    <>
      <ErrorBox error={account.error} />
      <Loading when={account.loading} />
      {account.data && <AccountFacts account={account.data} />}
      <section aria-labelledby="ledger">
        <h2 id="ledger">Ledger</h2>
        <Table head={['When', 'Credits', 'Reason', 'Entry']}>
          {ledger.items.map((entry) => (
            <tr key={entry.entry_id}>
              <td>{when(entry.created_at)}</td>
              <td class="number">{entry.credits > 0 ? `+${entry.credits}` : entry.credits}</td>
              <td>{entry.reason}</td>
              <td>
                <code>{entry.entry_id}</code>
              </td>
            </tr>
          ))}
        </Table>
        <ListFooter list={ledger} empty="No ledger entries yet." />
      </section>
    </>
  );
}

function AccountFacts({ account }: { account: Account }) {
  const facts: [string, string][] = [
    ['Account', account.account_id],
    ['Plan', account.plan],
    ['Wallet', `${account.wallet.balance_credits} credits (1 credit = ${account.wallet.credit_unit_seconds} s analysed)`],
    ['Largest video', bytes(account.limits.max_video_bytes)],
    ['Largest audio', bytes(account.limits.max_audio_bytes)],
    ['Longest source', `${account.limits.max_source_minutes} minutes`],
    ['Observations per run', String(account.limits.max_observations)],
    ['Retention', `${account.retention.days} days`],
    ['Concurrency', `${account.concurrency.in_use} of ${account.concurrency.limit} in use, ${account.concurrency.queued} queued`],
    ['Proof allowance', account.proof_allowance.analysis_available ? `available: up to ${account.proof_allowance.max_window_seconds} s` : 'used'],
    ['Providers', account.built_in_providers.map((p) => `${p.name} (${p.kind.replace('_', ' ')})`).join(', ') || 'none'],
    ['Trusted hosts', account.trusted_hosts.join(', ') || 'none'],
    ['Webhook delivery', account.event_delivery.available ? 'available' : 'off: poll instead'],
    ['Created', when(account.created_at)],
  ];
  return (
    <dl class="facts">
      {facts.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
